// MappedFile: a whole file mapped read-only into memory (mmap, PROT_READ,
// MAP_PRIVATE), for reading parts of a large file without reading it all.
//
// The bytes are those of the file when it was opened; pages are read from the
// file (or the page cache) when first touched and count in the process's
// resident memory from then on, until Release() lets go of them. A file that
// is changed or truncated while mapped gives undefined contents (or SIGBUS
// past its new end): map only files nobody writes any more, such as a
// finished stage task's output. An empty file maps to no bytes (data() is
// null, size() 0).
//
// Move-only RAII: the mapping ends with the object. Private to the core
// library (src/), as the stage report's reader of shard files.
//
// Thread safety: bytes() may be read from any number of threads; Advise()
// and Release() only change what the kernel keeps resident, never the bytes,
// so they too may be called while other threads read.
//
//   Result<MappedFile> file = MappedFile::Open("work/sign/0.table");
//   if (file.ok()) Use(file->bytes());
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "neardup/status.h"

namespace neardup {

class MappedFile {
 public:
  // How the bytes will be read next: a hint to the kernel's read-ahead
  // (madvise MADV_NORMAL, MADV_SEQUENTIAL, MADV_RANDOM).
  enum class Access { kNormal, kSequential, kRandom };

  // Maps the whole of `path`. IoError "PATH: cannot open|cannot map: REASON"
  // when it cannot be opened, is not a regular file, or cannot be mapped.
  static Result<MappedFile> Open(const std::string& path);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // The file's bytes, valid as long as this object (and not moved from).
  // data() is page-aligned when size() > 0.
  std::string_view bytes() const { return {data_, size_}; }
  const char* data() const { return data_; }
  size_t size() const { return size_; }

  // Tells the kernel how the whole mapping will be read. A hint only: the
  // bytes do not change, and a kernel that refuses it is not an error.
  void Advise(Access access) const;

  // Lets go of the pages holding bytes [offset, offset + length) (widened to
  // whole pages, clipped to the file): they no longer count in this
  // process's resident memory, and are read again, from the page cache or
  // the file, when touched. The bytes do not change.
  void Release(size_t offset, size_t length) const;

 private:
  MappedFile(const char* data, size_t size) : data_(data), size_(size) {}

  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace neardup
