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
// open whatever the depth (one per thread when directories are listed on
// several threads, see WalkTreeParallel).
//
// Files are identified by (device, inode): a file reached by several paths (a
// followed link, a hard link, overlapping PATH arguments such as "." and
// "ref") is listed once, under its smallest path, and is a reference file if
// any of its paths is under an --against path. Hard links are thus one
// document, as duplicate-file finders (fclones, jdupes) treat them by default.

#include "walk/walk.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "base/hash.h"
#include "base/parallel.h"
#include "neardup/quote.h"
#include "walk/glob.h"
#include "walk/ignore.h"
#include "walk/left_out.h"

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
  const std::string shown = ShellQuoted(path);  // as messages name it
  if (message.size() > shown.size() + 2 && message.substr(0, shown.size()) == shown &&
      message.substr(shown.size(), 2) == ": ") {
    message.remove_prefix(shown.size() + 2);
  }
  return message;
}

struct FileKey {
  uint64_t dev = 0;
  uint64_t ino = 0;
  auto operator<=>(const FileKey&) const = default;
};

FileKey KeyOf(const FileStat& st) { return {st.dev, st.ino}; }

// A file found by the walk: its InputFile, whose identity holds its key.
using FoundFile = InputFile;

FileKey KeyOf(const FoundFile& f) { return {f.identity.dev, f.identity.ino}; }

struct SubDir {
  std::string name;
  FileKey key;  // filled only with --follow
};

// What a walk (or, in a parallel walk, the listing of one directory) found:
// files, problems in the order met, and counts.
struct Listing {
  std::vector<FoundFile> found;
  std::vector<Status> errors;
  WalkCounts counts;
  std::vector<std::string> skipped;  // WalkedCorpus::skipped

  // Appends `other`'s problems and counts after what this holds (not its
  // files).
  void AppendProblems(Listing&& other) {
    errors.insert(errors.end(), std::make_move_iterator(other.errors.begin()),
                  std::make_move_iterator(other.errors.end()));
    skipped.insert(skipped.end(), std::make_move_iterator(other.skipped.begin()),
                   std::make_move_iterator(other.skipped.end()));
    counts.hidden += other.counts.hidden;
    counts.glob += other.counts.glob;
    counts.ignored += other.counts.ignored;
    counts.too_large += other.counts.too_large;
    counts.symlinks += other.counts.symlinks;
    counts.loops += other.counts.loops;
    counts.dangling += other.counts.dangling;
    counts.special += other.counts.special;
  }
};

// The name of a file found in the directory `dir_display` (its path past the
// directory's).
std::string_view NameIn(const FoundFile& f, size_t dir_display_size) {
  std::string_view path = f.path;
  path.remove_prefix(std::min(path.size(), dir_display_size));
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return path;
}

// Whether, in one directory, the entry `a` comes before the entry `b` in
// byte order of the paths they stand for: a directory's name compares as
// "name/" (so "a-b" < "a/", as "a-b/x" < "a/x"), a file's as itself (so
// "a" < "a/..." and "a" < "ab/...").
bool EntryLess(std::string_view a, bool a_dir, std::string_view b, bool b_dir) {
  const size_t n = std::min(a.size(), b.size());
  const int c = a.compare(0, n, b.substr(0, n));
  if (c != 0) return c < 0;
  // One name starts the other: the next bytes decide, '/' after a
  // directory's name, nothing (smallest) after a file's.
  auto next = [n](std::string_view name, bool dir) -> int {
    return name.size() > n ? static_cast<unsigned char>(name[n]) : dir ? '/' : -1;
  };
  return next(a, a_dir) < next(b, b_dir);
}

class Walker {
 public:
  // The walk's WalkWatch, and whether it was told: one for all the walk's
  // listing threads.
  struct Watch {
    const WalkWatch* watch = nullptr;
    std::atomic<bool> told{false};
  };

