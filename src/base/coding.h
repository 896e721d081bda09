// Coding: the one layer every stored format is written and read through
// (as leveldb's util/coding.h). A format (src/distributed/format/,
// src/sign/table_codec.h) says which fields it stores in which order; this
// file says how a field becomes bytes and back:
//  - integers are little-endian, fixed width (u8, u32, u64; a double is its
//    IEEE-754 bits as a u64); a text is its u64 length, then its bytes;
//  - a checksum is XXH3-64, seed 0 (Checksum64()), stored as a u64: a
//    format whose bytes end with the checksum of all before them appends it
//    with PutChecksum() and checks it with ChecksumMatches();
//  - Decoder reads fields from bytes held in memory, FileSource from a
//    file through a buffer (for files too big to hold): both check every
//    read against the bytes left, and the first read that fails leaves the
//    reader failed, its status a Corrupt that names the field and its
//    offset ("truncated at offset 20 reading the band count: need 8 bytes,
//    3 left"). Reads after a failure return zeros.
// A checksum catches damage, not intent: a value read is still checked by
// its format before it sizes an allocation or reaches a write.
//
// Thread safety: free functions over values; a reader or a source is used
// by one thread at a time.
//
//   std::string out;
//   PutFixed64(&out, 7);
//   PutChecksum(&out);
//   Decoder in(std::string_view(out).substr(0, 8));
//   uint64_t seven = in.U64("the count");  // in.status() names what failed
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "base/hash.h"
#include "neardup/status.h"

namespace neardup {

// Appends `value`'s bytes, least significant first.
void PutFixed8(std::string* out, uint8_t value);
void PutFixed16(std::string* out, uint16_t value);
void PutFixed32(std::string* out, uint32_t value);
void PutFixed64(std::string* out, uint64_t value);
// Appends each of `values` as PutFixed64 does, in one copy on a
// little-endian host (a verify task's shingle sets: 750,000 values on 6,000
// mails).
void PutFixed64s(std::string* out, std::span<const uint64_t> values);
// Appends the IEEE-754 bits of `value` as a u64.
void PutDouble(std::string* out, double value);
// Appends the u64 length of `text`, then its bytes.
void PutText(std::string* out, std::string_view text);

// The value whose bytes, least significant first, start at `p`
// (REQUIRES: that many bytes there). Inline: readers of band keys call them
// for every entry.
template <typename T>
T DecodeFixed(const char* p) {
  T v = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&v, p, sizeof v);
  } else {
    for (size_t i = 0; i < sizeof(T); ++i) v = static_cast<T>(v | (T{static_cast<unsigned char>(p[i])} << (8 * i)));
  }
  return v;
}
inline uint16_t DecodeFixed16(const char* p) { return DecodeFixed<uint16_t>(p); }
inline uint32_t DecodeFixed32(const char* p) { return DecodeFixed<uint32_t>(p); }
inline uint64_t DecodeFixed64(const char* p) { return DecodeFixed<uint64_t>(p); }

// XXH3-64, seed 0, of `bytes`: the checksum every stored format uses.
inline uint64_t Checksum64(std::string_view bytes) { return HashBytes(bytes.data(), bytes.size(), 0); }
// Appends Checksum64() of everything in *out so far.
void PutChecksum(std::string* out);
// Whether the last 8 bytes of `bytes` are Checksum64() of the rest (false
// for fewer than 8 bytes).
bool ChecksumMatches(std::string_view bytes);

// Reads `n` bytes at `at` of `fd` into `to` (pread, again on EINTR and
// after a short read); false on an error or the end of the file.
bool ReadAt(int fd, uint64_t at, void* to, size_t n);

