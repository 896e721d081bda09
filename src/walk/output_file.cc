#include "walk/output_file.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <climits>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace neardup {

namespace {

namespace fs = std::filesystem;

constexpr size_t kBufferBytes = size_t{1} << 20;

Status Errno(const std::string& path, const char* what, int error) {
  return Status::IoError(path + ": " + what + ": " + std::strerror(error));
}

bool EndsWith(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Writes all of `bytes` to `fd`.
bool WriteAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t done = ::write(fd, data, n);
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) return false;
    data += done;
    n -= static_cast<size_t>(done);
  }
  return true;
}

// A file being written for `path`, in its folder (made first): anonymous
// (O_TMPFILE: a process killed meanwhile leaves nothing behind) where the
// file system allows it, else under a temporary name beside `path`.
Result<std::string> MakeTemp(const std::string& path, int* fd) {
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IoError(dir.string() + ": " + ec.message());
  if (::access("/proc/self/fd", X_OK) == 0) {
    *fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (*fd >= 0) return std::string();
  }
  std::string name = ".";
  name.append(target.filename().string()).append(".neardup-XXXXXX");
  std::string temp = (dir / name).string();
  *fd = ::mkstemp(temp.data());
  if (*fd < 0) return Errno(temp, "cannot create", errno);
  return temp;
}

// Links `from` (linkat() with AT_SYMLINK_FOLLOW) at `path`. When `path`
// exists, the link is made under a temporary name beside it and renamed over
// it: a file that was there is replaced at once, never removed first (a run
// killed meanwhile leaves the old file or the new one, and at most that
// temporary name). Returns linkat()'s or rename()'s errno, 0 on success.
int LinkReplacing(const char* from, const std::string& path) {
  if (::linkat(AT_FDCWD, from, AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0) return 0;
  if (errno != EEXIST) return errno;
  const fs::path target(path);
  static std::atomic<uint64_t> counter{0};
  for (;;) {
    std::string name = ".";
    name.append(target.filename().string()).append(".neardup-").append(std::to_string(::getpid()));
    name.append("-").append(std::to_string(counter.fetch_add(1)));
    const std::string temp = (target.parent_path() / name).string();
    if (::linkat(AT_FDCWD, from, AT_FDCWD, temp.c_str(), AT_SYMLINK_FOLLOW) != 0) {
      if (errno == EEXIST) continue;
      return errno;
    }
    // rename() of two names of one file does nothing: the temporary name is
    // then removed here (it is this process's own).
    const int error = ::rename(temp.c_str(), path.c_str()) == 0 ? 0 : errno;
    ::unlink(temp.c_str());
    return error;
  }
}

// Puts the file written through `fd` at `path` (replacing a file there at
// once): an anonymous one linked in whole, a named one renamed into place;
// then closes `fd`. On an error nothing is left at `temp`, and `path` is as
// it was.
Status Publish(int fd, const std::string& temp, const std::string& path) {
  Status s = Status::Ok();
  if (temp.empty()) {
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    if (const int error = LinkReplacing(self.c_str(), path); error != 0) {
      s = Errno(path, "cannot link into place", error);
    }
    if (::close(fd) != 0 && s.ok()) {
      s = Errno(path, "cannot write", errno);
      ::unlink(path.c_str());
    }
    return s;
  }
  if (::close(fd) != 0) s = Errno(path, "cannot write", errno);
  if (s.ok() && ::rename(temp.c_str(), path.c_str()) != 0) s = Errno(path, "cannot rename into place", errno);
  if (!s.ok()) ::unlink(temp.c_str());
  return s;
}

int64_t Nanos(const struct timespec& t) { return int64_t{t.tv_sec} * 1000000000 + t.tv_nsec; }

}  // namespace

// The compressor of a ".gz" or ".zst" file: plain bytes in, compressed
// bytes out through `sink`.
struct OutputFile::Codec {
  bool zstd = false;
  z_stream z{};
  ZSTD_CCtx* cctx = nullptr;
  std::vector<char> out = std::vector<char>(kBufferBytes);

