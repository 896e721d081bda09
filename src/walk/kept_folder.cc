#include "walk/kept_folder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <utility>
#include <vector>

#include "neardup/quote.h"

namespace neardup {

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

namespace {

constexpr int kFolderFlags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// The components of `path` between '/', empty and "." ones left out.
std::vector<std::string_view> Components(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view c = path.substr(start, end - start);
    if (!c.empty() && c != ".") out.push_back(c);
    start = end + 1;
  }
  return out;
}

Status Errno(const std::string& path, const char* what, int error) {
  return Status::IoError(path + ": " + what + ": " + std::strerror(error));
}

// Whether the kernel said "no such call" to openat2() once: then every
// later open walks component by component.
std::atomic<bool> g_no_openat2{false};

// The folder `rel` (checked components) below the folder `root`, opened
// with no symbolic link followed at any level; -1 with errno set when not.
int OpenBeneath(int root, const std::string& rel) {
  if (rel.empty()) return ::fcntl(root, F_DUPFD_CLOEXEC, 0);
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
  if (!g_no_openat2.load(std::memory_order_relaxed)) {
    struct open_how how {};
    how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    const long fd = ::syscall(SYS_openat2, root, rel.c_str(), &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    if (errno != ENOSYS) return -1;
    g_no_openat2.store(true, std::memory_order_relaxed);
  }
#endif
  int at = root;
  int fd = -1;
  for (const std::string_view c : Components(rel)) {
    const std::string name(c);
    fd = ::openat(at, name.c_str(), kFolderFlags);
    const int error = errno;
    if (at != root) ::close(at);
    if (fd < 0) {
      errno = error;
      return -1;
    }
    at = fd;
  }
  return fd;
}

// The permission bits of the folder `depth` levels above `source`, when it
// is one; 0777 else.
mode_t MirroredMode(const std::string& source, size_t depth) {
  std::filesystem::path p(source);
  for (size_t k = 0; k < depth; ++k) p = p.parent_path();
  struct stat st {};
  if (p.empty() || ::stat(p.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return 0777;
  return st.st_mode & 0777;
}

// Makes `dir`'s missing parents (0777 less the umask, as `mkdir -p`) and
// `dir` itself, 0700. Ok when it exists already.
Status MakeDir(const std::string& dir, const std::string& flag) {
  if (::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) return Status::Ok();
  if (errno != ENOENT) return Errno(flag + " " + ShellQuoted(dir), "cannot create", errno);
  const std::filesystem::path parent = std::filesystem::path(dir).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) return Status::IoError(flag + " " + ShellQuoted(dir) + ": cannot create: " + ec.message());
  if (::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) return Status::Ok();
  return Errno(flag + " " + ShellQuoted(dir), "cannot create", errno);
}

}  // namespace

void SetTryOpenat2(bool on) { g_no_openat2.store(!on, std::memory_order_relaxed); }

Status CheckKeptPath(std::string_view rel) {
  bool ok = !rel.empty() && rel.front() != '/' && rel.find('\0') == std::string_view::npos;
  for (size_t start = 0; ok && start <= rel.size();) {
    size_t end = rel.find('/', start);
    if (end == std::string_view::npos) end = rel.size();
    const std::string_view c = rel.substr(start, end - start);
    ok = !c.empty() && c != "." && c != "..";
    start = end + 1;
  }
  if (ok) return Status::Ok();
  return Status::InvalidArgument("kept path " + ShellQuoted(rel) + " is not a path below DIR");
}

bool IsTailOf(std::string_view rel, std::string_view path) {
  const std::vector<std::string_view> tail = Components(rel);
  const std::vector<std::string_view> all = Components(path);
  if (tail.empty() || tail.size() > all.size()) return false;
  return std::equal(tail.begin(), tail.end(), all.end() - static_cast<std::ptrdiff_t>(tail.size()));
}

Result<KeptFolder> KeptFolder::Open(const std::string& dir, const std::string& flag) {
  // A trailing '/' would make open() follow a link at DIR: DIR is named without it.
  std::string name = dir;
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  if (Status s = MakeDir(name, flag); !s.ok()) return s;
  const int fd = ::open(name.c_str(), kFolderFlags);
  if (fd < 0) {
    if (errno == ELOOP || errno == ENOTDIR) {
      return Status::IoError(flag + " " + ShellQuoted(dir) + ": is a symbolic link or not a folder; name a folder");
    }
    return Errno(flag + " " + ShellQuoted(dir), "cannot open", errno);
  }
  return KeptFolder(dir, Fd(fd));
}

Result<KeptPlace> KeptFolder::Place(std::string_view rel, const std::string& source) const {
  if (Status s = CheckKeptPath(rel); !s.ok()) return s;
  std::string shown = path_;
  if (shown.empty() || shown.back() != '/') shown += '/';
  shown.append(rel);
  const std::vector<std::string_view> parts = Components(rel);
  const size_t folders = parts.size() - 1;
  const std::string name(parts.back());
  auto refused = [&](int error) -> Status {
    if (error == ELOOP || error == ENOTDIR || error == EXDEV) {
      return Status::IoError(ShellQuoted(shown) + ": a folder on its way in " + ShellQuoted(path_) +
                             " is a symbolic link or not a folder; not written");
    }
    return Errno(ShellQuoted(shown), "cannot open its folder", error);
  };
  std::string parent;
  for (size_t k = 0; k < folders; ++k) parent.append(k > 0 ? "/" : "").append(parts[k]);
  int fd = OpenBeneath(fd_.get(), parent);
  if (fd >= 0) return KeptPlace{.folder = Fd(fd), .name = name, .path = shown};
  if (errno != ENOENT) return refused(errno);
  // Some folder is missing: made one by one, each opened without following a link.
  const bool mirrored = IsTailOf(rel, source);
  Fd at(::fcntl(fd_.get(), F_DUPFD_CLOEXEC, 0));
  if (!at.valid()) return Errno(ShellQuoted(shown), "cannot open its folder", errno);
  for (size_t k = 0; k < folders; ++k) {
    const std::string part(parts[k]);
    int next = ::openat(at.get(), part.c_str(), kFolderFlags);
    if (next < 0 && errno == ENOENT) {
      // The writer owns what it makes and keeps write and search on it.
      const mode_t mode = (mirrored ? MirroredMode(source, folders - k) : 0777) | S_IRWXU;
      if (::mkdirat(at.get(), part.c_str(), mode) != 0 && errno != EEXIST) {
        return Errno(ShellQuoted(shown), "cannot create its folder", errno);
      }
      next = ::openat(at.get(), part.c_str(), kFolderFlags);
    }
    if (next < 0) return refused(errno);
    at = Fd(next);
  }
  return KeptPlace{.folder = std::move(at), .name = name, .path = shown};
}

Status KeptFolder::RemoveFile(std::string_view rel) const {
  if (Status s = CheckKeptPath(rel); !s.ok()) return s;
  const std::vector<std::string_view> parts = Components(rel);
  std::string parent;
  for (size_t k = 0; k + 1 < parts.size(); ++k) parent.append(k > 0 ? "/" : "").append(parts[k]);
  const Fd folder(OpenBeneath(fd_.get(), parent));
  if (!folder.valid()) return Status::Ok();  // nothing of ours can be there
  const std::string name(parts.back());
  struct stat st {};
  if (::fstatat(folder.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) {
    return Status::Ok();
  }
  if (::unlinkat(folder.get(), name.c_str(), 0) != 0 && errno != ENOENT) {
    return Errno(ShellQuoted(path_ + "/" + std::string(rel)), "cannot remove", errno);
  }
  return Status::Ok();
}

Result<std::string> CreateTempBeside(const KeptPlace& place, unsigned mode, int* fd) {
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    const uint64_t n = static_cast<uint64_t>(::getpid()) * 0x9e3779b97f4a7c15ULL ^
                       (counter.fetch_add(1) + 1) * 0xbf58476d1ce4e5b9ULL ^ static_cast<uint64_t>(::time(nullptr));
    char suffix[7];
    std::snprintf(suffix, sizeof suffix, "%06llx", static_cast<unsigned long long>(n & 0xffffff));
    std::string temp = ".";
    temp.append(place.name).append(".neardup-").append(suffix);
    *fd = ::openat(place.folder.get(), temp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, mode & 0777);
    if (*fd >= 0) return temp;
    if (errno != EEXIST) break;
  }
  return Status::IoError(ShellQuoted(place.path) +
                         ": cannot create a temporary file beside it: " + std::strerror(errno));
}

}  // namespace neardup
