// Byte shares: which part of the walked inputs sign task I of N reads.
//
// With --input jsonl the N tasks share the inputs' bytes, not their files,
// so that even one large file is shared evenly. Take the walked files end to
// end, T bytes in all (their sizes when walked). Cut k (0 < k < N) aims at
// byte k*T/N of that sequence:
//  - in a splittable file (JSONL input, a regular, uncompressed file of at
//    least kMinSplitBytes bytes) it moves forward to just after the next
//    newline at or after the target (the file's end when there is none), so
//    that every range holds whole lines;
//  - in a splittable Parquet file (--input parquet, a regular file of at
//    least kMinSplitBytes bytes whose row groups start at increasing bytes,
//    in row order) it moves forward to where the first row group that
//    starts at or after the target starts (the file's end when none does):
//    a range reads the rows of the row groups that start in it
//    (FileSystem::Range(), parquet_rows.h), `line_base` the rows before;
//  - in any other file (compressed, small, or text input) it moves to the
//    nearer of the file's start and end: the file stays whole.
// Share I is the bytes [cut I, cut I+1) (cut 0 = 0, cut N = T); a file of
// no bytes goes with the share its position falls in (the last one at T).
// So the cuts are a pure function of the listing (ListingFingerprint), N and
// the files' bytes at the targets: every task computes the same ones, a
// share may be empty (one line longer than a share), and the shares in task
// order hold the documents in the scan's order (files in walk order, lines
// in file order). A file may be split among several shares: each range
// but the first starts after the newline that ends line `line_base`, and the
// documents of the range keep the file's true line numbers.
//
// With --input text the share is whole files, [I*F/N, (I+1)*F/N) of the F
// walked.
//
// Thread safety: ShareOf() reads through `fs`, as FileSystem allows;
// RangedFileSystem is as thread-safe as the FileSystem it wraps.
//
//   Result<Share> share = ShareOf(fs, options, std::move(walked.files), {.task = 1, .tasks = 4});
//   RangedFileSystem ranged(fs, share->files, share->parts);   // read each file's range only
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/types.h"
#include "neardup/options.h"
#include "neardup/stages.h"
#include "neardup/status.h"
#include "walk/file_system.h"

namespace neardup {

// A JSONL file under this size is never split: its lines are not worth a
// task's start.
inline constexpr uint64_t kMinSplitBytes = uint64_t{64} << 10;

// The part of a file a share reads.
struct FilePart {
  uint64_t begin = 0;      // its first byte (0: the file's start)
  uint64_t end = 0;        // one past its last byte (the file's size: to its end)
  uint64_t line_base = 0;  // the lines of the file before `begin`
  bool Whole(const InputFile& f) const { return begin == 0 && end == f.size; }
};

struct Share {
  std::vector<InputFile> files;  // in walk order
  std::vector<FilePart> parts;   // per file
  uint64_t first_file = 0;       // the walk index of files[0] (when empty: of the next file)
};

// Share t of the walked `files` (see above). Errors: a stream among the
// share's files (a stage task cannot read one), and the errors of reading
// a file at a cut (its path named).
// REQUIRES: t.task < t.tasks.
Result<Share> ShareOf(FileSystem& fs, const Options& options, std::vector<InputFile> files, StageTask t);

// A reader of bytes [begin, end) of what `inner` reads (by ReadAhead()
// when it can, else by reading and dropping the first `begin` bytes).
std::unique_ptr<ByteReader> RangeReader(std::unique_ptr<ByteReader> inner, uint64_t begin, uint64_t end);

// A FileSystem that reads only each file's part: opening a file of `files`
// whose part is not whole gives a reader of that part; everything else is
// `base`'s. Borrows `base`, which must outlive it.
class RangedFileSystem : public FileSystem {
 public:
  RangedFileSystem(FileSystem& base, const std::vector<InputFile>& files, const std::vector<FilePart>& parts);
  Result<std::unique_ptr<ByteReader>> Open(const std::string& path) override;
  Result<std::unique_ptr<ByteReader>> OpenExpected(const std::string& path, const FileIdentity& expected) override;
  Result<FileStat> Stat(const std::string& path) override { return base_.Stat(path); }
  Result<std::unique_ptr<Directory>> OpenDir(const std::string& path, bool follow_symlink) override {
    return base_.OpenDir(path, follow_symlink);
  }
  std::pair<uint64_t, uint64_t> Range(const std::string& path, uint64_t size) override;
  bool WantsAllBytes(const std::string& path, const FileIdentity& expected) override {
    return base_.WantsAllBytes(path, expected);
  }

 private:
  Result<std::unique_ptr<ByteReader>> Ranged(const std::string& path, Result<std::unique_ptr<ByteReader>> in);
  FileSystem& base_;
  std::map<std::string, std::pair<uint64_t, uint64_t>> ranges_;  // by path: [begin, end)
};

}  // namespace neardup
