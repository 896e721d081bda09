// FileSystem and ByteReader: the core's only way to read input bytes.
//
// Everything the pipeline reads goes through a FileSystem, so tests can inject
// failures (a file that cannot be opened, a read error halfway, a file that
// vanishes) without depending on permissions, which root ignores.
// OpenInput() adds transparent decompression for ".gz" (zlib) and ".zst"
// (libzstd) paths.
//
// Thread safety: FileSystem::Default() and its Open() may be called from many
// threads at once; one ByteReader is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

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
};

struct FileStat {
  uint64_t size = 0;
  int64_t mtime_ns = 0;  // modification time, nanoseconds since the epoch
  int64_t ctime_ns = 0;  // status change time: no tool can set it back
  uint64_t dev = 0;
  uint64_t ino = 0;
  // Same file, same size and times: its content is taken as unchanged.
  friend bool operator==(const FileStat& x, const FileStat& y) {
    return x.size == y.size && x.mtime_ns == y.mtime_ns && x.ctime_ns == y.ctime_ns && x.dev == y.dev &&
           x.ino == y.ino;
  }
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  // Opens `path` for reading. NotFound or IoError, with the path in the message.
  virtual Result<std::unique_ptr<ByteReader>> Open(const std::string& path) = 0;
  // Size and modification time of an open-able file (follows symlinks).
  virtual Result<FileStat> Stat(const std::string& path) = 0;

  // The real file system (POSIX open/read/fstat). Never null; lives forever.
  static FileSystem& Default();
};

// Opens `path` through `fs`, decompressing when the name ends in ".gz" or ".zst".
Result<std::unique_ptr<ByteReader>> OpenInput(FileSystem& fs, const std::string& path);

// Wraps an already open reader with a gzip or zstd decoder. `path` is for
// messages only.
std::unique_ptr<ByteReader> GzipReader(std::unique_ptr<ByteReader> inner, std::string path);
std::unique_ptr<ByteReader> ZstdReader(std::unique_ptr<ByteReader> inner, std::string path);

}  // namespace neardup
