// Fuzz harness: bytes -> a sign/I.bands file -> BucketBands (stage_bucket.h),
// as a bucket task reads it.
//
// The first byte chooses: bit 0, whether to repair the file (its size made
// that of its header's counts, when small, and its checksums made to match,
// so that mutations reach the checks behind them); bits 1-2, the shard's
// document count against the header's (equal, equal, one more, one less); bit 3, the shard's number (0 or 1); bit 4,
// pairs or cluster mode (large buckets of more than 2). The rest is the file. Checks that:
//   - BucketBands returns (no crash, no allocation the file does not
//     justify); a failure is Corrupt, InvalidArgument or IoError, one line
//     naming the file;
//   - what it returns passes the report's CheckBucketOutput() for that shard
//     and those bands, and re-encodes to bytes that decode to it.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/hash.h"
#include "distributed/stage_bucket.h"
#include "distributed/stage_sign.h"
#include "harnesses.h"

namespace neardup::fuzz {
namespace {

constexpr size_t kMaxRepaired = 1 << 16;  // the largest file the repair grows

uint64_t Get(const std::string& b, size_t at, size_t n) {
  uint64_t v = 0;
  std::memcpy(&v, b.data() + at, n);
  return v;
}
void Put64(std::string& b, size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); }

// The file's size made its header's, and its checksums right (the runs'
// counts as they are, when they add up).
void Repair(std::string& file) {
  if (file.size() < kBandsHeaderSize) return;
  const uint64_t bands = Get(file, 12, 4), runs = Get(file, 20, 4), per_band = Get(file, 32, 8),
                 docs = Get(file, 40, 8);
  const std::optional<uint64_t> size = BandsFileSize(bands, per_band, docs, runs);
  if (!size || *size > kMaxRepaired) return;
  file.resize(*size);
  const size_t copies = kBandsHeaderSize + bands * per_band * kBandEntrySize;
  const size_t trailer = copies + docs * kCopyEntrySize;
  const size_t places = runs * bands;
  size_t run = kBandsHeaderSize;
  for (uint64_t k = 0; k < places; ++k) {
    const uint64_t entries = Get(file, trailer + k * 8, 8);
    if (entries > (copies - run) / kBandEntrySize) break;
    Put64(file, trailer + (places + k) * 8, HashBytes(file.data() + run, entries * kBandEntrySize, 0));
    run += entries * kBandEntrySize;
  }
  Put64(file, trailer + places * 16, HashBytes(file.data() + copies, docs * kCopyEntrySize, 0));
  Put64(file, trailer + places * 16 + 8,
        BandsIndexChecksum(std::string_view(file).substr(0, kBandsHeaderSize),
                           std::string_view(file).substr(trailer, places * 16 + 8)));
}

const std::string& ScratchPath() {
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("neardup-bands-fuzz-" + std::to_string(::getpid()))).string();
  return path;
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
  // The shard's document count: mostly the file's own.
  const uint64_t docs = file.size() >= kBandsHeaderSize ? Get(file, 40, 8) : 0;
  const uint64_t docs_choice[] = {docs, docs, docs + 1, docs - 1};
  const ShardBands shard{.path = ScratchPath(),
                         .shard = static_cast<uint32_t>((mode >> 3) & 1),
                         .docs = std::min(docs_choice[(mode >> 1) & 3], uint64_t{1} << 40)};
  // The banding and fingerprint the file says, so that a file of options
  // that match is the common case.
  const Banding banding{.bands = file.size() >= 16 ? static_cast<int>(Get(file, 12, 4)) : 16,
                        .rows = file.size() >= 20 ? static_cast<int>(Get(file, 16, 4)) : 8};
  const uint64_t fingerprint = file.size() >= 32 ? Get(file, 24, 8) : 0;
  const uint64_t bands = banding.bands > 0 ? static_cast<uint64_t>(banding.bands) : 0;
  const BandRange range{.first = bands / 3, .last = bands};
  const uint64_t large = (mode & 16) != 0 ? 2 : 0;
  Result<BucketOutput> out = BucketBands({shard}, banding, fingerprint, range, large);
  if (!out.ok()) {
    const Status& s = out.status();
    NEARDUP_FUZZ_CHECK(s.code() == Status::Code::kCorrupt || s.code() == Status::Code::kInvalidArgument ||
                       s.code() == Status::Code::kIoError);
    NEARDUP_FUZZ_CHECK(s.message().starts_with(ScratchPath() + ": "));
    NEARDUP_FUZZ_CHECK(s.message().find('\n') == std::string::npos);
    return true;
  }
  std::vector<uint64_t> shard_docs(shard.shard + 1, 0);
  shard_docs[shard.shard] = shard.docs;
  const Status checked = CheckBucketOutput(*out, {.shard_docs = shard_docs, .bands = range, .large_bucket = large});
  NEARDUP_FUZZ_CHECK(checked.ok());
  Result<BucketOutput> back = DecodeBucketOutput(EncodeBucketOutput(*out));
  NEARDUP_FUZZ_CHECK(back.ok());
  NEARDUP_FUZZ_CHECK(back->pairs == out->pairs);
  NEARDUP_FUZZ_CHECK(back->large == out->large);
  return true;
}

}  // namespace

int BandsFuzz(const uint8_t* data, size_t size) {
  Run(data, size);
  std::error_code ec;
  std::filesystem::remove(ScratchPath(), ec);
  return 0;
}

}  // namespace neardup::fuzz

#ifndef NEARDUP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return neardup::fuzz::BandsFuzz(data, size); }
#endif
