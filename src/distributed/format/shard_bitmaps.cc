#include "distributed/format/shard_bitmaps.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "base/coding.h"
#include "base/hash.h"
#include "neardup/quote.h"
#include "sign/set_bitmap_codec.h"

namespace neardup {

namespace {

// The most bytes a record takes: a bitmap of the highest level and its
// checksum.
constexpr uint64_t kMaxRecord = 1 + 3 * 8 + (uint64_t{8} << (SetBitmapBuilder::kMaxLevel - 6)) + 8;

uint64_t Blocks(uint64_t entries) { return (entries + kBitmapOffsetsPerBlock - 1) / kBitmapOffsetsPerBlock; }

// Checksum64() of a record's id and bitmap bytes.
uint64_t RecordChecksum(uint64_t local, std::string_view bytes) {
  char id[8];
  for (size_t i = 0; i < 8; ++i) id[i] = static_cast<char>((local >> (8 * i)) & 0xFF);
  Hasher64 h;
  h.Reset(0);
  h.Update(id, sizeof id);
  h.Update(bytes.data(), bytes.size());
  return h.Digest();
}

}  // namespace

std::string EncodeBitmapsHeader(const BitmapsHeader& h) {
  std::string out(kBitmapsMagic, sizeof kBitmapsMagic);
  PutFixed32(&out, kBitmapsVersion);
  PutFixed32(&out, 0);
  PutFixed64(&out, h.fingerprint);
  PutFixed64(&out, h.docs);
  PutFixed64(&out, h.table);
  PutChecksum(&out);
  return out;
}

Result<BitmapsHeader> DecodeBitmapsHeader(std::string_view bytes) {
  Decoder r(bytes.substr(0, kBitmapsHeaderSize));
  char magic[8];
  r.Raw(magic, 8, "the magic");
  const uint32_t version = r.U32("the version");
  r.U32("the header's padding");
  BitmapsHeader h;
  h.fingerprint = r.U64("the fingerprint");
  h.docs = r.U64("the document count");
  h.table = r.U64("the offset table's place");
  r.U64("the header's checksum");
  if (!r.ok()) return r.status();
  if (std::memcmp(magic, kBitmapsMagic, 8) != 0) return Status::Corrupt("not a bitmaps file (the magic)");
  if (version != kBitmapsVersion) return Status::Corrupt("another format version (made by another neardup)");
  if (!ChecksumMatches(bytes.substr(0, kBitmapsHeaderSize))) return Status::Corrupt("the header's checksum");
  return h;
}

uint64_t BitmapsFileSize(uint64_t docs, uint64_t table) {
  constexpr uint64_t kLimit = uint64_t{1} << 60;
  if (docs >= kLimit / 16 || table >= kLimit) return 0;
  return table + 8 * (docs + 1) + 8 * Blocks(docs + 1);
}

void PutBitmapRecord(std::string* out, uint64_t local, const SetBitmap& bitmap) {
  const size_t at = out->size();
  PutSetBitmap(out, bitmap);
  PutFixed64(out, RecordChecksum(local, std::string_view(*out).substr(at)));
}

Result<SetBitmap> DecodeBitmapRecord(std::string_view record, uint64_t local) {
  if (record.size() < 9) return Status::Corrupt("a record shorter than its fields");
  const std::string_view bytes = record.substr(0, record.size() - 8);
  if (DecodeFixed64(record.data() + bytes.size()) != RecordChecksum(local, bytes)) {
    return Status::Corrupt("the checksum of document " + std::to_string(local) + "'s record");
  }
  Decoder in(bytes);
  SetBitmap out = GetSetBitmap(in);
  if (!in.ok()) return Status::Corrupt("document " + std::to_string(local) + "'s record: " + in.status().message());
  if (in.left() != 0) return Status::Corrupt("bytes left after document " + std::to_string(local) + "'s bitmap");
  return out;
}

Status ShardBitmapsWriter::Open(const std::string& path, uint64_t fingerprint) {
  fingerprint_ = fingerprint;
  Result<TempFile> offsets = TempFile::Create("the offsets of " + ShellQuoted(path));
  if (!offsets.ok()) return offsets.status();
  offsets_ = std::move(*offsets);
  if (Status s = file_.Open(path); !s.ok()) return s;
  file_.Append(std::string(kBitmapsHeaderSize, '\0'));  // written last
  return Status::Ok();
}

void ShardBitmapsWriter::Add(const SetBitmap& bitmap) {
  char offset[8];
  for (size_t i = 0; i < 8; ++i) offset[i] = static_cast<char>((at_ >> (8 * i)) & 0xFF);
  if (error_.ok() && std::fwrite(offset, 1, sizeof offset, offsets_.get()) != sizeof offset) {
    error_ = Status::IoError("cannot write a temporary file of bitmap offsets");
  }
  record_.clear();
  PutBitmapRecord(&record_, docs_, bitmap);
  file_.Append(record_);
  at_ += record_.size();
  ++docs_;
}

Status ShardBitmapsWriter::Finish() {
  char offset[8];
  for (size_t i = 0; i < 8; ++i) offset[i] = static_cast<char>((at_ >> (8 * i)) & 0xFF);
  std::FILE* f = offsets_.get();
  if (error_.ok() && (std::fwrite(offset, 1, sizeof offset, f) != sizeof offset || std::fflush(f) != 0 ||
                      std::fseek(f, 0, SEEK_SET) != 0)) {
    error_ = Status::IoError("cannot write a temporary file of bitmap offsets");
  }
  if (!error_.ok()) return error_;
  const uint64_t table = at_;
  std::vector<uint64_t> sums;
  std::string block(kBitmapOffsetsPerBlock * 8, '\0');
  for (uint64_t left = docs_ + 1; left > 0;) {
    const size_t n = static_cast<size_t>(std::min(left, kBitmapOffsetsPerBlock)) * 8;
    if (std::fread(block.data(), 1, n, f) != n)
      return Status::IoError("cannot read a temporary file of bitmap offsets");
    const std::string_view bytes(block.data(), n);
    file_.Append(bytes);
    sums.push_back(Checksum64(bytes));
    left -= n / 8;
  }
  std::string tail;
  for (const uint64_t sum : sums) PutFixed64(&tail, sum);
  file_.Append(tail);
  file_.WriteAt(0, EncodeBitmapsHeader({.fingerprint = fingerprint_, .docs = docs_, .table = table}));
  return file_.Commit();
}

ShardBitmapsReader::ShardBitmapsReader(ShardBitmapsReader&& o) noexcept
    : path_(std::move(o.path_)),
      fd_(std::exchange(o.fd_, -1)),
      header_(o.header_),
      block_(o.block_),
      offsets_(std::move(o.offsets_)) {}

ShardBitmapsReader& ShardBitmapsReader::operator=(ShardBitmapsReader&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(o.path_);
    fd_ = std::exchange(o.fd_, -1);
    header_ = o.header_;
    block_ = o.block_;
    offsets_ = std::move(o.offsets_);
  }
  return *this;
}

