// WorkFolder: the shared folder of the stage commands (`neardup stage`), its
// layout, and the writes that make every task safe to run again.
//
// Layout under WORK (see the README's "Running on a cluster"):
// (each file's bytes are documented where it is encoded: sign/table_codec.h
// and format/, all over base/coding.h)
//   sign/I.table   shard I's SignatureTable (table_codec.h)
//   sign/I.meta    shard I's problems, counts and the walk's tally
//                  (format/shard_meta.h)
//   sign/I.bands   shard I's band keys, per band sorted, and its documents'
//                  content hashes (format/band_file.h)
//   sign/I.bitmaps shard I's documents' SetBitmaps, read by id (below -t 0.7
//                  with --exact only; format/shard_bitmaps.h, version 1)
//   sign/I.done    completion marker: "neardup sign I N FINGERPRINT CHECK\n"
//   bucket/J.pairs bucket task J's candidate pairs and large buckets
//                  (format/bucket_pairs.h)
//   bucket/J.done  completion marker: "neardup bucket J M FINGERPRINT CHECK\n"
//   verify/K.pairs verify task K's verified pairs and large buckets
//                  (format/verify_output.h)
//   verify/K.done  completion marker: "neardup verify K V FINGERPRINT CHECK\n"
//   report/I.dropped  per sign shard I, what --mode duplicates lists
//                  (format/dropped_list.h), written by every stage report
//   filter/DEV-INO.dir  a --kept-dir the filter tasks began (stage_filter.h)
//
// Every file carries a checksum (XXH3-64; a marker's CHECK is that of the
// text before it, in hex), and every value read is checked against the
// file's size, the run's parameters and its type's range before it is used:
// a damaged file is an error naming it ("...: run again in an empty work
// folder"), never skipped.
//
// A task writes each file under a hidden temporary name in the same folder,
// syncs it and renames it into place, and writes its marker last, the same
// way. A task killed at any moment leaves at most temporaries (removed when
// it runs again) and complete files whose marker is missing, which a re-run
// rewrites with the same bytes; a task whose marker is there is done. The
// tasks that leave a marker do all this through one frame (task_frame.h).
//
// Thread safety: free functions over the file system; distinct tasks may
// run at once in distinct processes on one folder.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/stages.h"
#include "neardup/status.h"

namespace neardup {

enum class StageKind { kSign, kBucket, kVerify, kReport, kFilter };
const char* ToString(StageKind kind);  // "sign", "bucket", "verify", "report", "filter"

// The most task numbers a message lists ("1, 4, 7, ... and 9 more").
inline constexpr uint64_t kListedTasks = 10;
// The most tasks of a stage (--tasks), as the global ids allow (format/shard_meta.h).
inline constexpr uint64_t kMaxTasks = uint64_t{1} << 24;

// What a completion marker says.
struct Marker {
  StageKind kind = StageKind::kSign;
  StageTask task;
  uint64_t fingerprint = 0;
};
// Reads a marker's text: Corrupt ("not a completion marker") unless it is
// exactly WorkFolder::MarkerText() of a task of `kind` (its checksum right,
// 0 <= task < tasks <= kMaxTasks).
Result<Marker> ParseMarker(std::string_view text, StageKind kind);

class WorkFolder {
 public:
  explicit WorkFolder(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }
  // root/sign, root/bucket, root/verify, root/report or root/filter.
  std::string Dir(StageKind kind) const;
  // root/sign/I.<suffix>, e.g. File(kSign, 3, "table").
  std::string File(StageKind kind, uint32_t task, std::string_view suffix) const;
  // Creates root and its stage folders (existing ones are fine).
  Status Create() const;

  // The marker text of a finished task.
  static std::string MarkerText(StageKind kind, StageTask t, uint64_t fingerprint);
  // Whether `t` is done: true when its marker holds exactly MarkerText();
  // false when there is no marker; InvalidArgument when the marker is of
  // another run (another task count or parameters): the folder must be
  // emptied first.
  Result<bool> Done(StageKind kind, StageTask t, uint64_t fingerprint) const;
  // Ok when every marker of the stage present was made by a run of
  // `t.tasks` tasks with `fingerprint`; else InvalidArgument naming the
  // first that was not (so a task refuses to join a folder of another run).
  Status SameRun(StageKind kind, StageTask t, uint64_t fingerprint) const;
  // The tasks of a stage whose marker file ("I.done") is there, ascending,
  // by name only (the markers are read by Done(), SameRun() and
  // FinishedTasks()).
  std::vector<uint32_t> Marked(StageKind kind) const;
  // Removes the temporaries a killed run of task `task` left.
  void RemoveTemporaries(StageKind kind, uint32_t task) const;

  // The task count of a stage's finished tasks (all markers must agree on
  // it and on the fingerprint). InvalidArgument "WORK/sign: N of M tasks
  // missing: 1, 4" when some are missing (by number, from 0; the first
  // kListedTasks, then "... and K more"), or when none has finished, or
  // markers disagree; Corrupt for a damaged marker, or one in another
  // task's file.
  Result<uint32_t> FinishedTasks(StageKind kind, uint64_t fingerprint) const;

 private:
  std::string root_;
};

// Corrupt "<path>: <what>: run again in an empty work folder", the error of
// every damaged work file; <path> quoted as ShellQuoted() does.
Status Damaged(std::string_view path, std::string_view what);

// Writes `bytes` to `path` through a temporary file in its folder (synced,
// then renamed over `path`). IoError on failure; no temporary is left.
Status WriteAtomically(const std::string& path, std::string_view bytes);

// A file written piece by piece, as WriteAtomically() writes a whole one:
// under a hidden temporary name in its folder until Commit() syncs it and
// renames it over `path`. A writer destroyed before Commit() removes its
// temporary. Appends are buffered (kBuffer bytes). Not copyable.
//
//   AtomicFileWriter w;
//   if (Status s = w.Open(path); !s.ok()) return s;
//   w.Append(bytes); ...  return w.Commit();
class AtomicFileWriter {
 public:
  static constexpr size_t kBuffer = size_t{1} << 20;
  AtomicFileWriter() = default;
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();
  // Creates the temporary. IoError when it cannot.
  Status Open(const std::string& path);
  // Appends `bytes`; an error is kept and returned by Commit().
  void Append(std::string_view bytes);
  // Writes what is buffered, then `bytes` at `offset` (within what was
  // appended: a header filled in last); an error is kept as Append()'s.
  void WriteAt(uint64_t offset, std::string_view bytes);
  // Writes what is buffered, syncs, closes and renames into place. IoError
  // (naming the file) for the first failure since Open(); no temporary left.
  Status Commit();
  // The first failure of a write so far (Ok while there is none): for a
  // writer that stops early rather than appending for nothing until Commit().
  const Status& error() const { return error_; }

 private:
  void Flush();
  void Write(std::string_view bytes);  // unbuffered
  static constexpr uint64_t kWriteBehind = uint64_t{32} << 20;
  std::string path_, temp_;
  uint64_t written_ = 0;  // bytes appended through Write()
  uint64_t flushed_ = 0;  // of which the write-back was started
  int fd_ = -1;
  std::string buffer_;
  Status error_;
};

// The whole content of `path`, or IoError.
Result<std::string> ReadWholeFile(const std::string& path);

}  // namespace neardup
