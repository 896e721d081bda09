// Fuzz harness: bytes -> a sign/I.bitmaps file -> ShardBitmapsReader
// (format/shard_bitmaps.h), as a verify task reads it by id.
//
// The first byte chooses: bit 0, whether to repair the file (its size made
// that of its header's counts, when small, and every checksum made to match:
// each record's where its offsets are in order, each block's, the header's,
// so that mutations reach the checks behind them); bits 1-2, the shard's
// document count against the header's (equal, equal, one more, one less).
// The rest is the file. Checks that:
//   - Open() and Read() of every document return (no crash, no allocation
//     the file does not justify); a failure is Corrupt or IoError, one line
//     naming the file;
//   - a bitmap read is one the codec accepts again: re-encoded, it decodes
//     to the same fields.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/hash.h"
#include "distributed/format/shard_bitmaps.h"
#include "harnesses.h"

namespace neardup::fuzz {
namespace {

constexpr uint64_t kMaxRepaired = 1 << 16;  // the largest file the repair grows

uint64_t Get(const std::string& b, size_t at) {
  uint64_t v = 0;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}
void Put64(std::string& b, size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); }

// Record k's checksum made to match, when its offsets are in order.
void RepairRecord(std::string& file, uint64_t table, uint64_t k) {
  const uint64_t begin = Get(file, table + 8 * k), end = Get(file, table + 8 * (k + 1));
  if (begin < kBitmapsHeaderSize || end > table || end < begin + 9) return;
  Hasher64 h;
  h.Reset(0);
  h.Update(&k, 8);  // little-endian hosts only, as the fuzzers run
  h.Update(file.data() + begin, end - 8 - begin);
  Put64(file, end - 8, h.Digest());
}

// The file's size made its header's, and its checksums right.
void Repair(std::string& file) {
  if (file.size() < kBitmapsHeaderSize) return;
  const uint64_t docs = Get(file, 24), table = Get(file, 32);
  const uint64_t size = BitmapsFileSize(docs, table);
  if (size == 0 || size > kMaxRepaired || table < kBitmapsHeaderSize) return;
  file.resize(size);
  for (uint64_t k = 0; k < docs; ++k) RepairRecord(file, table, k);
  const uint64_t entries = docs + 1;
  for (uint64_t block = 0; block * kBitmapOffsetsPerBlock < entries; ++block) {
    const uint64_t first = block * kBitmapOffsetsPerBlock;
    const uint64_t n = std::min(kBitmapOffsetsPerBlock, entries - first);
    Put64(file, table + 8 * entries + 8 * block, HashBytes(file.data() + table + 8 * first, 8 * n, 0));
  }
  Put64(file, 40, HashBytes(file.data(), 40, 0));
}

const std::string& ScratchPath() {
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("neardup-bitmaps-fuzz-" + std::to_string(::getpid()))).string();
  return path;
}

bool Refusal(const Status& s) {
  NEARDUP_FUZZ_CHECK(s.code() == Status::Code::kCorrupt || s.code() == Status::Code::kIoError);
  NEARDUP_FUZZ_CHECK(s.message().starts_with(ScratchPath() + ": "));
  NEARDUP_FUZZ_CHECK(s.message().find('\n') == std::string::npos);
  return true;
}

bool Run(const uint8_t* data, size_t size) {
  if (size == 0) return true;
  const uint8_t mode = data[0];
  std::string file(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((mode & 1) != 0) Repair(file);
  {
    std::ofstream out(ScratchPath(), std::ios::binary | std::ios::trunc);
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
  }
  const uint64_t docs = file.size() >= kBitmapsHeaderSize ? Get(file, 24) : 0;
  const uint64_t docs_choice[] = {docs, docs, docs + 1, docs - 1};
  const uint64_t shard_docs = docs_choice[(mode >> 1) & 3];
  const uint64_t fingerprint = file.size() >= kBitmapsHeaderSize ? Get(file, 16) : 0;
  Result<ShardBitmapsReader> reader = ShardBitmapsReader::Open(ScratchPath(), fingerprint, shard_docs);
  if (!reader.ok()) return Refusal(reader.status());
  for (uint64_t k = 0; k < std::min<uint64_t>(shard_docs, 4096); ++k) {
    Result<SetBitmap> bits = reader->Read(k);
    if (!bits.ok()) {
      if (!Refusal(bits.status())) return false;
      continue;
    }
    std::string record;
    PutBitmapRecord(&record, k, *bits);
    Result<SetBitmap> back = DecodeBitmapRecord(record, k);
    NEARDUP_FUZZ_CHECK(back.ok());
    NEARDUP_FUZZ_CHECK(back->words == bits->words && back->level == bits->level && back->most == bits->most &&
                       back->least == bits->least && back->bits == bits->bits);
  }
  return true;
}

}  // namespace

int BitmapsFuzz(const uint8_t* data, size_t size) {
  Run(data, size);
  std::error_code ec;
  std::filesystem::remove(ScratchPath(), ec);
  return 0;
}

}  // namespace neardup::fuzz

#ifndef NEARDUP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return neardup::fuzz::BitmapsFuzz(data, size);
}
#endif