// The reads of fixed-width fields, made of a reader's Raw(): shared by
// Decoder and FileSource. `what` names the field in the error.
template <typename Reader>
class FieldReads {
 public:
  uint8_t U8(const char* what) {
    char b[1] = {};
    Self().Raw(b, 1, what);
    return static_cast<uint8_t>(b[0]);
  }
  uint32_t U32(const char* what) {
    char b[4] = {};
    Self().Raw(b, 4, what);
    return DecodeFixed32(b);
  }
  uint64_t U64(const char* what) {
    char b[8] = {};
    Self().Raw(b, 8, what);
    return DecodeFixed64(b);
  }
  // to.size() u64 fields, in one copy on a little-endian host.
  void U64s(std::span<uint64_t> to, const char* what) {
    Self().Raw(to.data(), to.size_bytes(), what);
    if constexpr (std::endian::native != std::endian::little) {
      for (uint64_t& v : to) v = DecodeFixed64(reinterpret_cast<const char*>(&v));
    }
  }
  double Double(const char* what) {
    const uint64_t bits = U64(what);
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }

 private:
  Reader& Self() { return static_cast<Reader&>(*this); }
};

// Fields read in order from bytes in memory, each checked against the bytes
// left (see the top of the file). The bytes are borrowed: they must outlive
// the reader.
class Decoder : public FieldReads<Decoder> {
 public:
  // `base` is the offset of in[0] in what the errors call offsets (a reader
  // over the part of a file after its magic gives the magic's size).
  explicit Decoder(std::string_view in, uint64_t base = 0) : in_(in), base_(base) {}
  bool ok() const { return status_.ok(); }
  // Ok, or the first failure (Corrupt naming the field and its offset).
  const Status& status() const { return status_; }
  size_t left() const { return in_.size() - pos_; }
  // Takes the next `n` bytes into `to`; when fewer are left, zeros, and the
  // reader fails.
  void Raw(void* to, size_t n, const char* what);
  // A u64 length, then that many bytes.
  std::string Text(const char* what);
  // A u64 count of items that take at least `min_size` bytes each (> 0):
  // the reader fails, and 0 is returned, when the bytes left cannot hold
  // them, so that the count may size an allocation.
  uint64_t Count(const char* what, uint64_t min_size);
  // Fails the reader (if it has not failed yet) with "WHAT at offset N".
  void Fail(std::string_view what);

 private:
  std::string_view in_;
  uint64_t base_;
  size_t pos_ = 0;
  Status status_;
};

// A file's fields read front to back through a buffer of `buffer` bytes,
// each byte hashed as it passes: the fields are those before the file's
// last 8 bytes, and ChecksumMatches() then says whether those 8 bytes are
// Checksum64() of the rest, as ChecksumMatches(bytes) says of bytes held
// whole. Memory: the buffer. Non-copyable; the descriptor is closed by the
// destructor.
class FileSource : public FieldReads<FileSource> {
 public:
  explicit FileSource(std::string path, size_t buffer = size_t{1} << 20);
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  ~FileSource();
  // IoError naming the file (shell-quoted) when it cannot be opened or
  // stat'ed.
  Status Open();
  uint64_t size() const { return size_; }
  // Bytes before the checksum not yet taken.
  uint64_t left() const { return body_ - taken_; }
  bool ok() const { return status_.ok(); }
  // Ok, or the first failure (Corrupt naming the field and its offset).
  const Status& status() const { return status_; }
  // Takes the next `n` bytes into `to`; past the checksum or on a read
  // error, zeros, and the source fails.
  void Raw(void* to, size_t n, const char* what);
  // Reads the rest of the body through; whether the file's last 8 bytes are
  // Checksum64() of the others.
  bool ChecksumMatches();

 private:
  bool Refill();
  void Fail(const char* what, size_t n);

  std::string path_;
  size_t buffer_size_;
  int fd_ = -1;
  uint64_t size_ = 0, body_ = 0;
  uint64_t read_ = 0;   // body bytes read (and hashed)
  uint64_t taken_ = 0;  // body bytes taken as fields
  std::string buffer_;
  size_t pos_ = 0;
  Hasher64 hash_;
  Status status_;
};

}  // namespace neardup