  // `threads` > 1: directories are listed (and their files stat'ed) by that
  // many threads at once, unless links are followed (see WalkTreeParallel).
  // `ignore_files`: the --ignore-file files (none with --no-ignore).
  Walker(const Options& options, const GlobSet& globs, const std::vector<IgnoreFile>& ignore_files, FileSystem& fs,
         Listing* into, int threads)
      : options_(options), globs_(globs), ignore_files_(ignore_files), fs_(fs), into_(into), threads_(threads) {}

  // Tells `watch` (null: none) of the first file stat'ed since its moment.
  // REQUIRES: before a walk.
  void set_watch(Watch* watch) { watch_ = watch; }

  // Walks one PATH argument. The argument itself is always followed if it is
  // a link, and never filtered by hidden or globs.
  void WalkRoot(const std::string& root, bool reference) {
    Result<FileStat> st = fs_.Stat(root);
    if (!st.ok()) {
      into_->errors.push_back(st.status());
      return;
    }
    Notice(*st);
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
        if (threads_ > 1 && !options_.follow) {
          WalkTreeParallel(root, reference);
        } else {
          WalkTree(root, reference);
        }
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

 private:
  // A directory being walked: its path and its subdirectories still to enter.
  struct Frame {
    std::string display;
    std::string relative;
    std::vector<SubDir> subdirs;               // sorted
    size_t next = 0;                           // index of the next subdirectory to enter
    std::shared_ptr<const IgnoreRules> rules;  // in force in this directory (null with --no-ignore)
  };

  // Lists a directory, records its files and then walks its subdirectories in
  // byte order of their paths, depth first, with an explicit stack. That
  // order makes the first visit of a directory reached by several links the
  // one with the smallest path.
  void WalkTree(const std::string& root, bool reference) {
    std::vector<Frame> stack;
    // Lists `display` and pushes it (with no subdirectories when it cannot
    // be read: popping it then ends its visit like any other).
    auto enter = [&](std::string display, std::string relative, std::shared_ptr<const IgnoreRules> parent_rules) {
      Frame frame;
      frame.rules = ListDir(display, relative, reference, std::move(parent_rules), &frame.subdirs);
      SortSubdirs(&frame.subdirs);
      frame.display = std::move(display);
      frame.relative = std::move(relative);
      stack.push_back(std::move(frame));
    };
    enter(root, "", nullptr);
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
          ++into_->counts.loops;
          into_->errors.push_back(Status::IoError(ShellQuoted(sub_display) + ": symlink loop, not followed"));
          continue;
        }
        // Already walked under a smaller path: its files are listed.
        if (!visited_.insert(sub.key).second) continue;
        ancestors_.insert(sub.key);
      }
      // `top` and `sub` are invalid once enter() pushes.
      std::string sub_relative = JoinRelative(top.relative, sub.name);
      enter(std::move(sub_display), std::move(sub_relative), top.rules);
    }
  }

  // WalkTree with threads_ threads (without --follow): each thread takes a
  // directory, lists it and stats its files into the directory's own node,
  // and queues its subdirectories. The nodes are then joined in the order
  // WalkTree visits them (a directory, then its subdirectories in path order,
  // depth first), so the files, problems and counts are WalkTree's, in the
  // same order. (With --follow, which path reaches a directory first depends
  // on that order, so the walk stays on one thread.)
  void WalkTreeParallel(const std::string& root, bool reference) {
    auto top = std::make_unique<DirNode>();
    top->display = root;
    DirQueue queue(top.get());
    std::exception_ptr failed;
    std::mutex failed_mu;
    auto work = [&] {
      Walker lister(options_, globs_, ignore_files_, fs_, nullptr, 1);
      lister.set_watch(watch_);
      while (DirNode* node = queue.Take()) {
        std::vector<DirNode*> more;
        try {
          more = lister.ListNode(node, reference);
        } catch (...) {  // out of memory: rethrown on the calling thread
          const std::lock_guard lock(failed_mu);
          failed = std::current_exception();
        }
        queue.Done(std::move(more));
      }
    };
    // One item per lister, each looping until the queue is done; the calling
    // thread is one of them. ParallelFor joins them all before it returns.
    ParallelFor(Workers{.threads = threads_, .tick = {}, .cancel = nullptr}, static_cast<size_t>(threads_),
                [&](int, size_t) { work(); });
    if (failed) std::rethrow_exception(failed);
    JoinNodes(std::move(top));
  }

  // A directory of a parallel walk: what listing it found, and the nodes of
  // its subdirectories in path order.
  struct DirNode {
    std::string name;  // in its parent directory
    std::string display;
    std::string relative;
    std::shared_ptr<const IgnoreRules> parent_rules;  // of the directory holding it
    Listing listing;
    std::vector<std::unique_ptr<DirNode>> children;
  };

  // The directories of a parallel walk still to list, taken last in first
  // out (depth first, which keeps the queue short). Take() waits while a
  // directory is being listed (it may queue more) and returns nullptr once
  // all are listed.
  class DirQueue {
   public:
    explicit DirQueue(DirNode* root) : pending_{root} {}
    DirNode* Take() {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return !pending_.empty() || busy_ == 0; });
      if (pending_.empty()) return nullptr;
      DirNode* node = pending_.back();
      pending_.pop_back();
      ++busy_;
      return node;
    }
    // A directory taken is listed; `more` (its subdirectories, in path
    // order) are to list.
    // (Should the insert throw, the directory still counts as listed and the
    // waiting listers are woken, so they end and ParallelFor can rethrow.)
    void Done(std::vector<DirNode*> more) {
      struct WakeAll {
        std::condition_variable& cv;
        ~WakeAll() { cv.notify_all(); }
      } wake{cv_};
      const std::lock_guard lock(mu_);
      --busy_;
      pending_.insert(pending_.end(), more.rbegin(), more.rend());
    }

   private:
    std::mutex mu_;
    std::condition_variable cv_;
    std::vector<DirNode*> pending_;
    size_t busy_ = 0;
  };

  // Lists `node` into its listing; returns the nodes of its subdirectories.
  std::vector<DirNode*> ListNode(DirNode* node, bool reference) {
    into_ = &node->listing;
    std::vector<SubDir> subdirs;
    const std::shared_ptr<const IgnoreRules> rules =
        ListDir(node->display, node->relative, reference, std::move(node->parent_rules), &subdirs);
    SortSubdirs(&subdirs);
    SortByName(node->display.size(), &node->listing.found);
    std::vector<DirNode*> more;
    for (const SubDir& sub : subdirs) {
      auto child = std::make_unique<DirNode>();
      child->name = sub.name;
      child->display = JoinDisplay(node->display, sub.name);
      child->relative = JoinRelative(node->relative, sub.name);
      child->parent_rules = rules;
      more.push_back(child.get());
      node->children.push_back(std::move(child));
    }
    into_ = nullptr;
    return more;
  }

  // The number of files the listings of `top`'s tree found.
  static size_t FilesUnder(const DirNode& top) {
    size_t n = 0;
    std::vector<const DirNode*> stack = {&top};
    while (!stack.empty()) {
      const DirNode* node = stack.back();
      stack.pop_back();
      n += node->listing.found.size();
      for (const auto& child : node->children) stack.push_back(child.get());
    }
    return n;
  }

  // Appends the listings of `top`'s tree: problems and counts in WalkTree's
  // order (a directory, then its subdirectories in path order, depth first),
  // files in byte order of their paths (each directory's files, sorted by
  // ListNode, merged with its subdirectories' trees), so that Deduplicate()
  // need not sort them. An explicit stack; each node's children are freed
  // when it is done, so no destructor recurses deeper than one level.
  void JoinNodes(std::unique_ptr<DirNode> top) {
    into_->found.reserve(into_->found.size() + FilesUnder(*top));  // one allocation, not a doubling
    struct Cursor {
      DirNode* node;
      size_t file = 0;   // next file of node's listing
      size_t child = 0;  // next child
    };
    into_->AppendProblems(std::move(top->listing));
    std::vector<Cursor> stack = {{top.get()}};
    while (!stack.empty()) {
      Cursor& at = stack.back();
      DirNode* node = at.node;
      std::vector<FoundFile>& files = node->listing.found;
      const bool more_files = at.file < files.size();
      const bool more_children = at.child < node->children.size();
      if (!more_files && !more_children) {
        node->children.clear();
        files = {};
        stack.pop_back();
        continue;
      }
      if (more_files && (!more_children || EntryLess(NameIn(files[at.file], node->display.size()), false,
                                                     node->children[at.child]->name, true))) {
        into_->found.push_back(std::move(files[at.file++]));
        continue;
      }
      DirNode* child = node->children[at.child++].get();
      into_->AppendProblems(std::move(child->listing));
      stack.push_back({child});  // `at` is invalid from here
    }
  }

  // Sorts the files of one directory (whose path is `dir_size` bytes) by
  // name, for JoinNodes: cheaper here, on the listing threads, than whole
  // paths in one sort at the end. An index is sorted on the names' first 16
  // bytes as two integers (most names fit; the rest tie-break on the whole
  // name), then the files are moved once.
  static void SortByName(size_t dir_size, std::vector<FoundFile>* files) {
    if (files->size() < 2) return;
    struct Key {
      uint64_t head[2];
      uint32_t at;
    };
    std::vector<Key> keys(files->size());
    for (size_t i = 0; i < keys.size(); ++i) {
      const std::string_view name = NameIn((*files)[i], dir_size);
      keys[i].at = static_cast<uint32_t>(i);
      for (size_t w = 0; w < 2; ++w) {
        uint64_t h = 0;  // big-endian, zero-padded: integer order is byte order
        for (size_t b = 0; b < 8; ++b) {
          const size_t at = w * 8 + b;
          h = h << 8 | (at < name.size() ? static_cast<unsigned char>(name[at]) : 0u);
        }
        keys[i].head[w] = h;
      }
    }
    std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
      if (a.head[0] != b.head[0]) return a.head[0] < b.head[0];
      if (a.head[1] != b.head[1]) return a.head[1] < b.head[1];
      return NameIn((*files)[a.at], dir_size) < NameIn((*files)[b.at], dir_size);
    });
    std::vector<FoundFile> sorted;
    sorted.reserve(files->size());
    for (const Key& k : keys) sorted.push_back(std::move((*files)[k.at]));
    files->swap(sorted);
  }

  static void SortSubdirs(std::vector<SubDir>* subdirs) {
    std::sort(subdirs->begin(), subdirs->end(),
              [](const SubDir& a, const SubDir& b) { return EntryLess(a.name, true, b.name, true); });
  }

  // Lists the directory `display`, records its files and appends its
  // subdirectories to `*subdirs`. A directory that cannot be opened, or whose
  // listing fails midway, is one error; what was listed before a failure is
  // still used. Returns the ignore rules in force in it (`parent_rules` and
  // its own .ignore and .gitignore), for its subdirectories; null with
  // --no-ignore.
  std::shared_ptr<const IgnoreRules> ListDir(const std::string& display, const std::string& relative, bool reference,
                                             std::shared_ptr<const IgnoreRules> parent_rules,
                                             std::vector<SubDir>* subdirs) {
    // Below the PATH argument, a directory that became a link since it was
    // listed is not followed without --follow.
    const bool follow_symlink = options_.follow || relative.empty();
    Result<std::unique_ptr<Directory>> dir = fs_.OpenDir(display, follow_symlink);
    if (!dir.ok()) {
      into_->errors.push_back(dir.status());
      return parent_rules;
    }
    std::vector<DirEntry> entries;
    if (Status listed = (*dir)->List(&entries); !listed.ok()) into_->errors.push_back(std::move(listed));
    const std::shared_ptr<const IgnoreRules> rules = RulesOf(display, relative, entries, std::move(parent_rules));
    const ListedDir at{**dir, display, relative, reference, rules.get()};
    for (DirEntry& entry : entries) AddEntry(at, &entry, subdirs);
    return rules;
  }

  // The ignore rules of the directory `display` (its entries listed): its
  // parent's, with its own .ignore and .gitignore when it has them (not with
  // --no-ignore). At a PATH argument (no parent) they are never null, so that
  // --ignore-file applies; null when there is nothing to honour.
  std::shared_ptr<const IgnoreRules> RulesOf(const std::string& display, const std::string& relative,
                                             const std::vector<DirEntry>& entries,
                                             std::shared_ptr<const IgnoreRules> parent_rules) {
    if (options_.no_ignore && ignore_files_.empty()) return nullptr;
    IgnoreFile own[2];  // .ignore, .gitignore
    bool any = false;
    for (const DirEntry& entry : entries) {
      if (options_.no_ignore) break;
      const int which = entry.name == ".ignore" ? 0 : entry.name == ".gitignore" ? 1 : -1;
      if (which < 0 || entry.type == FileType::kDirectory) continue;
      std::string text;
      if (Status s = ReadIgnoreFile(JoinDisplay(display, entry.name), &text); !s.ok()) {
        into_->errors.push_back(std::move(s));
        continue;
      }
      own[which] = IgnoreFile::Parse(text, relative);
      any = any || !own[which].empty();
    }
    if (!any && parent_rules != nullptr) return parent_rules;
    return std::make_shared<const IgnoreRules>(std::move(parent_rules), std::move(own[0]), std::move(own[1]));
  }

  // The bytes of an ignore file, at most kMaxIgnoreFile of them.
  Status ReadIgnoreFile(const std::string& path, std::string* text) {
    constexpr size_t kMaxIgnoreFile = size_t{1} << 20;
    Result<std::unique_ptr<ByteReader>> in = fs_.Open(path);
    if (!in.ok()) return in.status();
    char buf[1 << 14];
    while (text->size() < kMaxIgnoreFile) {
      Result<size_t> n = (*in)->Read(buf, sizeof buf);
      if (!n.ok()) return n.status();
      if (*n == 0) break;
      text->append(buf, *n);
    }
    return Status::Ok();
  }

  // Whether an ignore file excludes `relative` (a directory when `is_dir`).
  bool IgnoredByFile(const IgnoreRules* rules, std::string_view relative, bool is_dir) const {
    return rules != nullptr && rules->Ignored(relative, is_dir, ignore_files_);
  }

  // A directory being listed: what each of its entries is sorted out by.
  struct ListedDir {
    Directory& dir;
    const std::string& display;   // its path as shown
    const std::string& relative;  // its path below the PATH argument
    bool reference;               // under an --against PATH
    const IgnoreRules* rules;     // the ignore rules in force in it, or null
  };

  // Sorts out one entry of `at`: counted and skipped, a file recorded, or a
  // subdirectory appended to `*subdirs`.
  void AddEntry(const ListedDir& at, DirEntry* entry, std::vector<SubDir>* subdirs) {
    if (!options_.hidden && entry->name[0] == '.') {
      Skip(&WalkCounts::hidden, at.display, entry->name, "hidden");
      return;
    }
    std::optional<FileStat> st;
    const std::optional<FileType> type = TypeOf(at, *entry, &st);
    if (!type) return;
    if (*type == FileType::kOther) {
      Skip(&WalkCounts::special, at.display, entry->name, "not a regular file (fifo, socket, device)");
      return;
    }
    const std::string child_relative = JoinRelative(at.relative, entry->name);
    if (*type == FileType::kDirectory) {
      if (globs_.ExcludesDirectory(child_relative)) {
        Skip(&WalkCounts::glob, at.display, entry->name, "excluded by --glob");
        return;
      }
      if (IgnoredByFile(at.rules, child_relative, /*is_dir=*/true)) {
        SkipIgnored(at.display, entry->name);
        return;
      }
      FileKey key;
      if (options_.follow) {
        if (!st && !StatEntry(at.dir, entry->name, &st)) return;
        key = KeyOf(*st);
      }
      subdirs->push_back({std::move(entry->name), key});
      return;
    }
    AddListedFile(at, entry->name, child_relative, &st);
  }

  // The type of an entry: the listing's, else its own stat's; with --follow,
  // a link's target's. *st: the stat when one was taken. Nothing, counted or
  // with the problem recorded, for a link not followed or a stat that failed.
  std::optional<FileType> TypeOf(const ListedDir& at, const DirEntry& entry, std::optional<FileStat>* st) {
    FileType type = entry.type;
    if (type == FileType::kUnknown) {
      if (!StatEntry(at.dir, entry.name, st)) return std::nullopt;
      type = (*st)->type;
    }
    if (type == FileType::kSymlink) {
      if (!options_.follow) {
        ++into_->counts.symlinks;
        return std::nullopt;
      }
      *st = FollowLink(at.dir, at.display, entry.name);
      if (!*st) return std::nullopt;
      type = (*st)->type;
    }
    return type;
  }

  // The entry's own stat (a link is not followed) into *st; false, with the
  // problem recorded, when it fails.
  bool StatEntry(Directory& dir, const std::string& name, std::optional<FileStat>* st) {
    Result<FileStat> got = dir.StatEntry(name, /*follow_symlink=*/false);
    if (!got.ok()) {
      into_->errors.push_back(got.status());
      return false;
    }
    Notice(*got);
    *st = *got;
    return true;
  }

  // Tells the watch, once, of a regular file's stat at or after its moment.
  // (Not a directory's: one whose file was added and removed again is newer
  // while its files are not, and would wake the watch on every run.)
  void Notice(const FileStat& st) {
    if (watch_ == nullptr || st.type != FileType::kRegular ||
        std::max(st.mtime_ns, st.ctime_ns) < watch_->watch->from_ns) {
      return;
    }
    if (!watch_->told.exchange(true)) watch_->watch->changed();
  }

  // A regular file, as far as the listing or a followed link says (*st, when
  // taken): recorded unless a glob or an ignore file leaves it out. A glob
  // that matches it decides, over the ignore files (as in ripgrep).
  void AddListedFile(const ListedDir& at, const std::string& name, const std::string& child_relative,
                     std::optional<FileStat>* st) {
    const std::optional<bool> by_glob = globs_.LastMatch(child_relative);
    if (!by_glob && IgnoredByFile(at.rules, child_relative, /*is_dir=*/false)) {
      SkipIgnored(at.display, name);
      return;
    }
    if (!by_glob.value_or(globs_.Matches(child_relative))) {
      Skip(&WalkCounts::glob, at.display, name, "excluded by --glob");
      return;
    }
    if (!*st && !StatEntry(at.dir, name, st)) return;
    if ((*st)->type != FileType::kRegular) {
      // Replaced since it was listed; a link to a directory here would need
      // the directory logic, so skip it as the special entry it now is.
      ++into_->counts.special;
      return;
    }
    AddFile(JoinDisplay(at.display, name), **st, at.reference);
  }

  // Counts an entry an ignore file excluded: among those --glob excludes too.
  void SkipIgnored(const std::string& display, const std::string& name) {
    ++into_->counts.ignored;
    Skip(&WalkCounts::glob, display, name, "ignored (.ignore, .gitignore or --ignore-file)");
  }

  // Counts an entry skipped, and names it with Options::name_skipped.
  void Skip(uint64_t WalkCounts::*counter, const std::string& display, const std::string& name, const char* why) {
    ++(into_->counts.*counter);
    if (options_.name_skipped) into_->skipped.push_back(ShellQuoted(JoinDisplay(display, name)) + ": " + why);
  }

  // The stat of the target of the link `name` in `dir`, or nothing (with the
  // problem recorded): a link to nothing is a warning of its own kind, like a
  // loop.
  std::optional<FileStat> FollowLink(Directory& dir, const std::string& display, const std::string& name) {
    Result<FileStat> got = dir.StatEntry(name, /*follow_symlink=*/true);
    if (got.ok()) {
      Notice(*got);
      return *got;
    }
    if (got.status().code() != Status::Code::kNotFound) {
      into_->errors.push_back(got.status());
      return std::nullopt;
    }
    ++into_->counts.dangling;
    const std::string path = JoinDisplay(display, name);
    into_->errors.push_back(Status::NotFound(ShellQuoted(path)
                                                 .append(": dangling symbolic link, not followed (")
                                                 .append(Reason(got.status(), path))
                                                 .append(")")));
    return std::nullopt;
  }

  void AddFile(std::string display, const FileStat& st, bool reference) {
    if (options_.max_filesize != 0 && st.size > options_.max_filesize) {
      ++into_->counts.too_large;
      if (options_.name_skipped) into_->skipped.push_back(ShellQuoted(display) + ": over --max-filesize");
      return;
    }
    FoundFile found;
    found.path = std::move(display);
    found.size = st.size;
    found.mtime_ns = st.mtime_ns;
    found.ctime_ns = st.ctime_ns;
    found.reference = reference;
    found.identity.dev = st.dev;
    found.identity.ino = st.ino;
    into_->found.push_back(std::move(found));
  }

  void AddStream(std::string display, const FileStat& st, bool reference) {
    FoundFile found;
    found.path = std::move(display);
    found.mtime_ns = st.mtime_ns;
    found.reference = reference;
    found.identity.dev = st.dev;
    found.identity.ino = st.ino;
    found.identity.stream = true;
    into_->found.push_back(std::move(found));
  }

  const Options& options_;
  const GlobSet& globs_;
  const std::vector<IgnoreFile>& ignore_files_;
  FileSystem& fs_;
  Listing* into_;
  const int threads_;
  Watch* watch_ = nullptr;
  // With --follow: directories on the current path, and all walked so far
  // under the current PATH argument.
  std::set<FileKey> ancestors_;
  std::set<FileKey> visited_;
};

