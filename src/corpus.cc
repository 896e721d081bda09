// WalkCorpus: a depth-first walk with POSIX opendir/readdir/fstatat.
//
// The walk keeps its own stack of directories (a vector on the heap), so a
// tree thousands of levels deep needs no more call stack than a flat one.
//
// Cost per entry: the readdir() record, plus one fstatat() for regular files
// (size and mtime), for entries whose type readdir() does not give, and, with
// --follow, for directories and links (device and inode). Directories are
// opened by their full path one at a time, so the walk holds at most one
// directory descriptor whatever the depth.
//
// Files are identified by (device, inode): a file reached by several paths (a
// followed link, a hard link, overlapping PATH arguments such as "." and
// "ref") is listed once, under its smallest path, and is a reference file if
// any of its paths is under an --against path. Hard links are thus one
// document, as duplicate-file finders (fclones, jdupes) treat them by default.

#include "neardup/corpus.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

#include "neardup/glob.h"

namespace neardup {
namespace {

Status ErrnoStatus(const std::string& path, int err) {
  std::string message = path + ": " + std::system_category().message(err);
  if (err == ENOENT || err == ENOTDIR) return Status::NotFound(std::move(message));
  return Status::IoError(std::move(message));
}

// "data" + "a.txt" -> "data/a.txt"; "data/" + "a.txt" -> "data/a.txt".
std::string JoinDisplay(const std::string& dir, std::string_view name) {
  std::string out;
  out.reserve(dir.size() + 1 + name.size());
  out = dir;
  if (out.empty() || out.back() != '/') out += '/';
  out += name;
  return out;
}

std::string JoinRelative(const std::string& dir, std::string_view name) {
  if (dir.empty()) return std::string(name);
  std::string out;
  out.reserve(dir.size() + 1 + name.size());
  out = dir;
  out += '/';
  out += name;
  return out;
}

int64_t MtimeNs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 +
         static_cast<int64_t>(st.st_mtim.tv_nsec);
}

struct FileKey {
  uint64_t dev = 0;
  uint64_t ino = 0;
  auto operator<=>(const FileKey&) const = default;
};

FileKey KeyOf(const struct stat& st) {
  return {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
}

struct FoundFile {
  InputFile file;
  FileKey key;
};

// Owns a DIR*; closes it (and its descriptor) on destruction. Move-only.
class UniqueDir {
 public:
  explicit UniqueDir(DIR* dir) : dir_(dir) {}
  UniqueDir(const UniqueDir&) = delete;
  UniqueDir& operator=(const UniqueDir&) = delete;
  UniqueDir(UniqueDir&& other) noexcept : dir_(std::exchange(other.dir_, nullptr)) {}
  UniqueDir& operator=(UniqueDir&& other) noexcept {
    if (this != &other) {
      Reset();
      dir_ = std::exchange(other.dir_, nullptr);
    }
    return *this;
  }
  ~UniqueDir() { Reset(); }

  DIR* get() const { return dir_; }

 private:
  void Reset() {
    if (dir_ != nullptr) ::closedir(dir_);
    dir_ = nullptr;
  }
  DIR* dir_ = nullptr;
};

// What readdir() said about an entry; kUnknown needs an fstatat().
enum class Kind { kUnknown, kFile, kDir, kLink, kSpecial };

Kind KindOfType(unsigned char d_type) {
  switch (d_type) {
    case DT_REG:
      return Kind::kFile;
    case DT_DIR:
      return Kind::kDir;
    case DT_LNK:
      return Kind::kLink;
    case DT_UNKNOWN:
      return Kind::kUnknown;
    default:
      return Kind::kSpecial;  // fifo, socket, character or block device
  }
}

Kind KindOfMode(mode_t mode) {
  if (S_ISREG(mode)) return Kind::kFile;
  if (S_ISDIR(mode)) return Kind::kDir;
  if (S_ISLNK(mode)) return Kind::kLink;
  return Kind::kSpecial;
}

struct DirEntry {
  std::string name;
  Kind kind;
};

struct SubDir {
  std::string name;
  FileKey key;  // filled only with --follow
};

class Walker {
 public:
  Walker(const Options& options, const GlobSet& globs, WalkedCorpus* out)
      : options_(options), globs_(globs), out_(out) {}

  // Walks one PATH argument. The argument itself is always followed if it is
  // a link, and never filtered by hidden or globs.
  void WalkRoot(const std::string& root, bool reference) {
    struct stat st;
    if (::stat(SystemPath(root).c_str(), &st) != 0) {  // "-" is standard input
      out_->errors.push_back(ErrnoStatus(root, errno));
      return;
    }
    switch (KindOfMode(st.st_mode)) {
      case Kind::kDir: {
        const FileKey key = KeyOf(st);
        // Links are followed per PATH argument: each argument is walked in
        // full, so a file under both a PATH and an --against path is seen
        // under both and marked reference.
        visited_.clear();
        ancestors_.clear();
        visited_.insert(key);
        ancestors_.insert(key);
        WalkTree(root, reference);
        break;
      }
      case Kind::kFile:
        AddFile(root, st, reference);
        break;
      default:
        // Named explicitly: a FIFO, pipe (/dev/stdin, <(cmd)) or device is
        // read as a stream document. --max-filesize applies to the bytes read.
        AddStream(root, st, reference);
        break;
    }
  }

  std::vector<FoundFile>& found() { return found_; }

 private:
  // A directory being walked: its path and its subdirectories still to enter.
  struct Frame {
    std::string display;
    std::string relative;
    std::vector<SubDir> subdirs;  // sorted
    size_t next = 0;              // index of the next subdirectory to enter
  };

  // Lists a directory, records its files and then walks its subdirectories in
  // byte order of their paths, depth first, with an explicit stack. That
  // order makes the first visit of a directory reached by several links the
  // one with the smallest path.
  void WalkTree(const std::string& root, bool reference) {
    std::vector<Frame> stack;
    // Lists `display` and pushes it; false when it cannot be read.
    auto enter = [&](std::string display, std::string relative) {
      Frame frame;
      if (!ListDir(display, relative, reference, &frame.subdirs)) return false;
      SortSubdirs(&frame.subdirs);
      frame.display = std::move(display);
      frame.relative = std::move(relative);
      stack.push_back(std::move(frame));
      return true;
    };
    enter(root, "");
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next == top.subdirs.size()) {
        stack.pop_back();
        // The directory that was entered from the new top is done.
        if (options_.follow && !stack.empty()) {
          ancestors_.erase(stack.back().subdirs[stack.back().next - 1].key);
        }
        continue;
      }
      const SubDir& sub = top.subdirs[top.next++];
      std::string sub_display = JoinDisplay(top.display, sub.name);
      if (options_.follow) {
        if (ancestors_.count(sub.key) != 0) {
          ++out_->counts.loops;
          out_->errors.push_back(Status::IoError(sub_display + ": symlink loop, not followed"));
          continue;
        }
        // Already walked under a smaller path: its files are listed.
        if (!visited_.insert(sub.key).second) continue;
        ancestors_.insert(sub.key);
      }
      const FileKey key = sub.key;
      // `top` and `sub` are invalid once enter() pushes.
      if (!enter(std::move(sub_display), JoinRelative(top.relative, sub.name)) && options_.follow) {
        ancestors_.erase(key);
      }
    }
  }

