#include "text/document_source.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "base/temp_file.h"
#include "neardup/quote.h"

namespace neardup {

namespace {

Status TempError(const char* what) {
  return Status::IoError(std::string("temporary file for a copy of a stream in ") + ShellQuoted(TempFile::Folder()) +
                         ": " + what + ": " + std::strerror(errno));
}

// Tees a stream into a StreamCopy's file.
class RecordingReader final : public ByteReader {
 public:
  RecordingReader(std::unique_ptr<ByteReader> in, std::FILE* copy) : in_(std::move(in)), copy_(copy) {}
  Result<size_t> Read(char* buf, size_t n) override {
    Result<size_t> got = in_->Read(buf, n);
    if (got.ok() && *got > 0 && std::fwrite(buf, 1, *got, copy_) != *got) return TempError("write");
    if (got.ok() && *got == 0 && std::fflush(copy_) != 0) return TempError("write");
    return got;
  }

 private:
  std::unique_ptr<ByteReader> in_;
  std::FILE* copy_;
};

// Reads a StreamCopy's file from its start, by offset (pread), so several
// readers may share it.
class ReplayReader final : public ByteReader {
 public:
  explicit ReplayReader(std::FILE* copy) : fd_(fileno(copy)) {}
  Result<size_t> Read(char* buf, size_t n) override {
    for (;;) {
      const ssize_t got = ::pread(fd_, buf, n, static_cast<off_t>(offset_));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return TempError("read");
      offset_ += static_cast<uint64_t>(got);
      return static_cast<size_t>(got);
    }
  }