// Whether `found` is in path order (by path, then identity) already, and
// whether a path repeats in it then (several PATH arguments name it): one
// comparison of each path with the one before.
struct FoundOrder {
  bool sorted = true;
  bool same_paths = false;
};
FoundOrder OrderOf(const std::vector<FoundFile>& found) {
  FoundOrder out;
  for (size_t i = 1; i < found.size() && out.sorted; ++i) {
    const int c = found[i].path.compare(found[i - 1].path);
    out.same_paths = out.same_paths || c == 0;
    out.sorted = c > 0 || (c == 0 && !(KeyOf(found[i]) < KeyOf(found[i - 1])));
  }
  return out;
}

// One entry per (device, inode), under its smallest path, reference if any
// path was, of the first input (root) any path was found under; then sorted
// by path. A parallel walk of one PATH argument gives the files in path order
// already: they are then kept in place, with no copy of the list (whose fresh
// pages cost more than the rest here); several arguments, or a walk on one
// thread, are sorted here. (Indices are sorted, not the files: a file is a
// hundred bytes, moved once.)
std::vector<InputFile> Deduplicate(std::vector<FoundFile> found) {
  const size_t n = found.size();
  auto path_less = [&](uint32_t a, uint32_t b) {
    const int c = found[a].path.compare(found[b].path);
    return c != 0 ? c < 0 : KeyOf(found[a]) < KeyOf(found[b]);
  };
  std::vector<uint32_t> order(n);  // found files in path order
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
  const auto [sorted, same_paths] = OrderOf(found);
  if (!sorted) std::sort(order.begin(), order.end(), path_less);
  // The first path (in that order) of each identity is its smallest: kept,
  // reference if any of its paths is. Identities in an open-addressing
  // table (a sort of them cost more than all the rest).
  std::vector<uint8_t> kept(n, 1);  // by rank
  size_t slots = 16;
  while (slots < 2 * n) slots *= 2;
  constexpr uint32_t kEmpty = UINT32_MAX;
  std::vector<uint32_t> table(slots, kEmpty);  // ranks
  for (size_t r = 0; r < n; ++r) {
    const FileKey key = KeyOf(found[order[r]]);
    size_t h = static_cast<size_t>(Mix64(key.dev * 0x9E3779B97F4A7C15ull ^ key.ino)) & (slots - 1);
    while (table[h] != kEmpty && KeyOf(found[order[table[h]]]) != key) h = (h + 1) & (slots - 1);
    if (table[h] == kEmpty) {
      table[h] = static_cast<uint32_t>(r);
      continue;
    }
    InputFile& first = found[order[table[h]]];
    first.reference = first.reference || found[order[r]].reference;
    first.root = std::min(first.root, found[order[r]].root);
    kept[r] = 0;
  }
  table = {};
  // One path with two identities: the file was replaced between two PATH
  // arguments that both reach it. Keep the one with the smaller identity.
  // Sorted, the files are compacted in place (rank r is found[r], and the
  // next kept one never lies before the last written).
  std::vector<InputFile> moved;
  if (!sorted) moved.reserve(n);
  std::vector<InputFile>& files = sorted ? found : moved;
  size_t w = 0;  // files kept so far, in files[0, w)
  for (size_t r = 0; r < n; ++r) {
    if (kept[r] == 0) continue;
    InputFile& file = found[order[r]];
    if (w > 0 && (!sorted || same_paths) && files[w - 1].path == file.path) {
      files[w - 1].reference = files[w - 1].reference || file.reference;
      files[w - 1].root = std::min(files[w - 1].root, file.root);
    } else if (!sorted) {
      files.push_back(std::move(file));
      ++w;
    } else {
      if (w != r) files[w] = std::move(file);
      ++w;
    }
  }
  files.resize(w);
  return std::move(files);
}

}  // namespace