  ~Codec() {
    if (cctx != nullptr) ZSTD_freeCCtx(cctx);
    if (!zstd) deflateEnd(&z);
  }
  // Compresses `bytes` (all of them when `end`, then ends the stream).
  template <typename Sink>
  bool Feed(std::string_view bytes, bool end, Sink&& sink) {
    return zstd ? FeedZstd(bytes, end, sink) : FeedGzip(bytes, end, sink);
  }
  template <typename Sink>
  bool FeedZstd(std::string_view bytes, bool end, Sink& sink) {
    ZSTD_inBuffer in{bytes.data(), bytes.size(), 0};
    const ZSTD_EndDirective mode = end ? ZSTD_e_end : ZSTD_e_continue;
    for (;;) {
      ZSTD_outBuffer o{out.data(), out.size(), 0};
      const size_t left = ZSTD_compressStream2(cctx, &o, &in, mode);
      if (ZSTD_isError(left)) return false;
      if (o.pos > 0 && !sink(out.data(), o.pos)) return false;
      if (end ? left == 0 : in.pos == in.size) return true;
    }
  }
  template <typename Sink>
  bool FeedGzip(std::string_view bytes, bool end, Sink& sink) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = static_cast<uInt>(bytes.size());
    for (;;) {
      z.next_out = reinterpret_cast<Bytef*>(out.data());
      z.avail_out = static_cast<uInt>(out.size());
      const int rc = deflate(&z, end ? Z_FINISH : Z_NO_FLUSH);
      if (rc == Z_STREAM_ERROR) return false;
      const size_t made = out.size() - z.avail_out;
      if (made > 0 && !sink(out.data(), made)) return false;
      if (end ? rc == Z_STREAM_END : (z.avail_in == 0 && z.avail_out != 0)) return true;
    }
  }
};

