// TempFile: an anonymous temporary file, for data spilled out of memory.
//
// The file is made in $TMPDIR (else /tmp), with no name once open: it is
// unlinked at once (or made with O_TMPFILE, never named), so it disappears
// when closed or when the process dies, however it dies. std::tmpfile()
// would not do: glibc's ignores TMPDIR.
//
// Thread safety: Create() may be called from any thread; one TempFile is
// used by one thread at a time.
//
//   Result<TempFile> f = TempFile::Create("sorting candidate pairs");
//   if (!f.ok()) return f.status();
//   std::fwrite(data, 1, size, f->get());
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "neardup/status.h"

namespace neardup {

class TempFile {
 public:
  TempFile() = default;
  ~TempFile() { Close(); }
  TempFile(TempFile&& o) noexcept : file_(o.file_) { o.file_ = nullptr; }
  TempFile& operator=(TempFile&& o) noexcept {
    if (this != &o) {
      Close();
      file_ = o.file_;
      o.file_ = nullptr;
    }
    return *this;
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  // A new empty file opened for reading and writing. `purpose` names the
  // data in the error: IoError "temporary file for PURPOSE in DIR: reason"
  // when the folder is missing, unwritable or full of open files.
  [[nodiscard]] static Result<TempFile> Create(const std::string& purpose);
  // The folder temporary files go to: $TMPDIR when set and not empty, else /tmp.
  static std::string Folder();

  std::FILE* get() const { return file_; }
  // Gives up the file: the caller closes it.
  std::FILE* Release() {
    std::FILE* f = file_;
    file_ = nullptr;
    return f;
  }

 private:
  explicit TempFile(std::FILE* file) : file_(file) {}
  void Close() {
    if (file_ != nullptr) std::fclose(file_);
    file_ = nullptr;
  }
  std::FILE* file_ = nullptr;
};

// Reads [offset, offset + n) of the file open as `file` into `buf`, with
// pread (its stream's position untouched; flush what it buffered first).
// False with errno set when it cannot: EIO when the file ends before.
bool ReadAt(std::FILE* file, uint64_t offset, char* buf, size_t n);

}  // namespace neardup