  static void SortSubdirs(std::vector<SubDir>* subdirs) {
    std::sort(subdirs->begin(), subdirs->end(), [](const SubDir& a, const SubDir& b) {
      // Compare "name/" so that "a-b" sorts before "a" ('-' < '/'), as their
      // contents' paths do.
      const size_t n = std::min(a.name.size(), b.name.size());
      const int c = a.name.compare(0, n, b.name, 0, n);
      if (c != 0) return c < 0;
      const char ca = a.name.size() > n ? a.name[n] : '/';
      const char cb = b.name.size() > n ? b.name[n] : '/';
      return static_cast<unsigned char>(ca) < static_cast<unsigned char>(cb);
    });
  }

  // Reads the directory `display`, records its files and appends its
  // subdirectories to `*subdirs`. Returns false (with an error recorded) when
  // the directory cannot be read.
  bool ListDir(const std::string& display, const std::string& relative, bool reference,
               std::vector<SubDir>* subdirs) {
    int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
    // Below the PATH argument, a directory that became a link since readdir()
    // is not followed without --follow.
    if (!options_.follow && !relative.empty()) flags |= O_NOFOLLOW;
    int fd;
    do {
      fd = ::open(display.c_str(), flags);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
      out_->errors.push_back(ErrnoStatus(display, errno));
      return false;
    }
    UniqueDir dir(::fdopendir(fd));
    if (dir.get() == nullptr) {
      const int err = errno;
      ::close(fd);
      out_->errors.push_back(ErrnoStatus(display, err));
      return false;
    }

    std::vector<DirEntry> entries;
    while (true) {
      errno = 0;
      const struct dirent* ent = ::readdir(dir.get());
      if (ent == nullptr) {
        if (errno != 0) {
          out_->errors.push_back(ErrnoStatus(display, errno));
          // Keep what was read before the error.
        }
        break;
      }
      const std::string_view name = ent->d_name;
      if (name == "." || name == "..") continue;
      entries.push_back({std::string(name), KindOfType(ent->d_type)});
    }

    const int dir_fd = ::dirfd(dir.get());
    for (DirEntry& entry : entries) {
      if (!options_.hidden && entry.name[0] == '.') {
        ++out_->counts.hidden;
        continue;
      }
      struct stat st;
      bool have_stat = false;
      // Lazily built: most entries need only one of them.
      auto child_display = [&] { return JoinDisplay(display, entry.name); };
      auto stat_entry = [&](int at_flags) {
        if (::fstatat(dir_fd, entry.name.c_str(), &st, at_flags) == 0) {
          have_stat = true;
          return true;
        }
        out_->errors.push_back(ErrnoStatus(child_display(), errno));
        return false;
      };

      Kind kind = entry.kind;
      if (kind == Kind::kUnknown) {
        if (!stat_entry(AT_SYMLINK_NOFOLLOW)) continue;
        kind = KindOfMode(st.st_mode);
      }
      if (kind == Kind::kLink) {
        if (!options_.follow) {
          ++out_->counts.symlinks;
          continue;
        }
        if (::fstatat(dir_fd, entry.name.c_str(), &st, 0) != 0) {
          const int err = errno;
          if (err == ENOENT || err == ENOTDIR || err == ELOOP) {
            // A link to nothing: a warning of its own kind, like a loop.
            ++out_->counts.dangling;
            out_->errors.push_back(Status::NotFound(child_display() + ": dangling symbolic link, not followed (" +
                                                    std::system_category().message(err) + ")"));
          } else {
            out_->errors.push_back(ErrnoStatus(child_display(), err));
          }
          continue;
        }
        have_stat = true;
        kind = KindOfMode(st.st_mode);
      }
      if (kind == Kind::kSpecial) {
        ++out_->counts.special;
        continue;
      }
      const std::string child_relative = JoinRelative(relative, entry.name);
      if (kind == Kind::kDir) {
        if (globs_.ExcludesDirectory(child_relative)) {
          ++out_->counts.glob;
          continue;
        }
        FileKey key;
        if (options_.follow) {
          if (!have_stat && !stat_entry(AT_SYMLINK_NOFOLLOW)) continue;
          key = KeyOf(st);
        }
        subdirs->push_back({std::move(entry.name), key});
        continue;
      }
      // A regular file, as far as readdir() or a followed link says.
      if (!globs_.Matches(child_relative)) {
        ++out_->counts.glob;
        continue;
      }
      if (!have_stat && !stat_entry(AT_SYMLINK_NOFOLLOW)) continue;
      if (!S_ISREG(st.st_mode)) {
        // Replaced since readdir(); a link to a directory here would need the
        // directory logic, so skip it as the special entry it now is.
        ++out_->counts.special;
        continue;
      }
      AddFile(child_display(), st, reference);
    }
    return true;
  }