Result<WalkedCorpus> WalkCorpus(const Options& options, FileSystem& fs, const WalkWatch* watch) {
  Result<GlobSet> globs = GlobSet::Compile(options.globs);
  if (!globs.ok()) return globs.status();

  // --ignore-file (even with --no-ignore, as in ripgrep: it is asked for by
  // name): read once, matched below each PATH argument. A file that
  // cannot be read is an error of the run: what it would leave out is unknown.
  std::vector<IgnoreFile> ignore_files;
  for (const std::string& path : options.ignore_files) {
    Result<std::unique_ptr<ByteReader>> in = fs.Open(path);
    if (!in.ok()) return Status::InvalidArgument("--ignore-file " + std::string(in.status().message()));
    std::string text;
    char buf[1 << 14];
    for (;;) {
      Result<size_t> n = (*in)->Read(buf, sizeof buf);
      if (!n.ok()) return Status::InvalidArgument("--ignore-file " + std::string(n.status().message()));
      if (*n == 0) break;
      text.append(buf, *n);
    }
    ignore_files.push_back(IgnoreFile::Parse(text, ""));
  }
  Listing all;
  Walker::Watch watching;
  watching.watch = watch;
  Walker walker(options, *globs, ignore_files, fs, &all, Workers::Resolve(options.threads));
  if (watch != nullptr && watch->changed) walker.set_watch(&watching);
  uint32_t root = 0;
  auto walk_root = [&](const std::string& path, bool reference) {
    const size_t before = all.found.size();
    walker.WalkRoot(path, reference);
    for (size_t i = before; i < all.found.size(); ++i) all.found[i].root = root;
    ++root;
  };
  for (const std::string& path : options.paths) walk_root(path, /*reference=*/false);
  for (const std::string& path : options.listed_paths) walk_root(path, /*reference=*/false);
  for (const std::string& path : options.against) walk_root(path, /*reference=*/true);
  WalkedCorpus out;
  out.files = Deduplicate(std::move(all.found));
  out.errors = std::move(all.errors);
  out.counts = all.counts;
  out.skipped = std::move(all.skipped);
  LeaveOutIndex(options, fs, &out);
  LeaveOutParquet(options, &out);
  return out;
}

Result<WalkedCorpus> WalkCorpus(const Options& options) { return WalkCorpus(options, FileSystem::Default()); }

}  // namespace neardup
