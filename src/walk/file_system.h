// FileSystem and ByteReader: the core's only way to read input bytes and to
// look at directories.
//
// Everything the pipeline reads, and everything the walk lists or stats, goes
// through a FileSystem, so tests can inject failures (a file that cannot be
// opened, a read error halfway, a file that vanishes, a directory listing that
// fails midway, a stat that fails) without depending on permissions, which
// root ignores.
// OpenInput() adds transparent decompression for ".gz" (zlib) and ".zst"
// (libzstd) paths.
//
// Opening never hangs on a file that turned into a FIFO: a file is opened with
// O_NONBLOCK, checked with fstat() (a regular file, and with a FileIdentity
// the same device and inode as the walk saw), and read as it is (O_NONBLOCK
// does not change reading a regular file; a reader that meets EAGAIN anyway
// clears it).
// A stream (a pipe, FIFO or device named on the command line, such as
// /dev/stdin or <(cmd)) is opened blocking, as cat(1) would, since its writer
// may not be there yet.
//
// Thread safety: FileSystem::Default() and all its methods may be called from
// many threads at once; one ByteReader is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/types.h"
#include "neardup/status.h"

namespace neardup {

// A source of bytes, read front to back. Move-only owner of its handle.
class ByteReader {
 public:
  ByteReader() = default;
  ByteReader(const ByteReader&) = delete;
  ByteReader& operator=(const ByteReader&) = delete;
  virtual ~ByteReader() = default;

  // Reads up to `n` bytes into `buf`. Returns the number read; 0 means the end.
  // An error is IoError (or Corrupt for a damaged compressed stream) whose
  // message starts with the path: "a/b.txt: Input/output error".
  virtual Result<size_t> Read(char* buf, size_t n) = 0;
  // Whether ReadAhead() works: only for a reader of a regular, uncompressed
  // file (pread); streams and decompressors cannot.
  virtual bool CanReadAhead() const { return false; }
  // Reads up to `n` bytes that lie `ahead` bytes past what Read() has
  // returned so far, without consuming them: the next Read() starts where it
  // would have. 0 means the end. A JSONL reader uses it to learn that a line
  // is over --max-line without holding it. REQUIRES: CanReadAhead().
  virtual Result<size_t> ReadAhead(uint64_t ahead, char* buf, size_t n) {
    (void)ahead, (void)buf, (void)n;
    return Status::Internal("this reader cannot read ahead");
  }
};

// What kind of file a directory entry or a stat names.
enum class FileType : uint8_t {
  kUnknown,  // a listing that did not say (DT_UNKNOWN): stat it to know
  kRegular,
  kDirectory,
  kSymlink,  // only from a listing or a StatEntry() that does not follow
  kOther,    // FIFO, socket, character or block device
};

struct FileStat {
  uint64_t size = 0;
  int64_t mtime_ns = 0;  // modification time, nanoseconds since the epoch
  int64_t ctime_ns = 0;  // status change time: no tool can set it back
  uint64_t dev = 0;
  uint64_t ino = 0;
  FileType type = FileType::kUnknown;  // always known from a stat
  // Same file, same size and times: its content is taken as unchanged. (The
  // type is left out: a file whose type changed is another inode anyway.)
  friend bool operator==(const FileStat& x, const FileStat& y) {
    return x.size == y.size && x.mtime_ns == y.mtime_ns && x.ctime_ns == y.ctime_ns && x.dev == y.dev && x.ino == y.ino;
  }
};

// One name in a directory, as the listing gave it.
struct DirEntry {
  std::string name;                    // never "." or ".."; no '/'
  FileType type = FileType::kUnknown;  // kUnknown when the listing did not say
};

// An open directory: its names, and the stat of each, looked up relative to
// the open directory (no path walk from the root for each entry, which keeps
// deep trees as cheap to walk as shallow ones). Owns its handle; not copyable.
// Used by one thread at a time.
class Directory {
 public:
  Directory() = default;
  Directory(const Directory&) = delete;
  Directory& operator=(const Directory&) = delete;
  virtual ~Directory() = default;

