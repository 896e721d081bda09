#include "neardup/document_source.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace neardup {

namespace {

Status TempError(const char* what) {
  return Status::IoError(std::string("temporary file for --exact: ") + what + ": " + std::strerror(errno));
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
  file_ = std::tmpfile();
  if (file_ == nullptr) return TempError("create");
  return std::unique_ptr<ByteReader>(std::make_unique<RecordingReader>(std::move(in), file_));
}

Result<std::unique_ptr<ByteReader>> StreamCopy::Replay() const {
  if (file_ == nullptr) return Status::IoError("no copy of the stream was made");
  return std::unique_ptr<ByteReader>(std::make_unique<ReplayReader>(file_));
}

Result<std::unique_ptr<ByteReader>> OpenForSigning(FileSystem& fs, const InputFile& file, StreamCopy* copy) {
  Result<std::unique_ptr<ByteReader>> in = OpenInput(fs, file.path, file.identity);
  if (!in.ok() || !file.identity.stream || copy == nullptr) return in;
  return copy->Record(std::move(*in));
}

Result<std::unique_ptr<ByteReader>> OpenAgain(FileSystem& fs, const InputFile& file, const StreamCopy* copy) {
  if (copy != nullptr) return copy->Replay();
  return OpenInput(fs, file.path, file.identity);
}

Status CheckUnchanged(FileSystem& fs, const InputFile& file) {
  Result<FileStat> now = fs.Stat(file.path);
  if (!now.ok()) return Status::Changed(file.path + ": gone during the run (" + now.status().message() + ")");
  if (!(*now == SeenAtWalk(file))) return Status::Changed(file.path + ": changed during the run");
  return Status::Ok();
}

JsonlLines::JsonlLines(std::unique_ptr<ByteReader> in, uint64_t max_line)
    : in_(std::move(in)), splitter_(max_line), buf_(kChunk) {}

Result<bool> JsonlLines::Next(Line* line) {
  for (;;) {
    if (splitter_.Next(&line->text, &line->number)) {
      line->too_long = splitter_.too_long();
      return true;
    }
    if (finished_) return false;
    Result<size_t> got = in_->Read(buf_.data(), buf_.size());
    if (!got.ok()) return got.status();
    if (*got == 0) {
      splitter_.Finish();
      finished_ = true;
      continue;
    }
    bytes_ += *got;
    splitter_.Feed(std::string_view(buf_.data(), *got));
  }
}

}  // namespace neardup
