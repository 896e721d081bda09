// The POSIX FileSystem and the gzip/zstd decoding readers.
//
// Every reader streams through a fixed-size buffer; no file is ever loaded
// whole. Errors are sticky: once a reader has failed, every later Read()
// returns the same Status.

#include "walk/file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <limits>
#include <string_view>
#include <system_error>
#include <utility>

#include "neardup/quote.h"

namespace neardup {
namespace {

// Size of the compressed-input buffer of the decoding readers.
constexpr size_t kInputBufferSize = 256 * 1024;
// Largest single read(2) request; keeps the count inside ssize_t.
constexpr size_t kMaxReadRequest = size_t{1} << 30;

// "PATH: No such file or directory". std::system_category().message() is
// thread-safe, unlike strerror().
std::string ErrnoMessage(const std::string& path, int err) {
  return ShellQuoted(path) + ": " + std::system_category().message(err);
}

Status ErrnoStatus(const std::string& path, int err) {
  if (err == ENOENT || err == ENOTDIR) return Status::NotFound(ErrnoMessage(path, err));
  return Status::IoError(ErrnoMessage(path, err));
}

// For a stat: a path that resolves to nothing, a link loop included, is NotFound.
Status StatErrnoStatus(const std::string& path, int err) {
  if (err == ELOOP) return Status::NotFound(ErrnoMessage(path, err));
  return ErrnoStatus(path, err);
}

int64_t Nanoseconds(const struct timespec& ts) {
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<int64_t>(ts.tv_nsec);
}

FileType TypeOfMode(mode_t mode) {
  if (S_ISREG(mode)) return FileType::kRegular;
  if (S_ISDIR(mode)) return FileType::kDirectory;
  if (S_ISLNK(mode)) return FileType::kSymlink;
  return FileType::kOther;
}

FileType TypeOfDirent(unsigned char d_type) {
  switch (d_type) {
    case DT_REG:
      return FileType::kRegular;
    case DT_DIR:
      return FileType::kDirectory;
    case DT_LNK:
      return FileType::kSymlink;
    case DT_UNKNOWN:
      return FileType::kUnknown;
    default:
      return FileType::kOther;  // fifo, socket, character or block device
  }
}

FileStat ToFileStat(const struct stat& st) {
  FileStat out;
  out.size = static_cast<uint64_t>(st.st_size);
  out.mtime_ns = Nanoseconds(st.st_mtim);
  out.ctime_ns = Nanoseconds(st.st_ctim);
  out.dev = static_cast<uint64_t>(st.st_dev);
  out.ino = static_cast<uint64_t>(st.st_ino);
  out.type = TypeOfMode(st.st_mode);
  return out;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Owns a file descriptor; closes it on destruction. Move-only.
class UniqueFd {
 public:
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~UniqueFd() { Reset(); }

  int get() const { return fd_; }

 private:
  void Reset() {
    // close() is not retried on EINTR: on Linux the descriptor is gone anyway.
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
};

// A directory open with opendir(); entries are stat'ed with fstatat()
// relative to it.
class PosixDirectory final : public Directory {
 public:
  PosixDirectory(DIR* dir, std::string path) : dir_(dir), path_(std::move(path)) {}
  ~PosixDirectory() override { ::closedir(dir_); }

  Status List(std::vector<DirEntry>* entries) override {
    while (true) {
      errno = 0;
      const struct dirent* ent = ::readdir(dir_);
      if (ent == nullptr) return errno == 0 ? Status::Ok() : ErrnoStatus(path_, errno);
      const std::string_view name = ent->d_name;
      if (name == "." || name == "..") continue;
      entries->push_back({std::string(name), TypeOfDirent(ent->d_type)});
    }
  }

  Result<FileStat> StatEntry(const std::string& name, bool follow_symlink) override {
    struct stat st;
    if (::fstatat(::dirfd(dir_), name.c_str(), &st, follow_symlink ? 0 : AT_SYMLINK_NOFOLLOW) != 0) {
      const int err = errno;
      std::string path = path_;
      if (path.empty() || path.back() != '/') path += '/';
      return StatErrnoStatus(path.append(name), err);
    }
    return ToFileStat(st);
  }

 private:
  DIR* const dir_;  // owned
  std::string path_;
};

// Reads a file opened and fstat'ed by OpenChecked, with no system call of its
// own beyond read() (and pread() for ReadAhead): it keeps its position
// itself, and a regular file whose read() came back short once it reached
// the size fstat() gave is at its end, without a read() that returns 0. For
// a small file that is one read() in all, as xxhsum's.
class PosixReader final : public ByteReader {
 public:
  // `st`: fstat() of `fd` at open; `fd` is at offset 0.
  PosixReader(UniqueFd fd, std::string path, const struct stat& st)
      : fd_(std::move(fd)),
        path_(std::move(path)),
        seekable_(S_ISREG(st.st_mode)),
        // A size of 0 says nothing (files of /proc read as text of some size).
        size_at_open_(seekable_ && st.st_size > 0 ? static_cast<uint64_t>(st.st_size) : UINT64_MAX) {}

  bool CanReadAhead() const override { return seekable_; }

  Result<size_t> ReadAhead(uint64_t ahead, char* buf, size_t n) override {
    if (!error_.ok()) return error_;
    const uint64_t from = position_ + ahead;
    if (from > static_cast<uint64_t>(std::numeric_limits<off_t>::max())) return size_t{0};
    while (true) {
      const ssize_t got = ::pread(fd_.get(), buf, std::min(n, kMaxReadRequest), static_cast<off_t>(from));
      if (got >= 0) return static_cast<size_t>(got);
      if (errno != EINTR) return Status::IoError(ErrnoMessage(path_, errno));
    }
  }

  Result<size_t> Read(char* buf, size_t n) override {
    if (!error_.ok()) return error_;
    if (at_end_ || n == 0) return size_t{0};
    const size_t want = std::min(n, kMaxReadRequest);
    while (true) {
      const ssize_t got = ::read(fd_.get(), buf, want);
      if (got >= 0) {
        position_ += static_cast<uint64_t>(got);
        at_end_ = static_cast<size_t>(got) < want && position_ >= size_at_open_;
        return static_cast<size_t>(got);
      }
      if (errno == EINTR) continue;
      if (errno == EAGAIN && !blocking_) {
        // A regular file opened with O_NONBLOCK (see OpenChecked) reads as
        // if blocking on local file systems; one that says "try again" (some
        // network or FUSE file systems) is set to blocking, once.
        blocking_ = true;
        const int fl = ::fcntl(fd_.get(), F_GETFL);
        if (fl >= 0 && ::fcntl(fd_.get(), F_SETFL, fl & ~O_NONBLOCK) == 0) continue;
      }
      error_ = Status::IoError(ErrnoMessage(path_, errno));
      return error_;
    }
  }

 private:
  UniqueFd fd_;
  std::string path_;
  Status error_;
  bool blocking_ = false;        // O_NONBLOCK was cleared after an EAGAIN
  const bool seekable_;          // a regular file: ReadAhead() by pread
  const uint64_t size_at_open_;  // st_size at open of a regular file, else (and for 0) UINT64_MAX
  uint64_t position_ = 0;        // bytes Read() so far: the file offset
  bool at_end_ = false;          // Read() returns 0 without reading again
};

// open(2) of `path`, retried on EINTR: the descriptor, or -1 with errno.
int OpenRetrying(const char* path, int flags) {
  int fd;
  do {
    fd = ::open(path, flags);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

// The directory of the last file a thread opened with OpenExpected(), open
// with O_PATH once two files in a row lie in it. The walk's order keeps a
// directory's files together, so the next file is mostly opened relative to
// it: the kernel looks up one name, not every component of the path again
// (5% of a scan of 100k small files). Files read in another order (exact
// verification reads the documents of a group of pairs together, from any
// folder) are opened by their whole path: one open() where a directory
// opened for one file would cost three calls. The caller checks what it
// opened against the walk's identity and opens by the whole path when that
// fails, so a directory moved or replaced since costs a second open(), never
// another file.
struct LastDir {
  std::string path;  // up to and with its last '/'
  UniqueFd fd{-1};   // -1 until a second file in a row lies in `path`
};
thread_local LastDir t_last_dir;

// `path` opened relative to the thread's LastDir (opened first when the
// file before lay in the same directory): the descriptor, or -1 (the
// caller opens by the whole path).
int OpenInLastDir(const std::string& path, int flags) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash + 1 == path.size()) return -1;
  const std::string_view dir(path.data(), slash + 1);
  if (t_last_dir.path != dir) {
    t_last_dir.fd = UniqueFd(-1);
    t_last_dir.path = dir;
    return -1;
  }
  if (t_last_dir.fd.get() < 0) {
    const int fd = OpenRetrying(t_last_dir.path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    t_last_dir.fd = UniqueFd(fd);
  }
  int fd;
  do {
    fd = ::openat(t_last_dir.fd.get(), path.c_str() + slash + 1, flags);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

class PosixFileSystem final : public FileSystem {
 public:
  Result<std::unique_ptr<ByteReader>> Open(const std::string& path) override { return OpenChecked(path, nullptr); }

  Result<std::unique_ptr<ByteReader>> OpenExpected(const std::string& path, const FileIdentity& expected) override {
    return OpenChecked(path, &expected);
  }

  Result<FileStat> Stat(const std::string& path) override {
    struct stat st;
    if (::stat(SystemPath(path).c_str(), &st) != 0) return StatErrnoStatus(path, errno);  // "-" is stdin
    return ToFileStat(st);
  }

  Result<std::unique_ptr<Directory>> OpenDir(const std::string& path, bool follow_symlink) override {
    const int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow_symlink ? 0 : O_NOFOLLOW);
    int fd;
    do {
      fd = ::open(path.c_str(), flags);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return ErrnoStatus(path, errno);
    DIR* const dir = ::fdopendir(fd);
    if (dir == nullptr) {
      const int err = errno;
      ::close(fd);
      return ErrnoStatus(path, err);
    }
    return std::unique_ptr<Directory>(std::make_unique<PosixDirectory>(dir, path));
  }

 private:
  // Opens without blocking, checks what was opened, then makes reads blocking.
  static Result<std::unique_ptr<ByteReader>> OpenChecked(const std::string& path, const FileIdentity* expected) {
    const bool stream = expected != nullptr && expected->stream;
    // A stream named by the user is opened as cat(1) opens it: a FIFO waits
    // for its writer. Anything else must not wait: O_NONBLOCK makes opening a
    // FIFO (swapped in since the walk) return at once, and fstat() refuses it.
    const int flags = O_RDONLY | O_CLOEXEC | (stream ? 0 : O_NONBLOCK);
    UniqueFd fd(-1);
    struct stat st;
    if (expected != nullptr && !stream) {
      UniqueFd near(OpenInLastDir(path, flags));
      if (near.get() >= 0 && ::fstat(near.get(), &st) == 0 && static_cast<uint64_t>(st.st_dev) == expected->dev &&
          static_cast<uint64_t>(st.st_ino) == expected->ino) {
        fd = std::move(near);
      }
    }
    if (fd.get() < 0) {
      const int raw = OpenRetrying(SystemPath(path).c_str(), flags);
      if (raw < 0) return ErrnoStatus(path, errno);
      fd = UniqueFd(raw);
      if (::fstat(fd.get(), &st) != 0) return ErrnoStatus(path, errno);
    }
    if (S_ISDIR(st.st_mode)) return Status::IoError(ErrnoMessage(path, EISDIR));
    if (expected != nullptr &&
        (static_cast<uint64_t>(st.st_dev) != expected->dev || static_cast<uint64_t>(st.st_ino) != expected->ino)) {
      return Status::Changed(ShellQuoted(path) + ": replaced since it was listed (another file is there now)");
    }
    if (!stream && !S_ISREG(st.st_mode)) {
      if (expected != nullptr) {
        return Status::Changed(ShellQuoted(path) + ": no longer a regular file since it was listed");
      }
      return Status::IoError(ShellQuoted(path) + ": not a regular file");
    }
    // A regular file keeps O_NONBLOCK: it has no effect on reading one (two
    // fcntl calls a file saved; PosixReader::Read clears it on EAGAIN).
    return std::unique_ptr<ByteReader>(std::make_unique<PosixReader>(std::move(fd), path, st));
  }
};

// Decodes a gzip (or zlib) stream, including several gzip members written one
// after another, as gzip(1) does.
class GzipByteReader final : public ByteReader {
 public:
  GzipByteReader(std::unique_ptr<ByteReader> inner, std::string path)
      : inner_(std::move(inner)),
        path_(std::move(path)),
        input_(std::make_unique_for_overwrite<char[]>(kInputBufferSize)) {
    // 15 + 32: largest window, detect a gzip or zlib header automatically.
    const int rc = inflateInit2(&zs_, 15 + 32);
    if (rc == Z_OK) {
      initialized_ = true;
    } else {
      error_ = Status::Internal(ShellQuoted(path_) + ": cannot initialize zlib: " + zError(rc));
    }
  }
  // z_stream points back at itself through its state: not movable, and the
  // base class already forbids copies.
  ~GzipByteReader() override {
    if (initialized_) inflateEnd(&zs_);
  }

  Result<size_t> Read(char* buf, size_t n) override {
    if (!error_.ok()) return error_;
    if (n == 0 || done_) return size_t{0};
    const auto want = static_cast<uInt>(std::min<size_t>(n, UINT_MAX));
    zs_.next_out = reinterpret_cast<Bytef*>(buf);
    zs_.avail_out = want;
    while (zs_.avail_out == want) {
      if (zs_.avail_in == 0 && !inner_eof_) {
        if (Status s = Refill(); !s.ok()) return Fail(std::move(s));
      }
      if (member_ended_) {
        if (zs_.avail_in == 0) {  // and the input is at its end: a clean finish
          done_ = true;
          break;
        }
        // More bytes after a complete member: the next member starts.
        inflateReset(&zs_);
        member_ended_ = false;
      }
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        member_ended_ = true;
      } else if (rc == Z_BUF_ERROR) {
        // No progress was possible: inflate needs input we do not have.
        if (zs_.avail_in != 0) return Fail(Status::Corrupt(ShellQuoted(path_) + ": invalid gzip data"));
        if (inner_eof_) return Fail(Status::Corrupt(ShellQuoted(path_) + ": truncated gzip stream"));
      } else if (rc != Z_OK) {
        const char* why = zs_.msg != nullptr ? zs_.msg : zError(rc);
        if (rc == Z_MEM_ERROR) return Fail(Status::Internal(ShellQuoted(path_) + ": " + why));
        return Fail(Status::Corrupt(ShellQuoted(path_) + ": invalid gzip data: " + why));
      }
    }
    return static_cast<size_t>(want - zs_.avail_out);
  }

 private:
  Status Refill() {
    Result<size_t> got = inner_->Read(input_.get(), kInputBufferSize);
    if (!got.ok()) return got.status();
    if (*got == 0) {
      inner_eof_ = true;
    } else {
      zs_.next_in = reinterpret_cast<Bytef*>(input_.get());
      zs_.avail_in = static_cast<uInt>(*got);
    }
    return Status::Ok();
  }

  Status Fail(Status s) {
    error_ = std::move(s);
    return error_;
  }

  std::unique_ptr<ByteReader> inner_;
  std::string path_;
  std::unique_ptr<char[]> input_;
  z_stream zs_{};
  bool initialized_ = false;
  bool inner_eof_ = false;
  bool member_ended_ = false;  // the last inflate() finished a member
  bool done_ = false;
  Status error_;
};

// Decodes a zstd stream of one or more frames.
class ZstdByteReader final : public ByteReader {
 public:
  ZstdByteReader(std::unique_ptr<ByteReader> inner, std::string path)
      : inner_(std::move(inner)),
        path_(std::move(path)),
        input_(std::make_unique_for_overwrite<char[]>(kInputBufferSize)),
        dctx_(ZSTD_createDCtx()) {
    if (dctx_ == nullptr) error_ = Status::Internal(ShellQuoted(path_) + ": cannot create a zstd context");
  }
  ~ZstdByteReader() override { ZSTD_freeDCtx(dctx_); }

  Result<size_t> Read(char* buf, size_t n) override {
    if (!error_.ok()) return error_;
    if (n == 0 || done_) return size_t{0};
    ZSTD_outBuffer out{buf, n, 0};
    while (out.pos == 0) {
      if (in_.pos == in_.size && !inner_eof_) {
        if (Status s = Refill(); !s.ok()) return Fail(std::move(s));
      }
      const bool input_exhausted = in_.pos == in_.size && inner_eof_;
      if (input_exhausted && frame_ended_) {
        done_ = true;
        break;
      }
      // Called even without input: the decoder may still hold output to flush.
      const size_t rc = ZSTD_decompressStream(dctx_, &out, &in_);
      if (ZSTD_isError(rc)) {
        return Fail(Status::Corrupt(ShellQuoted(path_) + ": invalid zstd data: " + ZSTD_getErrorName(rc)));
      }
      frame_ended_ = rc == 0;
      if (input_exhausted && !frame_ended_ && out.pos == 0) {
        return Fail(Status::Corrupt(ShellQuoted(path_) + ": truncated zstd stream"));
      }
    }
    return out.pos;
  }

 private:
  Status Refill() {
    Result<size_t> got = inner_->Read(input_.get(), kInputBufferSize);
    if (!got.ok()) return got.status();
    in_ = ZSTD_inBuffer{input_.get(), *got, 0};
    if (*got == 0) inner_eof_ = true;
    return Status::Ok();
  }

  Status Fail(Status s) {
    error_ = std::move(s);
    return error_;
  }

  std::unique_ptr<ByteReader> inner_;
  std::string path_;
  std::unique_ptr<char[]> input_;
  ZSTD_DCtx* const dctx_;  // owned; freed in the destructor
  ZSTD_inBuffer in_{nullptr, 0, 0};
  bool inner_eof_ = false;
  // The last call completed a frame. Starts false, so an empty file is
  // reported as truncated, as zstd(1) does.
  bool frame_ended_ = false;
  bool done_ = false;
  Status error_;
};

}  // namespace

FileSystem& FileSystem::Default() {
  // Trivially destructible state, so a function-local static is safe at exit.
  static PosixFileSystem file_system;
  return file_system;
}

Result<std::unique_ptr<ByteReader>> FileSystem::OpenExpected(const std::string& path,
                                                             const FileIdentity& /*expected*/) {
  return Open(path);
}

Result<std::unique_ptr<Directory>> FileSystem::OpenDir(const std::string& path, bool follow_symlink) {
  return Default().OpenDir(path, follow_symlink);
}

namespace {

Result<std::unique_ptr<ByteReader>> WithDecoder(Result<std::unique_ptr<ByteReader>> raw, const std::string& path) {
  if (!raw.ok()) return raw;
  if (EndsWith(path, ".gz")) return GzipReader(std::move(*raw), path);
  if (EndsWith(path, ".zst")) return ZstdReader(std::move(*raw), path);
  return raw;
}

}  // namespace

Result<std::unique_ptr<ByteReader>> OpenInput(FileSystem& fs, const std::string& path) {
  return WithDecoder(fs.Open(path), path);
}

Result<std::unique_ptr<ByteReader>> OpenInput(FileSystem& fs, const std::string& path, const FileIdentity& expected) {
  return WithDecoder(fs.OpenExpected(path, expected), path);
}

bool CompressedName(std::string_view path) { return EndsWith(path, ".gz") || EndsWith(path, ".zst"); }

Result<bool> DecompressedLargerThan(FileSystem& fs, const std::string& path, const FileIdentity& expected,
                                    uint64_t limit) {
  if (!CompressedName(path)) return false;
  Result<std::unique_ptr<ByteReader>> in = OpenInput(fs, path, expected);
  if (!in.ok()) return in.status();
  const auto buf = std::make_unique_for_overwrite<char[]>(kInputBufferSize);
  uint64_t total = 0;
  while (total <= limit) {
    Result<size_t> got = (*in)->Read(buf.get(), kInputBufferSize);
    if (!got.ok()) return got.status();
    if (*got == 0) break;
    total += *got;
  }
  return total > limit;
}

std::unique_ptr<ByteReader> GzipReader(std::unique_ptr<ByteReader> inner, std::string path) {
  return std::make_unique<GzipByteReader>(std::move(inner), std::move(path));
}

std::unique_ptr<ByteReader> ZstdReader(std::unique_ptr<ByteReader> inner, std::string path) {
  return std::make_unique<ZstdByteReader>(std::move(inner), std::move(path));
}

}  // namespace neardup
