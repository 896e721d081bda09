#include "cli/std_fds.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace neardup::cli {

bool EnsureStandardFds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // open() returns the lowest free descriptor: this one, as the lower ones
    // are open by now. Stdin gets a read-only /dev/null, the others write-only.
    const int opened = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (opened < 0) return false;
    if (opened != fd) {
      const int moved = ::dup2(opened, fd);
      ::close(opened);
      if (moved != fd) return false;
    }
  }
  return true;
}

}  // namespace neardup::cli