  // Appends to *entries the names in the directory, except "." and "..", in
  // the order the system gives them, each with its type when the listing says
  // it (d_type), else kUnknown. Returns IoError ("PATH: reason") when reading
  // fails midway; the entries read before the failure are kept in *entries.
  // REQUIRES: called once; entries != nullptr.
  virtual Status List(std::vector<DirEntry>* entries) = 0;
  // The stat of the entry `name`: of the link itself (as lstat) unless
  // follow_symlink, then of its target (as stat). Errors as FileSystem::Stat(),
  // named "PATH/NAME".
  virtual Result<FileStat> StatEntry(const std::string& name, bool follow_symlink) = 0;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  // Opens the regular file `path` for reading. NotFound or IoError, with the
  // path in the message; "PATH: not a regular file" when it is something else
  // (a FIFO is never waited on).
  virtual Result<std::unique_ptr<ByteReader>> Open(const std::string& path) = 0;
  // Opens `path` and checks that it is still the file `expected` describes:
  // same device and inode, and a regular file unless expected.stream. A
  // mismatch is Changed ("PATH: replaced since it was listed ..."). The default
  // implementation (for test doubles) skips the check and calls Open().
  virtual Result<std::unique_ptr<ByteReader>> OpenExpected(const std::string& path, const FileIdentity& expected);
  // Size, times, identity and type of `path`, following symbolic links.
  // NotFound ("PATH: No such file or directory") when it, or the target of a
  // link on the way, does not exist, and for a link loop (ELOOP); else IoError.
  virtual Result<FileStat> Stat(const std::string& path) = 0;
  // Opens the directory `path` for listing. With follow_symlink false, a
  // `path` that is itself a symbolic link is not opened (IoError, ELOOP).
  // NotFound or IoError ("PATH: reason") when it cannot be opened. The default
  // implementation (for test doubles) calls Default().OpenDir().
  virtual Result<std::unique_ptr<Directory>> OpenDir(const std::string& path, bool follow_symlink);
  // The bytes [first, second) of the file `path`, of `size` bytes, that this
  // file system reads of it: the whole file, [0, size), unless it reads a
  // part (a stage task's share, byte_shares.h). A reader that does not read
  // through Open() (Parquet rows) asks it which part to read.
  virtual std::pair<uint64_t, uint64_t> Range(const std::string& path, uint64_t size) {
    (void)path;
    return {0, size};
  }
  // Whether a reader that reads `path` by other means (Parquet rows, which
  // DuckDB reads) must still read its bytes through OpenExpected() to their
  // end, before it reads them so: a file system that hashes what is read
  // (HashingFileSystem) says so of the files it hashes. False by default.
  virtual bool WantsAllBytes(const std::string& path, const FileIdentity& expected) {
    (void)path;
    (void)expected;
    return false;
  }

  // The real file system (POSIX open/read/fstat, opendir/readdir/fstatat). Never null; lives forever.
  static FileSystem& Default();
};

// The path "-" names standard input, as for cat(1): the real file system
// opens and stats /dev/stdin for it, and it is written "-" in the output and
// in messages (a file named "-" is reached as "./-").
inline std::string SystemPath(const std::string& path) { return path == "-" ? "/dev/stdin" : path; }

// Opens `path` through `fs`, decompressing when the name ends in ".gz" or ".zst".
Result<std::unique_ptr<ByteReader>> OpenInput(FileSystem& fs, const std::string& path);
// The same through fs.OpenExpected(path, expected).
Result<std::unique_ptr<ByteReader>> OpenInput(FileSystem& fs, const std::string& path, const FileIdentity& expected);

// True when OpenInput() decompresses `path` (its name ends in ".gz" or ".zst").
bool CompressedName(std::string_view path);

// True when `path` is compressed (".gz", ".zst") and decompresses to more than
// `limit` bytes; reads at most limit + 1 decompressed bytes, through a fixed
// buffer. False at once for any other name. Errors are those of OpenInput()
// and Read() (the caller meets them again when it reads the file).
Result<bool> DecompressedLargerThan(FileSystem& fs, const std::string& path, const FileIdentity& expected,
                                    uint64_t limit);

// Wraps an already open reader with a gzip or zstd decoder. `path` is for
// messages only.
std::unique_ptr<ByteReader> GzipReader(std::unique_ptr<ByteReader> inner, std::string path);
std::unique_ptr<ByteReader> ZstdReader(std::unique_ptr<ByteReader> inner, std::string path);

}  // namespace neardup
