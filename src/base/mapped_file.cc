#include "base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include "neardup/quote.h"

namespace neardup {

namespace {

Status IoError(const std::string& path, const char* what, int err) {
  return Status::IoError(ShellQuoted(path).append(": ").append(what).append(": ").append(std::strerror(err)));
}

size_t PageSize() {
  static const size_t page = [] {
    const long n = ::sysconf(_SC_PAGESIZE);
    return n > 0 ? static_cast<size_t>(n) : size_t{4096};
  }();
  return page;
}

}  // namespace

Result<MappedFile> MappedFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError(path, "cannot open", errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return IoError(path, "cannot open", err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::IoError(ShellQuoted(path).append(": cannot map: not a regular file"));
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {  // mmap() refuses a length of 0
    ::close(fd);
    return MappedFile();
  }
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);  // the mapping keeps its own reference to the file
  if (p == MAP_FAILED) return IoError(path, "cannot map", err);
  return MappedFile(static_cast<const char*>(p), size);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(const_cast<char*>(data_), size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<char*>(data_), size_);
}

void MappedFile::Advise(Access access) const {
  if (data_ == nullptr) return;
  int advice = MADV_NORMAL;
  switch (access) {
    case Access::kNormal:
      advice = MADV_NORMAL;
      break;
    case Access::kSequential:
      advice = MADV_SEQUENTIAL;
      break;
    case Access::kRandom:
      advice = MADV_RANDOM;
      break;
  }
  (void)::madvise(const_cast<char*>(data_), size_, advice);  // a hint: refusal changes nothing
}

void MappedFile::Release(size_t offset, size_t length) const {
  if (data_ == nullptr || offset >= size_) return;
  const size_t page = PageSize();
  const size_t end = std::min(size_, offset + std::min(length, size_ - offset));
  const size_t begin = offset / page * page;  // data_ is page-aligned
  if (end <= begin) return;
  // MADV_DONTNEED on a private mapping never written to drops the pages from
  // this process only; the next touch reads the file's bytes again.
  (void)::madvise(const_cast<char*>(data_) + begin, end - begin, MADV_DONTNEED);
}

}  // namespace neardup
