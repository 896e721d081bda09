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
#include <optional>
#include <string_view>
#include <vector>

#include "neardup/options.h"
#include "neardup/status.h"
#include "text/jsonl.h"
#include "walk/file_system.h"
#include "walk/parquet_rows.h"
#include "walk/walk.h"

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
// Errors as OpenInput() (file_system.h). With --input parquet, the file's
// rows as JSONL lines (walk/parquet_rows.h; a stream is an error).
[[nodiscard]] Result<std::unique_ptr<ByteReader>> OpenForSigning(FileSystem& fs, const InputFile& file,
                                                                 StreamCopy* copy, const Options& options);

// Opens `file` again: through `copy` when it is non-null (a stream), else by
// its walked path and identity. Errors as OpenInput(); Parquet as above.
[[nodiscard]] Result<std::unique_ptr<ByteReader>> OpenAgain(FileSystem& fs, const InputFile& file,
                                                            const StreamCopy* copy, const Options& options);

// Whether the offsets of `file`'s lines are those of its bytes on disk, so
// that a line can be read again where it starts: a regular file, neither
// compressed nor Parquet (whose lines are made from its rows).
bool LinesAtOffsets(const InputFile& file, const Options& options);

// OK when `file.path` is still the file the walk saw: same size, mtime, ctime,
// device and inode. Else Changed: "PATH: changed during the run", or "PATH:
// gone during the run (REASON)".
[[nodiscard]] Status CheckUnchanged(FileSystem& fs, const InputFile& file);

// One JSONL input cut into blocks of whole lines, read straight into each
// block's memory, so that whole blocks can go to other threads: the reader
// looks only at a block's tail (for its last newline). The partial line at a
// block's end starts the next block. A partial line past max_line + 1 bytes
// (a CR before the newline is not part of the line) is dropped up to its
// newline as it is read, so no line is ever held past the limit, and a block
// with `too_long` set stands for it in its place. From a regular file (one
// whose reader can read ahead), a partial line past kReadAheadFrom bytes is
// first measured by reading ahead for its newline: one over the limit is
// then dropped at once, so it is never held past kReadAheadFrom bytes. A
// stream or a compressed file cannot be read ahead: its line is held up to
// the limit before it is known to be too long.
class JsonlBlocks {
 public:
  static constexpr size_t kBlockBytes = 1 << 20;
  // A partial line this long is measured by reading ahead, where the input can.
  static constexpr size_t kReadAheadFrom = 4 << 20;
  // A block's bytes: up to kLargeBytes from the heap; past that, pages mapped
  // for it alone, grown in place by the kernel (mremap), so that growing a
  // long line never holds its bytes twice, and freeing them gives the pages
  // back at once.
  class Bytes {
   public:
    static constexpr size_t kLargeBytes = 4 << 20;
    Bytes() = default;
    Bytes(Bytes&& o) noexcept : data_(o.data_), capacity_(o.capacity_) { o.data_ = nullptr, o.capacity_ = 0; }
    Bytes& operator=(Bytes&& o) noexcept;
    Bytes(const Bytes&) = delete;
    Bytes& operator=(const Bytes&) = delete;
    ~Bytes() { Free(); }
    char* get() const { return data_; }
    size_t capacity() const { return capacity_; }
    // Room for `n` bytes, keeping the first `keep`. Throws std::bad_alloc.
    void Grow(size_t n, size_t keep);

   private:
    void Free();
    char* data_ = nullptr;
    size_t capacity_ = 0;
  };
  struct Block {
    Bytes data;  // whole lines; the last may lack its newline at the end of the input
    size_t size = 0;
    bool too_long = false;  // one line over the limit (no data)
    // Room for `n` bytes in all, keeping the first `size`; grows by doubling,
    // so a long line read block after block is copied a bounded number of times.
    void Reserve(size_t n);
  };

