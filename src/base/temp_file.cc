#include "base/temp_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "neardup/quote.h"

namespace neardup {

std::string TempFile::Folder() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && dir[0] != '\0' ? std::string(dir) : std::string("/tmp");
}

Result<TempFile> TempFile::Create(const std::string& purpose) {
  const std::string dir = Folder();
  int fd = -1;
#ifdef O_TMPFILE
  fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
  // O_TMPFILE is not supported by every file system: a named file, unlinked
  // at once, is the same to us.
  if (fd < 0 && errno != ENOENT && errno != ENOTDIR && errno != EACCES) {
    std::string name = dir + "/neardup-XXXXXX";
    fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(name.c_str());
  }
  std::FILE* f = fd >= 0 ? ::fdopen(fd, "w+b") : nullptr;
  if (f == nullptr) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    return Status::IoError("temporary file for " + purpose + " in " + ShellQuoted(dir) + ": " + std::strerror(err));
  }
  return TempFile(f);
}

bool ReadAt(std::FILE* file, uint64_t offset, char* buf, size_t n) {
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fileno(file), buf + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      if (got == 0) errno = EIO;  // shorter than written: the file was cut
      return false;
    }
    done += static_cast<size_t>(got);
  }
  return true;
}

}  // namespace neardup
