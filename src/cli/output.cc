#include "cli/output.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "cli/signals.h"
#include "neardup/quote.h"

namespace neardup::cli {

namespace {

// Links followed at most, as the kernel's own limit for one lookup.
constexpr int kMaxLinks = 40;

std::string Error(const std::string& path, int err) { return ShellQuoted(path) + ": " + std::strerror(err); }

// What -o names, after following symbolic links: a path whose last component
// is not a link, and whether something is there.
struct Target {
  std::string path;
  bool exists = false;
  struct stat st {};
};

Result<Target> ResolveTarget(const std::string& given) {
  Target t;
  t.path = given;
  for (int links = 0;; ++links) {
    if (::lstat(t.path.c_str(), &t.st) != 0) {
      if (errno == ENOENT) return t;  // a new file (or a dangling link's target)
      return Status::IoError(Error(given, errno));
    }
    if (!S_ISLNK(t.st.st_mode)) {
      t.exists = true;
      return t;
    }
    if (links == kMaxLinks) return Status::IoError(Error(given, ELOOP));
    std::string link(static_cast<size_t>(std::max<off_t>(t.st.st_size, 0)) + 256, '\0');
    const ssize_t n = ::readlink(t.path.c_str(), link.data(), link.size());
    if (n < 0) return Status::IoError(Error(given, errno));
    if (static_cast<size_t>(n) == link.size()) return Status::IoError(given + ": symbolic link changed while read");
    link.resize(static_cast<size_t>(n));
    if (link.empty()) return Status::IoError(Error(given, ENOENT));
    if (link[0] == '/') {
      t.path = std::move(link);
    } else {
      // Relative to the folder holding the link.
      const size_t slash = t.path.rfind('/');
      t.path = slash == std::string::npos ? link : t.path.substr(0, slash + 1) + link;
    }
  }
}

// Gives the temporary file the old target's mode and, where allowed, its
// owner and group (cp -p: without the owner, setuid and setgid are dropped).
void CopyOwnerAndMode(int fd, const struct stat& old) {
  mode_t mode = old.st_mode & 07777;
  if (old.st_uid != ::geteuid() || old.st_gid != ::getegid()) {
    if (::fchown(fd, old.st_uid, old.st_gid) != 0) {
      mode &= static_cast<mode_t>(~(S_ISUID | S_ISGID));
      [[maybe_unused]] const int group_only = ::fchown(fd, static_cast<uid_t>(-1), old.st_gid);
    }
  }
  ::fchmod(fd, mode);
}

}  // namespace

std::string TemporaryName(const std::string& target) {
  static constexpr char kSuffix[] = ".neardup-XXXXXX";
  constexpr size_t kNameMax = NAME_MAX;  // 255 on Linux
  constexpr size_t kBaseMax = kNameMax - 1 - (sizeof kSuffix - 1);
  const size_t slash = target.rfind('/');
  const std::string folder = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  if (base.size() > kBaseMax) {
    size_t cut = kBaseMax;
    // Do not split a UTF-8 sequence: back up over continuation bytes.
    while (cut > 0 && (static_cast<unsigned char>(base[cut]) & 0xC0) == 0x80) --cut;
    base.resize(cut);
  }
  // Hidden, in the same folder: rename() stays atomic, and a scan of that
  // folder (hidden files are skipped) does not read a half-written file.
  return folder + "." + base + kSuffix;
}

int FdStreambuf::overflow(int_type ch) {
  if (!Flush()) return traits_type::eof();
  if (ch != traits_type::eof()) {
    *pptr() = static_cast<char>(ch);
    pbump(1);
  }
  return traits_type::not_eof(ch);
}

std::streamsize FdStreambuf::xsputn(const char* s, std::streamsize n) {
  if (n <= 0) return 0;
  if (n > epptr() - pptr()) {
    // The unit does not fit: write out the whole units before it.
    if (!Flush()) return 0;
    if (n >= epptr() - pbase()) return WriteAll(s, static_cast<size_t>(n)) ? n : 0;
  }
  if (error_ != 0) return 0;
  std::memcpy(pptr(), s, static_cast<size_t>(n));
  pbump(static_cast<int>(n));
  return n;
}

int FdStreambuf::sync() { return Flush() ? 0 : -1; }

bool FdStreambuf::Flush() {
  const size_t size = static_cast<size_t>(pptr() - pbase());
  setp(buf_, buf_ + sizeof buf_);
  if (size == 0) return error_ == 0;
  return WriteAll(buf_, size);
}

bool FdStreambuf::WriteAll(const char* data, size_t size) {
  if (!WriteWhole(data, size)) return false;
  if (capturing_) {
    if (captured_.size() + size <= capture_most_) {
      captured_.append(data, size);
    } else {
      capturing_ = false;
      std::string().swap(captured_);
    }
  }
  written_ += size;
  if (on_written_) on_written_(written_);
  return true;
}

bool FdStreambuf::WriteWhole(const char* data, size_t size) {
  if (error_ != 0) return false;  // keep discarding after an error
  const RecordWrite whole;        // a signal waits until every byte is out
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = errno;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

Output::Output(int fd, std::string target, std::string temp)
    : fd_(fd), target_(std::move(target)), temp_(std::move(temp)), buf_(fd), stream_(&buf_) {}

Output::~Output() {
  if (target_.empty() || done_) return;
  ::close(fd_);
  if (!temp_.empty()) {
    const SignalBlocker blocked;
    ::unlink(temp_.c_str());
    SetCleanupPath(nullptr);
  }
}

Result<std::unique_ptr<Output>> Output::Open(const std::string& path) {
  if (path.empty() || path == "-") {
    return std::unique_ptr<Output>(new Output(STDOUT_FILENO, "", ""));
  }
  Result<Target> resolved = ResolveTarget(path);
  if (!resolved.ok()) return resolved.status();
  Target& target = *resolved;
  if (target.exists && S_ISDIR(target.st.st_mode)) return Status::InvalidArgument(Error(path, EISDIR));
  if (target.exists && !S_ISREG(target.st.st_mode)) {
    // A device, FIFO or socket: written in place, as the shell's `>` would.
    const int fd = ::open(target.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return Status::IoError(Error(path, errno));
    return std::unique_ptr<Output>(new Output(fd, target.path, ""));
  }
  std::string temp = TemporaryName(target.path);
  if (temp.size() >= PATH_MAX) return Status::InvalidArgument(Error(path, ENAMETOOLONG));
  int fd = -1;
  int err = 0;
  {
    // Signals wait until the handler knows the name, so none can leave the file behind.
    const SignalBlocker blocked;
    fd = ::mkostemp(temp.data(), O_CLOEXEC);
    err = errno;
    if (fd >= 0) SetCleanupPath(temp.c_str());
  }
  if (fd < 0) return Status::IoError(ShellQuoted(path) + ": cannot create a file beside it: " + std::strerror(err));
  if (target.exists) {
    CopyOwnerAndMode(fd, target.st);
  } else {
    // mkstemp makes the file 0600; give it the mode a new file would get.
    // (No other thread runs yet, so reading the umask this way is safe.)
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
  }
  return std::unique_ptr<Output>(new Output(fd, target.path, std::move(temp)));
}

Status Output::Commit() {
  stream_.flush();
  if (target_.empty()) {
    done_ = true;
    if (buf_.error() != 0 && buf_.error() != EPIPE) {
      return Status::IoError(std::string("stdout: ") + std::strerror(buf_.error()));
    }
    return Status::Ok();
  }
  int err = buf_.error();
  if (temp_.empty()) {  // written in place
    done_ = true;
    if (::close(fd_) != 0 && err == 0) err = errno;
    return err == 0 ? Status::Ok() : Status::IoError(Error(target_, err));
  }
  if (err == 0 && ::fsync(fd_) != 0) err = errno;
  if (::close(fd_) != 0 && err == 0) err = errno;
  const SignalBlocker blocked;  // the rename and forgetting the name go together
  done_ = true;
  if (err == 0 && ::rename(temp_.c_str(), target_.c_str()) != 0) err = errno;
  if (err != 0) ::unlink(temp_.c_str());
  SetCleanupPath(nullptr);
  return err == 0 ? Status::Ok() : Status::IoError(Error(target_, err));
}

Result<bool> Output::InRegularFile() {
  if (!target_.empty()) return !temp_.empty();  // renamed into place; else written in place to a non-file
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (::fsync(fd_) != 0) return Status::IoError(std::string("stdout: ") + std::strerror(errno));
  return true;
}

}  // namespace neardup::cli