 private:
  int fd_;
  uint64_t offset_ = 0;
};

FileStat SeenAtWalk(const InputFile& f) {
  FileStat st;
  st.size = f.size;
  st.mtime_ns = f.mtime_ns;
  st.ctime_ns = f.ctime_ns;
  st.dev = f.identity.dev;
  st.ino = f.identity.ino;
  return st;
}

}  // namespace

StreamCopy::~StreamCopy() {
  if (file_ != nullptr) std::fclose(file_);
}

Result<std::unique_ptr<ByteReader>> StreamCopy::Record(std::unique_ptr<ByteReader> in) {
  Result<TempFile> temp = TempFile::Create("a copy of a stream");
  if (!temp.ok()) return temp.status();
  file_ = temp->Release();
  return std::unique_ptr<ByteReader>(std::make_unique<RecordingReader>(std::move(in), file_));
}

Result<std::unique_ptr<ByteReader>> StreamCopy::Replay() const {
  if (file_ == nullptr) return Status::IoError("no copy of the stream was made");
  return std::unique_ptr<ByteReader>(std::make_unique<ReplayReader>(file_));
}

namespace {

Result<std::unique_ptr<ByteReader>> OpenDocuments(FileSystem& fs, const InputFile& file, const Options& options) {
  if (options.input == InputFormat::kParquet)
    return OpenParquetRows(fs, file.path, file.identity, {.text = options.text_key, .id = options.id_key});
  return OpenInput(fs, file.path, file.identity);
}

}  // namespace

bool LinesAtOffsets(const InputFile& file, const Options& options) {
  return !file.identity.stream && !CompressedName(file.path) && options.input != InputFormat::kParquet;
}

Result<std::unique_ptr<ByteReader>> OpenForSigning(FileSystem& fs, const InputFile& file, StreamCopy* copy,
                                                   const Options& options) {
  Result<std::unique_ptr<ByteReader>> in = OpenDocuments(fs, file, options);
  if (!in.ok() || !file.identity.stream || copy == nullptr) return in;
  return copy->Record(std::move(*in));
}

Result<std::unique_ptr<ByteReader>> OpenAgain(FileSystem& fs, const InputFile& file, const StreamCopy* copy,
                                              const Options& options) {
  if (copy != nullptr) return copy->Replay();
  return OpenDocuments(fs, file, options);
}

Status CheckUnchanged(FileSystem& fs, const InputFile& file) {
  Result<FileStat> now = fs.Stat(file.path);
  if (!now.ok())
    return Status::Changed(ShellQuoted(file.path) + ": gone during the run (" + now.status().message() + ")");
  if (!(*now == SeenAtWalk(file))) return Status::Changed(ShellQuoted(file.path) + ": changed during the run");
  return Status::Ok();
}

JsonlBlocks::Bytes& JsonlBlocks::Bytes::operator=(Bytes&& o) noexcept {
  if (this != &o) {
    Free();
    data_ = std::exchange(o.data_, nullptr);
    capacity_ = std::exchange(o.capacity_, 0);
  }
  return *this;
}

void JsonlBlocks::Bytes::Free() {
  if (data_ == nullptr) return;
  if (capacity_ > kLargeBytes) {
    ::munmap(data_, capacity_);
  } else {
    std::free(data_);
  }
  data_ = nullptr;
  capacity_ = 0;
}

void JsonlBlocks::Bytes::Grow(size_t n, size_t keep) {
  if (n <= capacity_) return;
  if (n <= kLargeBytes) {
    char* bigger = static_cast<char*>(std::malloc(n));
    if (bigger == nullptr) throw std::bad_alloc();
    if (keep > 0) std::memcpy(bigger, data_, keep);
    Free();
    data_ = bigger;
    capacity_ = n;
    return;
  }
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t cap = (n + page - 1) / page * page;
  void* bigger = capacity_ > kLargeBytes
                     ? ::mremap(data_, capacity_, cap, MREMAP_MAYMOVE)
                     : ::mmap(nullptr, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (bigger == MAP_FAILED) throw std::bad_alloc();
  if (capacity_ <= kLargeBytes) {
    if (keep > 0) std::memcpy(bigger, data_, keep);
    Free();
  }
  data_ = static_cast<char*>(bigger);
  capacity_ = cap;
}

void JsonlBlocks::Block::Reserve(size_t n) {
  if (n > data.capacity()) data.Grow(std::max(n, 2 * data.capacity()), size);
}

Result<bool> JsonlBlocks::Next(ByteReader& in, Block* out, uint64_t* bytes_read) {
  while (!done_) {
    buf_.Reserve(buf_.size + kBlockBytes);
    Result<size_t> got = in.Read(buf_.data.get() + buf_.size, kBlockBytes);
    if (!got.ok()) return got.status();
    *bytes_read += *got;
    if (*got == 0) {
      done_ = true;  // a last line without a newline, unless it is being dropped
      if (skipping_) buf_.size = 0;
      *out = std::move(buf_);
      return true;
    }
    size_t from = buf_.size;  // the bytes before hold no newline
    buf_.size += *got;
    char* base = buf_.data.get();
    if (skipping_) {
      const void* nl = std::memchr(base + from, '\n', buf_.size - from);
      if (nl == nullptr) {
        buf_.size = 0;
        continue;
      }
      skipping_ = false;
      const char* rest = static_cast<const char*>(nl) + 1;
      buf_.size = static_cast<size_t>(base + buf_.size - rest);
      std::memmove(base, rest, buf_.size);
      from = 0;
    }
    const void* last = memrchr(base + from, '\n', buf_.size - from);
    if (last == nullptr) {
      if (buf_.size <= max_line_ + 1) {
        if (checked_ || buf_.size < kReadAheadFrom || !in.CanReadAhead()) continue;
        Result<bool> fits = EndsWithinLimit(in);
        if (!fits.ok()) return fits.status();
        checked_ = true;
        if (*fits) continue;
      }
      checked_ = false;
      buf_ = Block();  // the partial line is too long: drop it as it comes (and give its pages back)
      skipping_ = true;
      *out = Block();
      out->too_long = true;
      return true;
    }
    const size_t cut = static_cast<size_t>(static_cast<const char*>(last) + 1 - base);
    checked_ = false;
    Block next;
    next.Reserve(std::max(buf_.size - cut, kBlockBytes));
    std::memcpy(next.data.get(), base + cut, buf_.size - cut);
    next.size = buf_.size - cut;
    buf_.size = cut;
    *out = std::move(buf_);
    buf_ = std::move(next);
    return true;
  }
  return false;
}

Result<bool> JsonlBlocks::EndsWithinLimit(ByteReader& in) const {
  const uint64_t room = max_line_ + 1 - buf_.size;  // bytes the line may still have before its newline
  std::vector<char> scratch(kBlockBytes);
  uint64_t ahead = 0;
  while (ahead <= room) {
    Result<size_t> got = in.ReadAhead(ahead, scratch.data(), scratch.size());
    if (!got.ok()) return got.status();
    if (*got == 0) return true;  // the input ends within the limit
    const void* nl = std::memchr(scratch.data(), '\n', *got);
    if (nl != nullptr) return ahead + static_cast<uint64_t>(static_cast<const char*>(nl) - scratch.data()) <= room;
    ahead += *got;
  }
  return false;
}

BlockLines::BlockLines(const JsonlBlocks::Block& block, uint64_t max_line)
    : p_(block.data.get()),
      end_(block.data.get() + block.size),
      max_line_(max_line == 0 ? UINT64_MAX : max_line),
      marker_(block.too_long) {}

bool BlockLines::Next(std::string_view* text, bool* too_long) {
  if (marker_) {
    marker_ = false;
    *text = {};
    *too_long = true;
    return true;
  }
  if (p_ >= end_) return false;
  const char* nl = static_cast<const char*>(std::memchr(p_, '\n', static_cast<size_t>(end_ - p_)));
  const char* line_end = nl != nullptr ? nl : end_;
  size_t len = static_cast<size_t>(line_end - p_);
  if (len > 0 && p_[len - 1] == '\r') --len;
  *too_long = len > max_line_;
  *text = *too_long ? std::string_view() : std::string_view(p_, len);
  p_ = nl != nullptr ? nl + 1 : end_;
  return true;
}

JsonlLines::JsonlLines(std::unique_ptr<ByteReader> in, uint64_t max_line)
    : in_(std::move(in)), max_line_(max_line), blocks_(max_line) {}

Result<bool> JsonlLines::Next(Line* line) {
  for (;;) {
    if (lines_.has_value() && lines_->Next(&line->text, &line->too_long)) {
      line->number = ++number_;
      return true;
    }
    lines_.reset();
    uint64_t bytes = 0;
    Result<bool> more = blocks_.Next(*in_, &block_, &bytes);
    if (!more.ok()) return more.status();
    if (!*more) return false;
    lines_.emplace(block_, max_line_);
  }
}

JsonlLinesAt::JsonlLinesAt(std::unique_ptr<ByteReader> in, uint64_t max_line)
    : in_(std::move(in)), max_line_(max_line == 0 ? UINT64_MAX - 2 : max_line) {}

Status JsonlLinesAt::Fill(uint64_t offset, size_t want) {
  if (buf_.size() < want) buf_.resize(want);
  filled_once_ = true;
  start_ = offset;
  size_ = 0;
  at_end_ = false;
  while (size_ < want) {
    Result<size_t> got = in_->ReadAhead(offset + size_, buf_.data() + size_, want - size_);
    if (!got.ok()) return got.status();
    if (*got == 0) {
      at_end_ = true;
      break;
    }
    size_ += *got;
  }
  return Status::Ok();
}

Result<bool> JsonlLinesAt::At(uint64_t offset, std::string_view* text) {
  // The most a line and its "\r\n" take.
  const uint64_t most = max_line_ + 2;
  bool filled = false;
  for (size_t want = want_;;) {
    // Nothing is read yet (buf_ may have no storage) until the first Fill().
    if (filled_once_ && offset >= start_ && offset - start_ <= size_) {
      const char* from = buf_.data() + (offset - start_);
      const size_t left = size_ - static_cast<size_t>(offset - start_);
      const char* nl = left > 0 ? static_cast<const char*>(std::memchr(from, '\n', left)) : nullptr;
      if (nl != nullptr || (at_end_ && left > 0)) {
        size_t len = nl != nullptr ? static_cast<size_t>(nl - from) : left;
        if (len > 0 && from[len - 1] == '\r') --len;
        if (len > max_line_) return false;
        want_ = std::clamp(len + len / 2, kMinWindow, kMaxWindow);
        *text = std::string_view(from, len);
        return true;
      }
      if (at_end_ || left >= most) return false;
      // The line runs past the window: read it from its start, wider.
      if (filled) want = static_cast<size_t>(std::min<uint64_t>(most, 2 * uint64_t{want}));
    }
    if (Status s = Fill(offset, want); !s.ok()) return s;
    filled = true;
  }
}

}  // namespace neardup
