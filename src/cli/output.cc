#include "cli/output.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace neardup::cli {

namespace {

// The temporary file to remove if a signal ends the run. Written before the
// handler can see it, read only by the handler.
char g_temp_path[4096];
volatile sig_atomic_t g_temp_set = 0;

extern "C" void OnSignal(int signo) {
  if (g_temp_set) ::unlink(g_temp_path);
  static const char kClear[] = "\r\033[K";
  if (::isatty(STDERR_FILENO)) {
    [[maybe_unused]] ssize_t ignored = ::write(STDERR_FILENO, kClear, sizeof kClear - 1);
  }
  ::_exit(128 + signo);
}

}  // namespace

int FdStreambuf::overflow(int_type ch) {
  if (!Flush()) return traits_type::eof();
  if (ch != traits_type::eof()) {
    *pptr() = static_cast<char>(ch);
    pbump(1);
  }
  return traits_type::not_eof(ch);
}

std::streamsize FdStreambuf::xsputn(const char* s, std::streamsize n) {
  std::streamsize done = 0;
  while (done < n) {
    if (pptr() == epptr() && !Flush()) return done;
    const std::streamsize room = epptr() - pptr();
    const std::streamsize take = std::min(room, n - done);
    std::memcpy(pptr(), s + done, static_cast<size_t>(take));
    pbump(static_cast<int>(take));
    done += take;
  }
  return done;
}

int FdStreambuf::sync() { return Flush() ? 0 : -1; }

bool FdStreambuf::Flush() {
  const char* p = pbase();
  size_t left = static_cast<size_t>(pptr() - pbase());
  if (error_ != 0) {
    setp(buf_, buf_ + sizeof buf_);  // keep discarding after an error
    return false;
  }
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = errno;
      setp(buf_, buf_ + sizeof buf_);
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  setp(buf_, buf_ + sizeof buf_);
  return true;
}

Output::Output(int fd, std::string target, std::string temp)
    : fd_(fd), target_(std::move(target)), temp_(std::move(temp)), buf_(fd), stream_(&buf_) {}

Output::~Output() {
  if (!temp_.empty() && !committed_) {
    ::close(fd_);
    ::unlink(temp_.c_str());
    g_temp_set = 0;
  }
}

Result<std::unique_ptr<Output>> Output::Open(const std::string& path) {
  if (path.empty() || path == "-") {
    return std::unique_ptr<Output>(new Output(STDOUT_FILENO, "", ""));
  }
  // A hidden name in the same folder: rename() stays atomic, and a scan of
  // that folder (hidden files are skipped) does not read a half-written file.
  const size_t slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string temp = folder + "." + base + ".neardup-XXXXXX";
  if (temp.size() >= sizeof g_temp_path) return Status::InvalidArgument(path + ": path too long");
  // Signals wait until the handler knows the name, so none can leave the file behind.
  sigset_t block, saved;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &block, &saved);
  const int fd = ::mkstemp(temp.data());
  const int err = errno;
  if (fd >= 0) {
    std::memcpy(g_temp_path, temp.c_str(), temp.size() + 1);
    g_temp_set = 1;
  }
  ::sigprocmask(SIG_SETMASK, &saved, nullptr);
  if (fd < 0) return Status::IoError(path + ": cannot create a file beside it: " + std::strerror(err));
  // mkstemp makes the file 0600; give it the mode a new file would get.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  return std::unique_ptr<Output>(new Output(fd, path, std::move(temp)));
}

bool Output::broken_pipe() const { return temp_.empty() && buf_.error() == EPIPE; }

Status Output::Commit() {
  stream_.flush();
  if (temp_.empty()) {
    if (buf_.error() != 0 && buf_.error() != EPIPE) {
      return Status::IoError(std::string("stdout: ") + std::strerror(buf_.error()));
    }
    return Status::Ok();
  }
  if (buf_.error() != 0) return Status::IoError(target_ + ": " + std::strerror(buf_.error()));
  if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
    const int e = errno;
    ::unlink(temp_.c_str());
    g_temp_set = 0;
    committed_ = true;
    return Status::IoError(target_ + ": " + std::strerror(e));
  }
  committed_ = true;
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    const int e = errno;
    ::unlink(temp_.c_str());
    g_temp_set = 0;
    return Status::IoError(target_ + ": " + std::strerror(e));
  }
  g_temp_set = 0;
  return Status::Ok();
}

void InstallSignalHandlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
}

}  // namespace neardup::cli
