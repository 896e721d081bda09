// KeptFolder: the folder --kept-dir DIR that scan and the stage filter
// tasks write, held as one descriptor of DIR opened once, and the one way
// anything is made, linked, renamed or removed below it.
//
// Invariants:
//  - DIR itself is opened with O_NOFOLLOW: a symbolic link at DIR is
//    refused. When DIR does not exist it is made with mode 0700 (its
//    missing parents as `mkdir -p` makes them).
//  - A path below DIR is a relative path checked component by component
//    (CheckKeptPath: no "..", no absolute path, no empty or "." component,
//    no NUL) before anything is done with it.
//  - Every folder below DIR is opened relative to DIR's descriptor with no
//    symbolic link followed at any level: openat2() with RESOLVE_BENEATH |
//    RESOLVE_NO_SYMLINKS where the kernel has it, else one openat() a
//    component, each with O_NOFOLLOW. A link planted anywhere in DIR (at a
//    folder's name or at a file's) makes that path fail; it never redirects
//    a write or a removal out of DIR.
//  - A folder made below DIR takes the permission bits of the input folder
//    it mirrors (the folder at the same place above the input file), or
//    0777 when there is none; mkdirat() then takes the umask away. The
//    writer keeps write and search on it (it owns it), no special bit is
//    set.
//
// Thread safety: a KeptFolder is read-only once opened; Place() and
// RemoveFile() may be called from several threads at once (two threads
// making the same folder both succeed).
//
//   Result<KeptFolder> dir = KeptFolder::Open("dedup");
//   Result<KeptPlace> place = dir->Place("a/b.jsonl", "shards/a/b.jsonl");
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "neardup/status.h"

namespace neardup {

// A file descriptor, closed when destroyed. Move-only.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd();
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// Where one file goes below DIR: its folder (open, an O_PATH descriptor),
// its name in it (one checked component) and, for messages, DIR/PATH.
struct KeptPlace {
  Fd folder;
  std::string name;
  std::string path;
};

// Creates a new file beside `place`, in its folder, under a fresh temporary
// name ".NAME.neardup-XXXXXX" (O_CREAT | O_EXCL, no link followed, write
// only, permission bits `mode`): its descriptor in *fd (the caller closes
// it), its name returned. IoError "DIR/PATH: cannot create a temporary file
// beside it: REASON" when none can be made.
Result<std::string> CreateTempBeside(const KeptPlace& place, unsigned mode, int* fd);

// Ok when `rel` is a path below a folder: relative, its components
// separated by single '/', none empty, ".", "..", and no NUL.
// InvalidArgument "kept path REL is not a path below DIR" otherwise, REL
// quoted as ShellQuoted() does.
Status CheckKeptPath(std::string_view rel);

// Whether the components of `rel` are the last components of `path` (both
// read with empty and "." components left out): what KeptPathOf() makes of
// a file's path. REQUIRES: CheckKeptPath(rel) is Ok.
bool IsTailOf(std::string_view rel, std::string_view path);

// Whether openat2() is tried before the O_NOFOLLOW walk: true until the
// kernel answers ENOSYS once. Tests turn it off to check the walk that
// kernels without openat2() take.
void SetTryOpenat2(bool on);

class KeptFolder {
 public:
  // Opens DIR, made (mode 0700) when missing. IoError "--kept-dir DIR: ..."
  // when it cannot be made or opened, or is a symbolic link or not a
  // folder. `flag`: the option that names DIR, in messages.
  static Result<KeptFolder> Open(const std::string& dir, const std::string& flag = "--kept-dir");

  KeptFolder(KeptFolder&&) = default;
  KeptFolder& operator=(KeptFolder&&) = default;
  KeptFolder(const KeptFolder&) = delete;
  KeptFolder& operator=(const KeptFolder&) = delete;

  // DIR as given.
  const std::string& path() const { return path_; }
  // DIR's descriptor (O_PATH | O_DIRECTORY), valid while this lives.
  int fd() const { return fd_.get(); }

  // The place of `rel` below DIR, its folders made as needed, each with the
  // mode of the folder at the same place above `source` (the input file
  // written there) when `rel` is a tail of `source` (IsTailOf), else 0777,
  // less the umask. InvalidArgument when `rel` fails CheckKeptPath; IoError
  // "DIR/REL: ..." when a folder on its way is a symbolic link, is not a
  // folder, or cannot be made or opened.
  Result<KeptPlace> Place(std::string_view rel, const std::string& source) const;

  // Removes the regular file at `rel` below DIR, if there is one; a symbolic
  // link, a folder or anything else there is left, as is a path whose
  // folders are missing or are not folders (no link is followed). Ok then;
  // InvalidArgument when `rel` fails CheckKeptPath; IoError when unlinking
  // fails.
  Status RemoveFile(std::string_view rel) const;

 private:
  KeptFolder(std::string path, Fd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  std::string path_;
  Fd fd_;
};

}  // namespace neardup
