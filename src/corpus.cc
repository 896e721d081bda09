// WalkCorpus: a depth-first walk through a FileSystem (Stat, OpenDir, and the
// Directory's List and StatEntry).
//
// The walk keeps its own stack of directories (a vector on the heap), so a
// tree thousands of levels deep needs no more call stack than a flat one.
//
// Cost per entry: the listing's record, plus one StatEntry() (fstatat
// relative to the open directory) for regular files (size and mtime), for
// entries whose type the listing does not give, and, with --follow, for
// directories and links. A directory is listed and its entries stat'ed before
// its subdirectories are entered, so the walk holds at most one directory
// open whatever the depth.
//
// Files are identified by (device, inode): a file reached by several paths (a
// followed link, a hard link, overlapping PATH arguments such as "." and
// "ref") is listed once, under its smallest path, and is a reference file if
// any of its paths is under an --against path. Hard links are thus one
// document, as duplicate-file finders (fclones, jdupes) treat them by default.

#include "neardup/corpus.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "neardup/glob.h"

namespace neardup {
namespace {

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

// The reason in a "PATH: reason" message, or the whole message.
std::string_view Reason(const Status& status, const std::string& path) {
  std::string_view message = status.message();
  if (message.size() > path.size() + 2 && message.substr(0, path.size()) == path &&
      message.substr(path.size(), 2) == ": ") {
    message.remove_prefix(path.size() + 2);
  }
  return message;
}

struct FileKey {
  uint64_t dev = 0;
  uint64_t ino = 0;
  auto operator<=>(const FileKey&) const = default;
};

FileKey KeyOf(const FileStat& st) { return {st.dev, st.ino}; }

struct FoundFile {
  InputFile file;
  FileKey key;
};

struct SubDir {
  std::string name;
  FileKey key;  // filled only with --follow
};

class Walker {
 public:
  Walker(const Options& options, const GlobSet& globs, FileSystem& fs, WalkedCorpus* out)
      : options_(options), globs_(globs), fs_(fs), out_(out) {}

