#include "base/coding.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "neardup/quote.h"

namespace neardup {
namespace {

template <typename T>
void PutLittle(std::string* out, T v) {
  char buf[sizeof(T)];
  for (size_t i = 0; i < sizeof(T); ++i) buf[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  out->append(buf, sizeof(T));
}

std::string Truncated(uint64_t offset, const char* what, uint64_t need, uint64_t left) {
  return std::string("truncated at offset ")
      .append(std::to_string(offset))
      .append(" reading ")
      .append(what)
      .append(": need ")
      .append(std::to_string(need))
      .append(" bytes, ")
      .append(std::to_string(left))
      .append(" left");
}

}  // namespace

void PutFixed8(std::string* out, uint8_t value) { out->push_back(static_cast<char>(value)); }
void PutFixed16(std::string* out, uint16_t value) { PutLittle(out, value); }
void PutFixed32(std::string* out, uint32_t value) { PutLittle(out, value); }
void PutFixed64(std::string* out, uint64_t value) { PutLittle(out, value); }

void PutFixed64s(std::string* out, std::span<const uint64_t> values) {
  if (values.empty()) return;  // its data() may be null
  if constexpr (std::endian::native == std::endian::little) {
    out->append(reinterpret_cast<const char*>(values.data()), values.size_bytes());
  } else {
    for (uint64_t v : values) PutFixed64(out, v);
  }
}

void PutDouble(std::string* out, double value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  PutFixed64(out, bits);
}

void PutText(std::string* out, std::string_view text) {
  PutFixed64(out, text.size());
  out->append(text);
}

void PutChecksum(std::string* out) { PutFixed64(out, Checksum64(*out)); }

bool ChecksumMatches(std::string_view bytes) {
  if (bytes.size() < 8) return false;
  return DecodeFixed64(bytes.data() + bytes.size() - 8) == Checksum64(bytes.substr(0, bytes.size() - 8));
}

bool ReadAt(int fd, uint64_t at, void* to, size_t n) {
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

void Decoder::Raw(void* to, size_t n, const char* what) {
  if (n == 0) return;  // `to` may then be null (an empty array's data())
  if (ok() && n > left()) status_ = Status::Corrupt(Truncated(base_ + pos_, what, n, left()));
  if (!ok()) {
    std::memset(to, 0, n);
    return;
  }
  std::memcpy(to, in_.data() + pos_, n);
  pos_ += n;
}

std::string Decoder::Text(const char* what) {
  const uint64_t n = U64(what);
  if (ok() && n > left()) status_ = Status::Corrupt(Truncated(base_ + pos_, what, n, left()));
  if (!ok()) return {};
  std::string s(in_.substr(pos_, static_cast<size_t>(n)));
  pos_ += static_cast<size_t>(n);
  return s;
}

uint64_t Decoder::Count(const char* what, uint64_t min_size) {
  const uint64_t at = base_ + pos_;
  const uint64_t n = U64(what);
  if (ok() && n > left() / min_size) {
    status_ = Status::Corrupt(std::string(what)
                                  .append(" ")
                                  .append(std::to_string(n))
                                  .append(" at offset ")
                                  .append(std::to_string(at))
                                  .append(" cannot fit in the ")
                                  .append(std::to_string(left()))
                                  .append(" bytes left"));
  }
  return ok() ? n : 0;
}

void Decoder::Fail(std::string_view what) {
  if (ok()) status_ = Status::Corrupt(std::string(what).append(" at offset ").append(std::to_string(base_ + pos_)));
}

FileSource::FileSource(std::string path, size_t buffer) : path_(std::move(path)), buffer_size_(buffer) {}

FileSource::~FileSource() {
  if (fd_ >= 0) ::close(fd_);
}

Status FileSource::Open() {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return Status::IoError(ShellQuoted(path_) + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return Status::IoError(ShellQuoted(path_) + ": cannot stat: " + std::strerror(errno));
  size_ = static_cast<uint64_t>(st.st_size);
  body_ = size_ < 8 ? 0 : size_ - 8;
  hash_.Reset(0);
  return Status::Ok();
}

void FileSource::Fail(const char* what, size_t n) {
  if (ok()) status_ = Status::Corrupt(Truncated(taken_, what, n, left()));
}

void FileSource::Raw(void* to, size_t n, const char* what) {
  if (n == 0) return;  // `to` may then be null
  char* p = static_cast<char*>(to);
  if (n > left()) Fail(what, n);
  while (ok() && n > 0) {
    if (pos_ == buffer_.size() && !Refill()) {
      Fail(what, n);
      break;
    }
    const size_t k = std::min(n, buffer_.size() - pos_);
    std::memcpy(p, buffer_.data() + pos_, k);
    pos_ += k;
    taken_ += k;
    p += k;
    n -= k;
  }
  if (!ok()) std::memset(p, 0, n);
}

bool FileSource::ChecksumMatches() {
  if (size_ < 8) return false;
  while (read_ < body_) {
    if (!Refill()) return false;
  }
  char stored[8];
  return ReadAt(fd_, body_, stored, 8) && DecodeFixed64(stored) == hash_.Digest();
}

bool FileSource::Refill() {
  buffer_.resize(static_cast<size_t>(std::min<uint64_t>(buffer_size_, body_ - read_)));
  pos_ = 0;
  if (buffer_.empty() || !ReadAt(fd_, read_, buffer_.data(), buffer_.size())) return false;
  hash_.Update(buffer_.data(), buffer_.size());
  read_ += buffer_.size();
  return true;
}

}  // namespace neardup
