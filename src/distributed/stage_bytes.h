// Little-endian writing and bounds-checked reading of the stage files'
// fields (stage_sign.cc, stage_bucket.cc, stage_report.cc), and reading
// a file's bytes at an offset (ReadAt). Internal.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/hash.h"

namespace neardup {

// Reads `n` bytes at `at` of `fd` into `to` (pread, again on EINTR and
// after a short read); false on an error or the end of the file.
inline bool ReadAt(int fd, uint64_t at, void* to, size_t n) {
  char* p = static_cast<char*>(to);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, n, static_cast<off_t>(at));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    at += static_cast<uint64_t>(got);
    n -= static_cast<size_t>(got);
  }
  return true;
}

class FieldWriter {
 public:
  explicit FieldWriter(std::string* out) : out_(out) {}
  void U8(uint8_t v) { out_->push_back(static_cast<char>(v)); }
  void U32(uint32_t v) { Raw(&v, 4); }
  void U64(uint64_t v) { Raw(&v, 8); }
  void Text(std::string_view s) {
    U64(s.size());
    out_->append(s);
  }
  void Raw(const void* p, size_t n) { out_->append(static_cast<const char*>(p), n); }
  // Appends XXH3-64 (seed 0) of everything written so far.
  void Checksum() { U64(HashBytes(out_->data(), out_->size(), 0)); }

 private:
  std::string* out_;  // host order is little-endian (checked by table_codec)
};

class FieldReader {
 public:
  explicit FieldReader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  size_t left() const { return in_.size() - pos_; }
  uint8_t U8() {
    uint8_t v = 0;
    Raw(&v, 1);
    return v;
  }
  uint32_t U32() {
    uint32_t v = 0;
    Raw(&v, 4);
    return v;
  }
  uint64_t U64() {
    uint64_t v = 0;
    Raw(&v, 8);
    return v;
  }
  std::string Text() {
    const uint64_t n = U64();
    if (!ok_ || n > left()) {
      ok_ = false;
      return {};
    }
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  void Raw(void* p, size_t n) {
    if (!ok_ || n > left()) {
      ok_ = false;
      return;
    }
    std::memcpy(p, in_.data() + pos_, n);
    pos_ += n;
  }

 private:
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// Lists of ids (the large buckets of the bucket and verify outputs): their
// count, then each list's size and ids.
inline void WriteIdLists(FieldWriter& w, const std::vector<std::vector<uint64_t>>& lists) {
  w.U64(lists.size());
  for (const std::vector<uint64_t>& list : lists) {
    w.U64(list.size());
    for (uint64_t id : list) w.U64(id);
  }
}
// Reads what WriteIdLists() wrote; false when a count exceeds what is left.
inline bool ReadIdLists(FieldReader& r, std::vector<std::vector<uint64_t>>* lists) {
  const uint64_t n = r.U64();
  if (n > r.left() / 8) return false;
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    const uint64_t size = r.U64();
    if (size > r.left() / 8) return false;
    std::vector<uint64_t> list(size);
    for (uint64_t& id : list) id = r.U64();
    lists->push_back(std::move(list));
  }
  return r.ok();
}

// Whether the last 8 bytes of `bytes` are XXH3-64 of the rest.
inline bool ChecksumMatches(std::string_view bytes) {
  if (bytes.size() < 8) return false;
  uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
  return stored == HashBytes(bytes.data(), bytes.size() - 8, 0);
}

}  // namespace neardup