  // Walks one PATH argument. The argument itself is always followed if it is
  // a link, and never filtered by hidden or globs.
  void WalkRoot(const std::string& root, bool reference) {
    Result<FileStat> st = fs_.Stat(root);
    if (!st.ok()) {
      out_->errors.push_back(st.status());
      return;
    }
    switch (st->type) {
      case FileType::kDirectory: {
        const FileKey key = KeyOf(*st);
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
      case FileType::kRegular:
        AddFile(root, *st, reference);
        break;
      default:
        // Named explicitly: a FIFO, pipe (/dev/stdin, <(cmd)) or device is
        // read as a stream document. --max-filesize applies to the bytes read.
        AddStream(root, *st, reference);
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
    // Lists `display` and pushes it (with no subdirectories when it cannot
    // be read: popping it then ends its visit like any other).
    auto enter = [&](std::string display, std::string relative) {
      Frame frame;
      ListDir(display, relative, reference, &frame.subdirs);
      SortSubdirs(&frame.subdirs);
      frame.display = std::move(display);
      frame.relative = std::move(relative);
      stack.push_back(std::move(frame));
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
      // `top` and `sub` are invalid once enter() pushes.
      std::string sub_relative = JoinRelative(top.relative, sub.name);
      enter(std::move(sub_display), std::move(sub_relative));
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

  // Lists the directory `display`, records its files and appends its
  // subdirectories to `*subdirs`. A directory that cannot be opened, or whose
  // listing fails midway, is one error; what was listed before a failure is
  // still used.
  void ListDir(const std::string& display, const std::string& relative, bool reference,
               std::vector<SubDir>* subdirs) {
    // Below the PATH argument, a directory that became a link since it was
    // listed is not followed without --follow.
    const bool follow_symlink = options_.follow || relative.empty();
    Result<std::unique_ptr<Directory>> dir = fs_.OpenDir(display, follow_symlink);
    if (!dir.ok()) {
      out_->errors.push_back(dir.status());
      return;
    }
    std::vector<DirEntry> entries;
    if (Status listed = (*dir)->List(&entries); !listed.ok()) out_->errors.push_back(std::move(listed));
    for (DirEntry& entry : entries) AddEntry(**dir, display, relative, reference, &entry, subdirs);
  }

  // Sorts out one entry of `dir` (whose path is `display`): counted and
  // skipped, a file recorded, or a subdirectory appended to `*subdirs`.
  void AddEntry(Directory& dir, const std::string& display, const std::string& relative, bool reference,
                DirEntry* entry, std::vector<SubDir>* subdirs) {
    if (!options_.hidden && entry->name[0] == '.') {
      ++out_->counts.hidden;
      return;
    }
    std::optional<FileStat> st;
    // The entry's own stat (a link is not followed); false, with the problem
    // recorded, when it fails.
    auto stat_entry = [&] {
      Result<FileStat> got = dir.StatEntry(entry->name, /*follow_symlink=*/false);
      if (!got.ok()) {
        out_->errors.push_back(got.status());
        return false;
      }
      st = *got;
      return true;
    };

    FileType type = entry->type;
    if (type == FileType::kUnknown) {
      if (!stat_entry()) return;
      type = st->type;
    }
    if (type == FileType::kSymlink) {
      if (!options_.follow) {
        ++out_->counts.symlinks;
        return;
      }
      st = FollowLink(dir, display, entry->name);
      if (!st) return;
      type = st->type;
    }
    if (type == FileType::kOther) {
      ++out_->counts.special;
      return;
    }
    const std::string child_relative = JoinRelative(relative, entry->name);
    if (type == FileType::kDirectory) {
      if (globs_.ExcludesDirectory(child_relative)) {
        ++out_->counts.glob;
        return;
      }
      FileKey key;
      if (options_.follow) {
        if (!st && !stat_entry()) return;
        key = KeyOf(*st);
      }
      subdirs->push_back({std::move(entry->name), key});
      return;
    }
    // A regular file, as far as the listing or a followed link says.
    if (!globs_.Matches(child_relative)) {
      ++out_->counts.glob;
      return;
    }
    if (!st && !stat_entry()) return;
    if (st->type != FileType::kRegular) {
      // Replaced since it was listed; a link to a directory here would need
      // the directory logic, so skip it as the special entry it now is.
      ++out_->counts.special;
      return;
    }
    AddFile(JoinDisplay(display, entry->name), *st, reference);
  }

  // The stat of the target of the link `name` in `dir`, or nothing (with the
  // problem recorded): a link to nothing is a warning of its own kind, like a
  // loop.
  std::optional<FileStat> FollowLink(Directory& dir, const std::string& display, const std::string& name) {
    Result<FileStat> got = dir.StatEntry(name, /*follow_symlink=*/true);
    if (got.ok()) return *got;
    if (got.status().code() != Status::Code::kNotFound) {
      out_->errors.push_back(got.status());
      return std::nullopt;
    }
    ++out_->counts.dangling;
    const std::string path = JoinDisplay(display, name);
    out_->errors.push_back(Status::NotFound(std::string(path)
                                                .append(": dangling symbolic link, not followed (")
                                                .append(Reason(got.status(), path))
                                                .append(")")));
    return std::nullopt;
  }

  void AddFile(std::string display, const FileStat& st, bool reference) {
    if (options_.max_filesize != 0 && st.size > options_.max_filesize) {
      ++out_->counts.too_large;
      return;
    }
    FoundFile found;
    found.file.path = std::move(display);
    found.file.size = st.size;
    found.file.mtime_ns = st.mtime_ns;
    found.file.ctime_ns = st.ctime_ns;
    found.file.reference = reference;
    found.key = KeyOf(st);
    found.file.identity.dev = found.key.dev;
    found.file.identity.ino = found.key.ino;
    found_.push_back(std::move(found));
  }

  void AddStream(std::string display, const FileStat& st, bool reference) {
    FoundFile found;
    found.file.path = std::move(display);
    found.file.mtime_ns = st.mtime_ns;
    found.file.reference = reference;
    found.key = KeyOf(st);
    found.file.identity.dev = found.key.dev;
    found.file.identity.ino = found.key.ino;
    found.file.identity.stream = true;
    found_.push_back(std::move(found));
  }

  const Options& options_;
  const GlobSet& globs_;
  FileSystem& fs_;
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

Result<WalkedCorpus> WalkCorpus(const Options& options, FileSystem& fs) {
  Result<GlobSet> globs = GlobSet::Compile(options.globs);
  if (!globs.ok()) return globs.status();

  WalkedCorpus out;
  Walker walker(options, *globs, fs, &out);
  for (const std::string& path : options.paths) walker.WalkRoot(path, /*reference=*/false);
  for (const std::string& path : options.listed_paths) walker.WalkRoot(path, /*reference=*/false);
  for (const std::string& path : options.against) walker.WalkRoot(path, /*reference=*/true);
  out.files = Deduplicate(std::move(walker.found()));
  return out;
}

Result<WalkedCorpus> WalkCorpus(const Options& options) { return WalkCorpus(options, FileSystem::Default()); }

}  // namespace neardup