  void AddFile(std::string display, const struct stat& st, bool reference) {
    const auto size = static_cast<uint64_t>(st.st_size);
    if (options_.max_filesize != 0 && size > options_.max_filesize) {
      ++out_->counts.too_large;
      return;
    }
    FoundFile found;
    found.file.path = std::move(display);
    found.file.size = size;
    found.file.mtime_ns = MtimeNs(st);
    found.file.ctime_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 +
                          static_cast<int64_t>(st.st_ctim.tv_nsec);
    found.file.reference = reference;
    found.key = KeyOf(st);
    found.file.identity.dev = found.key.dev;
    found.file.identity.ino = found.key.ino;
    found_.push_back(std::move(found));
  }

  void AddStream(std::string display, const struct stat& st, bool reference) {
    FoundFile found;
    found.file.path = std::move(display);
    found.file.mtime_ns = MtimeNs(st);
    found.file.reference = reference;
    found.key = KeyOf(st);
    found.file.identity.dev = found.key.dev;
    found.file.identity.ino = found.key.ino;
    found.file.identity.stream = true;
    found_.push_back(std::move(found));
  }

  const Options& options_;
  const GlobSet& globs_;
  WalkedCorpus* out_;
  std::vector<FoundFile> found_;
  // With --follow: directories on the current path, and all walked so far
  // under the current PATH argument.
  std::set<FileKey> ancestors_;
  std::set<FileKey> visited_;
};

