#include "walk/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include "neardup/quote.h"

namespace neardup {

namespace {

constexpr size_t kBufferBytes = size_t{1} << 20;

Status Errno(const std::string& path, const char* what, int error) {
  return Status::IoError(ShellQuoted(path) + ": " + what + ": " + std::strerror(error));
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

// Whether /proc/self/fd names this process's descriptors: an anonymous
// file (O_TMPFILE) or an opened input is linked into place through it.
bool HasProcFd() {
  static const bool has = ::access("/proc/self/fd", X_OK) == 0;
  return has;
}

// A file being written for `place`, in its folder: anonymous (O_TMPFILE: a
// process killed meanwhile leaves nothing behind) where the file system
// allows it, else under a temporary name beside its name (returned).
Result<std::string> MakeTemp(const KeptPlace& place, int* fd) {
  if (HasProcFd()) {
    *fd = ::openat(place.folder.get(), ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (*fd >= 0) return std::string();
  }
  return CreateTempBeside(place, 0600, fd);
}

// Links `from` (linkat() with AT_SYMLINK_FOLLOW) at `place`. When a regular
// file is there already (one a run before placed), the link is made under a
// temporary name beside it and renamed over it (renameat(): the file is
// replaced at once, never removed first; a run killed meanwhile leaves the
// old file or the new one, and at most that temporary name, which a filter
// task run again removes). Anything else there (a symbolic link, a folder)
// fails, EEXIST. Returns linkat()'s or renameat()'s errno, 0 on success.
int LinkReplacing(const char* from, const KeptPlace& place) {
  const int folder = place.folder.get();
  if (::linkat(AT_FDCWD, from, folder, place.name.c_str(), AT_SYMLINK_FOLLOW) == 0) return 0;
  if (errno != EEXIST) return errno;
  struct stat there {};
  if (::fstatat(folder, place.name.c_str(), &there, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(there.st_mode)) {
    return EEXIST;
  }
  static std::atomic<uint64_t> counter{0};
  for (;;) {
    std::string temp = ".";
    temp.append(place.name).append(".neardup-").append(std::to_string(::getpid()));
    temp.append("-").append(std::to_string(counter.fetch_add(1)));
    if (::linkat(AT_FDCWD, from, folder, temp.c_str(), AT_SYMLINK_FOLLOW) != 0) {
      if (errno == EEXIST) continue;
      return errno;
    }
    // rename() of two names of one file does nothing: the temporary name is
    // then removed here (it is this process's own).
    const int error = ::renameat(folder, temp.c_str(), folder, place.name.c_str()) == 0 ? 0 : errno;
    ::unlinkat(folder, temp.c_str(), 0);
    return error;
  }
}

// Puts the file written through `fd` at `place`: an anonymous one linked in
// whole (replacing a regular file there at once, failing on anything else
// there, a symbolic link too: LinkReplacing()), a named one renamed into
// place (replacing what is there, never following it); then closes `fd`. On
// an error nothing is left at `temp`, and the name is as it was.
Status Publish(int fd, const std::string& temp, const KeptPlace& place) {
  const int folder = place.folder.get();
  const char* name = place.name.c_str();
  Status s = Status::Ok();
  if (temp.empty()) {
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    if (const int error = LinkReplacing(self.c_str(), place); error != 0) {
      s = Errno(place.path, "cannot link into place", error);
    }
    if (::close(fd) != 0 && s.ok()) {
      s = Errno(place.path, "cannot write", errno);
      ::unlinkat(folder, name, 0);
    }
    return s;
  }
  if (::close(fd) != 0) s = Errno(place.path, "cannot write", errno);
  if (s.ok() && ::renameat(folder, temp.c_str(), folder, name) != 0) {
    s = Errno(place.path, "cannot rename into place", errno);
  }
  if (!s.ok()) ::unlinkat(folder, temp.c_str(), 0);
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

Result<std::unique_ptr<OutputFile>> OutputFile::Create(KeptPlace place, int threads, unsigned mode) {
  const std::string& path = place.name;
  std::unique_ptr<Codec> codec;
  if (EndsWith(path, ".gz")) {
    codec = std::make_unique<Codec>();
    if (deflateInit2(&codec->z, kGzipLevel, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      return Status::IoError(ShellQuoted(place.path) + ": cannot start gzip");
    }
  } else if (EndsWith(path, ".zst")) {
    codec = std::make_unique<Codec>();
    codec->zstd = true;
    codec->cctx = ZSTD_createCCtx();
    if (codec->cctx == nullptr ||
        ZSTD_isError(ZSTD_CCtx_setParameter(codec->cctx, ZSTD_c_compressionLevel, kZstdLevel))) {
      return Status::IoError(ShellQuoted(place.path) + ": cannot start zstd");
    }
    // Workers from 1 up give the same bytes; a libzstd without threads
    // refuses the parameter and compresses on the calling thread.
    (void)ZSTD_CCtx_setParameter(codec->cctx, ZSTD_c_nbWorkers, std::max(1, threads));
  }
  int fd = -1;
  Result<std::string> temp = MakeTemp(place, &fd);
  if (!temp.ok()) return temp.status();
  // Permission bits only: never a setuid, setgid or sticky bit.
  if (::fchmod(fd, static_cast<mode_t>(mode & 0777)) != 0) {
    const int error = errno;
    ::close(fd);
    if (!temp->empty()) ::unlinkat(place.folder.get(), temp->c_str(), 0);
    return Errno(place.path, "cannot set its mode", error);
  }
  return std::unique_ptr<OutputFile>(new OutputFile(std::move(place), std::move(*temp), fd, std::move(codec)));
}

OutputFile::OutputFile(KeptPlace place, std::string temp, int fd, std::unique_ptr<Codec> codec)
    : place_(std::move(place)), temp_(std::move(temp)), fd_(fd), codec_(std::move(codec)) {
  buffer_.reserve(kBufferBytes);
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlinkat(place_.folder.get(), temp_.c_str(), 0);
}

Status OutputFile::Flush(std::string_view bytes) {
  const int fd = fd_;
  auto sink = [fd](const char* data, size_t n) { return WriteAll(fd, data, n); };
  const bool ok = codec_ != nullptr ? codec_->Feed(bytes, false, sink) : sink(bytes.data(), bytes.size());
  return ok ? Status::Ok() : Errno(place_.path, "cannot write", errno);
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
      if (done <= 0) return Errno(place_.path, "cannot write", errno);
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
  if (!ok) return Errno(place_.path, "cannot write", errno);
  const int fd_done = fd_;
  fd_ = -1;
  if (Status s = Publish(fd_done, temp_, place_); !s.ok()) {
    committed_ = true;  // Publish() removed the temporary file
    return s;
  }
  committed_ = true;
  return Status::Ok();
}

namespace {

// Copies the open `in` to `out_fd`, then gives it `st`'s permission bits
// (no setuid, setgid or sticky bit) and times.
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
  return ::fchmod(out_fd, st.st_mode & 0777) == 0 && ::futimens(out_fd, times) == 0;
}

bool Same(const struct stat& st, const PlacedFrom& expected, bool ctime) {
  return static_cast<uint64_t>(st.st_size) == expected.size && Nanos(st.st_mtim) == expected.mtime_ns &&
         (!ctime || Nanos(st.st_ctim) == expected.ctime_ns) && static_cast<uint64_t>(st.st_dev) == expected.dev &&
         static_cast<uint64_t>(st.st_ino) == expected.ino;
}

Status Changed(const std::string& source) {
  return Status::Changed(ShellQuoted(source) + ": changed since it was signed");
}

// Copies the open `in` (as signed: `before`) into a file written for
// `place`, checked to be as signed after, and puts it in place.
Status CopyInto(int in, const struct stat& before, const std::string& source, const PlacedFrom& expected,
                const KeptPlace& place) {
  int out_fd = -1;
  Result<std::string> temp = MakeTemp(place, &out_fd);
  if (!temp.ok()) return temp.status();
  const bool copied = CopyBytes(in, out_fd, before);
  const int error = errno;
  struct stat after {};
  Status s = Status::Ok();
  if (::fstat(in, &after) != 0 || !Same(after, expected, true)) {
    s = Changed(source);
  } else if (!copied) {
    s = Errno(place.path, "cannot copy", error);
  }
  if (!s.ok()) {
    ::close(out_fd);
    if (!temp->empty()) ::unlinkat(place.folder.get(), temp->c_str(), 0);
    return s;
  }
  return Publish(out_fd, *temp, place);
}

// Whether the writer may link `st` rather than copy it: a regular file
// without a setuid or setgid bit, owned by the user running. (A link shares
// the file's owner and bits; a copy is the writer's own, without them.)
bool Linkable(const struct stat& st) {
  return S_ISREG(st.st_mode) && (st.st_mode & (S_ISUID | S_ISGID)) == 0 && st.st_uid == ::geteuid();
}

// A hard link at `place` to the file open as `in` (`source`). Ok(false)
// when the file system cannot link it there (another device, no links).
Result<bool> Link(int in, const std::string& source, const PlacedFrom& expected, const KeptPlace& place) {
  const int folder = place.folder.get();
  const char* name = place.name.c_str();
  // link() makes the whole file appear at once (and replaces one there at once).
  // Through /proc, the link is to the file opened, whatever its path names now.
  const std::string self = "/proc/self/fd/" + std::to_string(in);
  const char* from = HasProcFd() ? self.c_str() : source.c_str();
  if (const int error = LinkReplacing(from, place); error != 0) {
    if (error == EXDEV || error == EPERM || error == EMLINK) return false;
    return Errno(place.path, "cannot link", error);
  }
  // link() changes the change time; the rest must still be as signed.
  struct stat st {};
  if (::fstatat(folder, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !Same(st, expected, false)) {
    ::unlinkat(folder, name, 0);
    return Changed(source);
  }
  return true;
}

}  // namespace

Status LinkOrCopy(const std::string& source, const PlacedFrom& expected, KeptPlace place, bool may_link) {
  const int in = ::open(source.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (in < 0) return errno == ENOENT ? Changed(source) : Errno(source, "cannot open", errno);
  struct stat before {};
  Status s = Status::Ok();
  if (::fstat(in, &before) != 0 || !S_ISREG(before.st_mode) || !Same(before, expected, true)) {
    s = Changed(source);
  } else {
    bool linked = false;
    if (may_link && Linkable(before)) {
      Result<bool> made = Link(in, source, expected, place);
      if (!made.ok()) s = made.status();
      linked = made.ok() && *made;
    }
    if (s.ok() && !linked) s = CopyInto(in, before, source, expected, place);
  }
  ::close(in);
  return s;
}

}  // namespace neardup