  // `max_line`: longest line kept, in bytes without its "\n" or "\r\n";
  // 0 = no limit.
  explicit JsonlBlocks(uint64_t max_line) : max_line_(max_line == 0 ? UINT64_MAX - 1 : max_line) {}
  // The next block of `in` (possibly empty). OK(true) with a block; OK(false)
  // at the end; a read error. Adds the bytes read to *bytes_read.
  [[nodiscard]] Result<bool> Next(ByteReader& in, Block* out, uint64_t* bytes_read);

 private:
  // Whether the partial line in buf_ ends (its newline, or the input's end)
  // within the limit, read ahead without consuming. REQUIRES:
  // in.CanReadAhead(); buf_ holds one partial line of at most max_line_ + 1 bytes.
  [[nodiscard]] Result<bool> EndsWithinLimit(ByteReader& in) const;

  uint64_t max_line_;
  Block buf_;
  bool checked_ = false;  // the partial line in buf_ was read ahead and fits
  bool skipping_ = false;
  bool done_ = false;
};

// The lines of one block, in order, as LineSplitter gives them: without
// "\n" or "\r\n"; a line longer than max_line is returned empty with
// too_long set.
class BlockLines {
 public:
  BlockLines(const JsonlBlocks::Block& block, uint64_t max_line);
  bool Next(std::string_view* text, bool* too_long);

 private:
  const char* p_;
  const char* end_;
  uint64_t max_line_;
  bool marker_;
};

// The lines of one JSONL input, numbered, one at a time (for reading a few
// lines again): the same blocks and lines as signing sees.
class JsonlLines {
 public:
  struct Line {
    std::string_view text;  // valid until the next call of Next()
    uint64_t number = 0;    // from 1
    bool too_long = false;  // longer than max_line: `text` is empty
  };

  // `max_line`: as JsonlBlocks. REQUIRES: `in` non-null.
  JsonlLines(std::unique_ptr<ByteReader> in, uint64_t max_line);
  // OK(true) with the next line; OK(false) at the end; a read error (the
  // lines before it were all returned).
  [[nodiscard]] Result<bool> Next(Line* line);

 private:
  std::unique_ptr<ByteReader> in_;
  uint64_t max_line_;
  JsonlBlocks blocks_;
  JsonlBlocks::Block block_;
  std::optional<BlockLines> lines_;
  uint64_t number_ = 0;
};

// The lines of a regular, uncompressed JSONL file read where they start
// (DocRecord::offset), for reading a few lines of a large file again: each
// through a window of the file read at its place (ByteReader::ReadAhead,
// pread), so that the re-read costs the lines wanted, not the bytes between.
// Lines as BlockLines gives them: without "\n" or "\r\n".
class JsonlLinesAt {
 public:
  // A window reads about the length of the last line found and a half, at
  // least kMinWindow bytes (a page) and at most kMaxWindow at first (a line
  // longer than that is read again with twice the window, up to max_line).
  static constexpr size_t kMinWindow = 4 << 10;
  static constexpr size_t kMaxWindow = 64 << 10;
  // `max_line`: as JsonlBlocks. REQUIRES: `in` non-null, in->CanReadAhead(),
  // and nothing Read() from it.
  JsonlLinesAt(std::unique_ptr<ByteReader> in, uint64_t max_line);
  // OK(true) with the line that starts at `offset` (valid until the next
  // call); OK(false) when no line of at most max_line bytes starts there
  // (the file ends before it, or no newline comes in time): the file is not
  // what was signed. A read error as ReadAhead() gives it.
  [[nodiscard]] Result<bool> At(uint64_t offset, std::string_view* text);

 private:
  // Reads the window from `offset`: at least `want` bytes, fewer at the end.
  Status Fill(uint64_t offset, size_t want);
  std::unique_ptr<ByteReader> in_;
  uint64_t max_line_;
  std::vector<char> buf_;
  uint64_t start_ = 0;   // the file offset of buf_[0]
  size_t size_ = 0;      // bytes of buf_ read
  bool at_end_ = false;  // the window reaches the end of the file
  size_t want_ = kMinWindow;
  bool filled_once_ = false;
};

}  // namespace neardup