// One entry per (device, inode), under its smallest path, reference if any
// path was; then sorted by path.
std::vector<InputFile> Deduplicate(std::vector<FoundFile> found) {
  std::sort(found.begin(), found.end(), [](const FoundFile& a, const FoundFile& b) {
    if (a.key != b.key) return a.key < b.key;
    return a.file.path < b.file.path;
  });
  std::vector<InputFile> files;
  files.reserve(found.size());
  for (size_t i = 0; i < found.size();) {
    size_t j = i + 1;
    bool reference = found[i].file.reference;
    while (j < found.size() && found[j].key == found[i].key) {
      reference = reference || found[j].file.reference;
      ++j;
    }
    files.push_back(std::move(found[i].file));
    files.back().reference = reference;
    i = j;
  }
  std::sort(files.begin(), files.end(),
            [](const InputFile& a, const InputFile& b) { return a.path < b.path; });
  // One path with two identities: the file was replaced between two PATH
  // arguments that both reach it. Keep the first.
  std::vector<InputFile> unique;
  unique.reserve(files.size());
  for (InputFile& file : files) {
    if (!unique.empty() && unique.back().path == file.path) {
      unique.back().reference = unique.back().reference || file.reference;
    } else {
      unique.push_back(std::move(file));
    }
  }
  return unique;
}

}  // namespace

Result<WalkedCorpus> WalkCorpus(const Options& options) {
  Result<GlobSet> globs = GlobSet::Compile(options.globs);
  if (!globs.ok()) return globs.status();

  WalkedCorpus out;
  Walker walker(options, *globs, &out);
  for (const std::string& path : options.paths) walker.WalkRoot(path, /*reference=*/false);
  for (const std::string& path : options.listed_paths) walker.WalkRoot(path, /*reference=*/false);
  for (const std::string& path : options.against) walker.WalkRoot(path, /*reference=*/true);
  out.files = Deduplicate(std::move(walker.found()));
  return out;
}

}  // namespace neardup