Result<std::unique_ptr<OutputFile>> OutputFile::Create(const std::string& path, int threads, unsigned mode) {
  std::unique_ptr<Codec> codec;
  if (EndsWith(path, ".gz")) {
    codec = std::make_unique<Codec>();
    if (deflateInit2(&codec->z, kGzipLevel, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      return Status::IoError(path + ": cannot start gzip");
    }
  } else if (EndsWith(path, ".zst")) {
    codec = std::make_unique<Codec>();
    codec->zstd = true;
    codec->cctx = ZSTD_createCCtx();
    if (codec->cctx == nullptr ||
        ZSTD_isError(ZSTD_CCtx_setParameter(codec->cctx, ZSTD_c_compressionLevel, kZstdLevel))) {
      return Status::IoError(path + ": cannot start zstd");
    }
    // Workers from 1 up give the same bytes; a libzstd without threads
    // refuses the parameter and compresses on the calling thread.
    (void)ZSTD_CCtx_setParameter(codec->cctx, ZSTD_c_nbWorkers, std::max(1, threads));
  }
  int fd = -1;
  Result<std::string> temp = MakeTemp(path, &fd);
  if (!temp.ok()) return temp.status();
  if (::fchmod(fd, static_cast<mode_t>(mode & 07777)) != 0) {
    const int error = errno;
    ::close(fd);
    if (!temp->empty()) ::unlink(temp->c_str());
    return Errno(path, "cannot set its mode", error);
  }
  return std::unique_ptr<OutputFile>(new OutputFile(path, std::move(*temp), fd, std::move(codec)));
}

OutputFile::OutputFile(std::string path, std::string temp, int fd, std::unique_ptr<Codec> codec)
    : path_(std::move(path)), temp_(std::move(temp)), fd_(fd), codec_(std::move(codec)) {
  buffer_.reserve(kBufferBytes);
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

Status OutputFile::Flush(std::string_view bytes) {
  const int fd = fd_;
  auto sink = [fd](const char* data, size_t n) { return WriteAll(fd, data, n); };
  const bool ok = codec_ != nullptr ? codec_->Feed(bytes, false, sink) : sink(bytes.data(), bytes.size());
  return ok ? Status::Ok() : Errno(path_, "cannot write", errno);
}

Status OutputFile::Write(std::string_view bytes) {
  if (buffer_.size() + bytes.size() <= kBufferBytes) {
    buffer_.append(bytes);
    return Status::Ok();
  }
  if (Status s = Flush(buffer_); !s.ok()) return s;
  buffer_.clear();
  if (bytes.size() >= kBufferBytes) return Flush(bytes);
  buffer_.append(bytes);
  return Status::Ok();
}

Status OutputFile::Write(std::span<const std::string_view> pieces) {
  if (codec_ != nullptr) {
    for (std::string_view piece : pieces) {
      if (Status s = Write(piece); !s.ok()) return s;
    }
    return Status::Ok();
  }
  if (!buffer_.empty()) {
    if (Status s = Flush(buffer_); !s.ok()) return s;
    buffer_.clear();
  }
  std::vector<struct iovec> iov;
  iov.reserve(std::min<size_t>(pieces.size(), IOV_MAX));
  for (size_t k = 0; k < pieces.size();) {
    iov.clear();
    for (; k < pieces.size() && iov.size() < IOV_MAX; ++k) {
      if (!pieces[k].empty()) iov.push_back({const_cast<char*>(pieces[k].data()), pieces[k].size()});
    }
    // writev() may take less than all: the rest goes on from where it stopped.
    size_t first = 0;
    while (first < iov.size()) {
      const auto count = static_cast<int>(iov.size() - first);
      const ssize_t done = ::writev(fd_, iov.data() + first, count);
      if (done < 0 && errno == EINTR) continue;
      if (done <= 0) return Errno(path_, "cannot write", errno);
      auto left = static_cast<size_t>(done);
      while (first < iov.size() && left >= iov[first].iov_len) left -= iov[first++].iov_len;
      if (left > 0) {
        iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + left;
        iov[first].iov_len -= left;
      }
    }
  }
  return Status::Ok();
}

Status OutputFile::Commit() {
  const int fd = fd_;
  auto sink = [fd](const char* data, size_t n) { return WriteAll(fd, data, n); };
  bool ok = codec_ != nullptr ? codec_->Feed(buffer_, true, sink) : sink(buffer_.data(), buffer_.size());
  buffer_.clear();
  if (!ok) return Errno(path_, "cannot write", errno);
  const int fd_done = fd_;
  fd_ = -1;
  if (Status s = Publish(fd_done, temp_, path_); !s.ok()) {
    committed_ = true;  // Publish() removed the temporary file
    return s;
  }
  committed_ = true;
  return Status::Ok();
}

namespace {

// Copies the open `in` to `out_fd`, then gives it `st`'s mode and times.
bool CopyBytes(int in, int out_fd, const struct stat& st) {
  std::vector<char> buf(kBufferBytes);
  for (;;) {
    const ssize_t got = ::read(in, buf.data(), buf.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return false;
    if (got == 0) break;
    if (!WriteAll(out_fd, buf.data(), static_cast<size_t>(got))) return false;
  }
  const struct timespec times[2] = {st.st_atim, st.st_mtim};
  return ::fchmod(out_fd, st.st_mode & 07777) == 0 && ::futimens(out_fd, times) == 0;
}

bool Same(const struct stat& st, const PlacedFrom& expected, bool ctime) {
  return static_cast<uint64_t>(st.st_size) == expected.size && Nanos(st.st_mtim) == expected.mtime_ns &&
         (!ctime || Nanos(st.st_ctim) == expected.ctime_ns) && static_cast<uint64_t>(st.st_dev) == expected.dev &&
         static_cast<uint64_t>(st.st_ino) == expected.ino;
}

Status Changed(const std::string& source) { return Status::Changed(source + ": changed since it was signed"); }

// Copies `source` into `out_fd` (not closed here), checked to be as signed
// before and after.
Status CopyTo(const std::string& source, const PlacedFrom& expected, const std::string& target, int out_fd) {
  const int in = ::open(source.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (in < 0) return errno == ENOENT ? Changed(source) : Errno(source, "cannot open", errno);
  struct stat before {};
  struct stat after {};
  bool ok = ::fstat(in, &before) == 0 && Same(before, expected, true);
  const bool copied = ok && CopyBytes(in, out_fd, before);
  const int error = errno;
  ok = ok && ::fstat(in, &after) == 0 && Same(after, expected, true);
  ::close(in);
  if (!ok) return Changed(source);
  return copied ? Status::Ok() : Errno(target, "cannot copy", error);
}

// A hard link at `target` to the file `source` names (through a symbolic
// link, -L, to the file it names). Ok(false) when the file system cannot
// link it there (another device, no links).
Result<bool> Link(const std::string& source, const PlacedFrom& expected, const std::string& target) {
  struct stat st {};
  if (::stat(source.c_str(), &st) != 0 || !Same(st, expected, true)) return Changed(source);
  std::error_code ec;
  const fs::path dir = fs::path(target).parent_path();
  if (!dir.empty()) fs::create_directories(dir, ec);
  if (ec) return Status::IoError(dir.string() + ": " + ec.message());
  // link() makes the whole file appear at once (and replaces a file there at once).
  if (const int error = LinkReplacing(source.c_str(), target); error != 0) {
    if (error == EXDEV || error == EPERM || error == EMLINK) return false;
    return Errno(source, "cannot link", error);
  }
  // link() changes the change time; the rest must still be as signed.
  if (::lstat(target.c_str(), &st) != 0 || !Same(st, expected, false)) {
    ::unlink(target.c_str());
    return Changed(source);
  }
  return true;
}

}  // namespace

Status LinkOrCopy(const std::string& source, const PlacedFrom& expected, const std::string& target, bool copy) {
  if (!copy) {
    Result<bool> linked = Link(source, expected, target);
    if (!linked.ok() || *linked) return linked.status();
  }
  int fd = -1;
  Result<std::string> temp = MakeTemp(target, &fd);
  if (!temp.ok()) return temp.status();
  if (Status s = CopyTo(source, expected, target, fd); !s.ok()) {
    ::close(fd);
    if (!temp->empty()) ::unlink(temp->c_str());
    return s;
  }
  return Publish(fd, *temp, target);
}

}  // namespace neardup