ShardBitmapsReader::~ShardBitmapsReader() {
  if (fd_ >= 0) ::close(fd_);
}

Result<ShardBitmapsReader> ShardBitmapsReader::Open(const std::string& path, uint64_t fingerprint, uint64_t docs) {
  ShardBitmapsReader r;
  r.path_ = path;
  r.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (r.fd_ < 0) return Status::IoError(ShellQuoted(path) + ": cannot open: " + std::strerror(errno));
  char head[kBitmapsHeaderSize];
  if (!ReadAt(r.fd_, 0, head, sizeof head)) return Damaged(path, "truncated in its header");
  Result<BitmapsHeader> header = DecodeBitmapsHeader(std::string_view(head, sizeof head));
  if (!header.ok()) return Damaged(path, header.status().message());
  r.header_ = *header;
  struct stat st {};
  const uint64_t size = BitmapsFileSize(header->docs, header->table);
  if (::fstat(r.fd_, &st) != 0 || size == 0 || static_cast<uint64_t>(st.st_size) != size ||
      header->table < kBitmapsHeaderSize + 9 * header->docs) {
    return Damaged(path, "its size does not match its header");
  }
  if (header->docs != docs) return Damaged(path, "another document count than its shard's table");
  if (header->fingerprint != fingerprint) return Damaged(path, "made by another run than its shard");
  return r;
}

Status ShardBitmapsReader::LoadBlock(uint64_t block) {
  const uint64_t entries = header_.docs + 1;
  const uint64_t first = block * kBitmapOffsetsPerBlock;
  const size_t n = static_cast<size_t>(std::min(kBitmapOffsetsPerBlock, entries - first));
  std::string bytes(n * 8 + 8, '\0');
  const uint64_t sums = header_.table + 8 * entries;
  if (!ReadAt(fd_, header_.table + 8 * first, bytes.data(), n * 8) ||
      !ReadAt(fd_, sums + 8 * block, bytes.data() + n * 8, 8)) {
    return Damaged(path_, "truncated in its offsets");
  }
  if (!ChecksumMatches(bytes)) return Damaged(path_, "the checksum of offset block " + std::to_string(block));
  offsets_.resize(n);
  for (size_t k = 0; k < n; ++k) offsets_[k] = DecodeFixed64(bytes.data() + 8 * k);
  block_ = block;
  return Status::Ok();
}

Result<uint64_t> ShardBitmapsReader::Offset(uint64_t k) {
  const uint64_t block = k / kBitmapOffsetsPerBlock;
  if (block != block_) {
    if (Status s = LoadBlock(block); !s.ok()) return s;
  }
  const uint64_t at = offsets_[k % kBitmapOffsetsPerBlock];
  const bool edge_right = (k != 0 || at == kBitmapsHeaderSize) && (k != header_.docs || at == header_.table);
  if (!edge_right || at < kBitmapsHeaderSize || at > header_.table) {
    return Damaged(path_, "offset " + std::to_string(k) + " out of range");
  }
  return at;
}

Result<SetBitmap> ShardBitmapsReader::Read(uint64_t local) {
  Result<uint64_t> begin = Offset(local);
  if (!begin.ok()) return begin.status();
  Result<uint64_t> end = Offset(local + 1);
  if (!end.ok()) return end.status();
  if (*end <= *begin || *end - *begin > kMaxRecord) {
    return Damaged(path_, "offsets " + std::to_string(local) + " and " + std::to_string(local + 1) + " out of order");
  }
  std::string record(static_cast<size_t>(*end - *begin), '\0');
  if (!ReadAt(fd_, *begin, record.data(), record.size())) return Damaged(path_, "truncated in its records");
  Result<SetBitmap> out = DecodeBitmapRecord(record, local);
  if (!out.ok()) return Damaged(path_, out.status().message());
  return out;
}

}  // namespace neardup
