// Document sources: where a document's bytes come from, for its first read
// (signing) and for a read again (--exact, -t 1). Both stages open files and
// split JSONL lines through these, so a document is read the same way twice.
//
//  - OpenForSigning() opens an input file as the walk found it (by path,
//    checked against the walk's device and inode). A stream document (a pipe
//    or device named as an argument) can be read once only; when it will be
//    needed again its bytes are recorded in a StreamCopy as they are read.
//  - OpenAgain() opens a document's source by its key (the walked path, never
//    the name written in the output), or the stream's copy.
//  - CheckUnchanged() says whether a file is still the one the walk saw.
//  - JsonlLines splits a byte stream into numbered lines, chunk by chunk.
//
// Thread safety: StreamCopy::Replay() may be called from several threads;
// everything else is one object per thread.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string_view>
#include <vector>

#include "neardup/corpus.h"
#include "neardup/file_system.h"
#include "neardup/jsonl.h"
#include "neardup/status.h"

namespace neardup {

// A stream's bytes as the first read got them (after decompression), kept
// in an anonymous temporary file (TMPDIR) so that it can be read again.
class StreamCopy {
 public:
  StreamCopy() = default;
  ~StreamCopy();
  StreamCopy(const StreamCopy&) = delete;
  StreamCopy& operator=(const StreamCopy&) = delete;
  // Wraps `in`: what is read through it is also appended to the copy. A
  // failed write to the copy is a read error of the stream (IoError).
  // REQUIRES: called once.
  [[nodiscard]] Result<std::unique_ptr<ByteReader>> Record(std::unique_ptr<ByteReader> in);
  // A reader of the copy, from its start; IoError if the copy was never made.
  [[nodiscard]] Result<std::unique_ptr<ByteReader>> Replay() const;

 private:
  std::FILE* file_ = nullptr;
};

// Opens `file` for its first read. When `copy` is non-null and `file` is a
// stream document, its bytes are recorded into *copy as they are read.
// Errors as OpenInput() (file_system.h).
[[nodiscard]] Result<std::unique_ptr<ByteReader>> OpenForSigning(FileSystem& fs, const InputFile& file,
                                                                StreamCopy* copy);

// Opens `file` again: through `copy` when it is non-null (a stream), else by
// its walked path and identity. Errors as OpenInput().
[[nodiscard]] Result<std::unique_ptr<ByteReader>> OpenAgain(FileSystem& fs, const InputFile& file,
                                                           const StreamCopy* copy);

// OK when `file.path` is still the file the walk saw: same size, mtime, ctime,
// device and inode. Else Changed: "PATH: changed during the run", or "PATH:
// gone during the run (REASON)".
[[nodiscard]] Status CheckUnchanged(FileSystem& fs, const InputFile& file);

// The lines of one JSONL input, read `kChunk` bytes at a time.
class JsonlLines {
 public:
  static constexpr size_t kChunk = 256 * 1024;
  struct Line {
    std::string_view text;  // valid until the next call of Next()
    uint64_t number = 0;    // from 1
    bool too_long = false;  // longer than max_line: `text` is empty
  };

  // `max_line`: as LineSplitter. REQUIRES: `in` non-null.
  JsonlLines(std::unique_ptr<ByteReader> in, uint64_t max_line);
  // OK(true) with the next line; OK(false) at the end; a read error (the
  // lines before it were all returned).
  [[nodiscard]] Result<bool> Next(Line* line);
  // Bytes read from the input so far.
  uint64_t bytes_read() const { return bytes_; }
  // Bytes read since the last call (for progress).
  uint64_t TakeBytes() {
    const uint64_t n = bytes_ - reported_;
    reported_ = bytes_;
    return n;
  }

 private:
  std::unique_ptr<ByteReader> in_;
  LineSplitter splitter_;
  std::vector<char> buf_;
  uint64_t bytes_ = 0;
  uint64_t reported_ = 0;
  bool finished_ = false;
};

}  // namespace neardup
