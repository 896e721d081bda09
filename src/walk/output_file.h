// OutputFile: one file of an output folder (--kept-dir), written as an
// anonymous file in its folder (O_TMPFILE) and linked into place whole by
// Commit(), so that a reader of the folder never sees half a file and a
// process killed meanwhile leaves nothing behind; where the file system has
// no O_TMPFILE, under a temporary name beside its final one, renamed into
// place. Compressed as its name
// says, as OpenInput() reads it: ".gz" gzip at level kGzipLevel, ".zst" zstd
// at level kZstdLevel (the levels of the gzip and zstd tools), else plain.
// Destroyed without Commit(), it removes its temporary file: nothing is left
// behind.
//
// Every step is taken relative to the descriptor of the file's folder
// (KeptPlace, kept_folder.h), never through a path: a symbolic link at the
// file's name is never followed (linking fails on it, renaming replaces
// it). The mode given loses its setuid, setgid and sticky bits; the file is
// owned by the writer.
//
// Also here: LinkOrCopy(), a whole file placed at once (a hard link, or a
// copy with the source's permission bits and modification time, placed as
// above).
//
// Thread safety: one OutputFile per thread; different ones may be written at
// once.
//
//   Result<KeptPlace> place = dir.Place("a.jsonl.zst", "shards/a.jsonl.zst");
//   Result<std::unique_ptr<OutputFile>> out = OutputFile::Create(std::move(*place), 2, 0644);
//   Status s = (*out)->Write("{\"text\": \"...\"}\n");
//   if (s.ok()) s = (*out)->Commit();
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "neardup/status.h"
#include "walk/kept_folder.h"

namespace neardup {

inline constexpr int kGzipLevel = 6;
inline constexpr int kZstdLevel = 3;

class OutputFile {
 public:
  // Creates the file being written in `place`'s folder (anonymous, or a
  // temporary name beside its name), with the permission bits `mode & 0777`.
  // `threads`: zstd's compression workers (its output is the same for every
  // count from 1). IoError ("PATH: reason") when it cannot be made.
  static Result<std::unique_ptr<OutputFile>> Create(KeptPlace place, int threads, unsigned mode = 0644);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Appends `bytes` (compressed as the name says). IoError on a failed write
  // (disk full); the file is then never committed.
  [[nodiscard]] Status Write(std::string_view bytes);
  // Appends `pieces` in order, as Write() each, without copying them first
  // (a plain file takes them in one writev() call per 1024).
  [[nodiscard]] Status Write(std::span<const std::string_view> pieces);
  // Ends the stream and puts the file at its path (linked or renamed; a
  // regular file already there is replaced at once, never removed first),
  // closed. REQUIRES: called once, after the last Write(). IoError when any
  // step fails (nothing is left behind).
  [[nodiscard]] Status Commit();

 private:
  struct Codec;
  OutputFile(KeptPlace place, std::string temp, int fd, std::unique_ptr<Codec> codec);
  [[nodiscard]] Status Flush(std::string_view bytes);
  const KeptPlace place_;
  const std::string temp_;  // the temporary name in place_.folder, or "" (anonymous)
  int fd_;
  std::unique_ptr<Codec> codec_;  // null: plain
  std::string buffer_;            // plain bytes not yet written
  bool committed_ = false;
};

// Places the regular file `source` at `place`: a hard link when
// `may_link` and the file is one the writer could have copied (no setuid or
// setgid bit, owned by the user running) and the file systems allow it;
// else a copy with `source`'s permission bits (setuid, setgid and sticky
// dropped) and modification time, owned by the writer, placed as an
// OutputFile. Either replaces a regular file already at `place` at once
// (renamed over it, never removed first); a symbolic link there fails. The
// source is opened once (a symbolic link to it, -L, is followed there) and
// the link made to what was opened. It is checked to still have
// `expected`'s size, modification and change times, device and inode before
// and after: Changed ("SOURCE: changed since it was signed") when not,
// IoError on a failed step. Nothing is left at `place` or beside it on an
// error.
struct PlacedFrom {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  uint64_t dev = 0;
  uint64_t ino = 0;
};
[[nodiscard]] Status LinkOrCopy(const std::string& source, const PlacedFrom& expected, KeptPlace place, bool may_link);

}  // namespace neardup
