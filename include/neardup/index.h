// The --index file seen from outside a scan: what `neardup index info` and
// `neardup index check` show, and the exit status a run records once its
// output is written (or failed), with whether it was delivered (--new reports
// again what was not). The index itself (its schema, its lock, how a scan reads
// and updates it) is src/index/.
//
// Errors are one line naming the file: not a neardup index, corrupt, a newer
// schema, read-only. The functions open the file themselves and close it
// before they return.
//
// Thread safety: free functions; safe to call from any thread.
//
//   Result<IndexInfo> info = ReadIndexInfo("mirror.db", 10);
//   Result<std::vector<std::string>> problems = CheckIndex("mirror.db");
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "neardup/options.h"
#include "neardup/status.h"

namespace neardup {

// The schema version this build writes and reads.
inline constexpr int kIndexSchemaVersion = 5;

// One run's row.
struct IndexRun {
  int64_t id = 0;
  std::string started;  // UTC, ISO 8601
  std::string ended;    // empty while running or when killed
  uint64_t reused = 0, signed_now = 0, removed = 0, documents = 0;
  int exit_status = -1;  // -1: not recorded
  int delivered = -1;    // 1: its whole output went into a regular file (or was empty); 0: not; -1: not recorded
  std::string options;
};

// What a --new run reports for: its PATHs and the options that decide its
// documents and what it reports (src/index/new_job.h). An index serves one
// job: the first --new run that delivers makes its job the index's, and only
// runs of that job clear pending marks.
struct NewJob {
  std::string fingerprint;  // 16 hex digits; empty: the run clears no marks
  std::string description;  // the canonical PATHs, -t, --verify, --mode: for `index info`
};

// Sets the exit status of run `run` in the index at `path` (once its output
// was written or failed), and whether its output was delivered: written
// whole into a regular file (-o FILE synced and renamed into place, or stdout
// redirected to a regular file, synced), or reported nothing; an output
// with something in it sent to a pipe, a terminal or a device is never
// delivered, since no one can say its reader took it. A run of `job` (not empty: a --new run whose job was the index's,
// or the index had none, when it ended) that delivered makes `job` the
// index's when it has none, and when `job` is the index's, clears the pending
// marks of the files it covered (their documents are no longer new for
// --new); any other run leaves them, so the next --new run of the job
// reports those documents again. Errors as Open, without the lock.
Status RecordRunExit(const std::string& path, int64_t run, int exit_status, bool delivered, const NewJob& job);

// A scan's whole output kept in the index, given again by a later run with
// the same key over the same unchanged files (src/index/stored_result.h says
// when): what it rests on, and what it gives.
struct ResultListing {
  uint64_t low = 0, high = 0;  // XXH3-128 of each walked file's path, device, inode, size, mtime and ctime, in order
  uint64_t files = 0;
  int64_t newest_ns = 0;  // the latest mtime or ctime of any of them
};
struct StoredResult {
  ResultListing listing;   // of the run that kept it
  int64_t started_ns = 0;  // when that run started (before its walk), CLOCK_REALTIME
  int exit_code = 0;       // 0 (something reported) or 1 (nothing)
  std::string summary;     // its summary line, without "neardup: " and its time
  std::string output;      // the bytes it wrote
};
// The most output bytes a result keeps: a larger output is not kept.
inline constexpr size_t kMaxKeptOutputBytes = size_t{64} << 20;
// Keeps `result` in the index at `path` under `key` (replacing what was
// there), and the results of the newest few keys. Errors as Open, without
// the lock: for a warning, never a failed run.
Status KeepResult(const std::string& path, const std::string& key, const StoredResult& result);
// The key a scan's output is kept under: a hash of everything that shapes
// the output besides its files: every core option of `options` (as the
// option table reads them, and the paths --files-from listed), `front_end`
// (what the front end decides of the output: its format, terminator), the
// working directory (paths are printed as walked from it) and this very
// build (the executable's device, inode, size and mtime: a rebuilt binary
// may write otherwise). Empty, so that nothing is kept or given again, for
// a run without --index, one that writes besides its output or whose output
// depends on more than its files (--new, --kept-dir, --annotate-dir, a
// stream input: `-`, a pipe or a device).
std::string ResultKeyOf(const Options& options, const std::string& front_end);

struct IndexInfo {
  int schema_version = 0;
  std::vector<std::pair<std::string, std::string>> params;  // name, value
  uint64_t files = 0;
  uint64_t documents = 0;
  uint64_t file_bytes = 0;
  NewJob new_job;              // the index's --new job; empty before a --new run delivered
  uint64_t pending = 0;        // files whose documents are not delivered yet
  std::vector<IndexRun> runs;  // the last runs, newest first
};

// Reads what `neardup index info` shows; `last_runs` rows at most.
Result<IndexInfo> ReadIndexInfo(const std::string& path, int last_runs);

// SQLite's integrity check and neardup's consistency checks (every
// signature has num_perm values, every document and problem belongs to a
// file, document counts match). OK with an empty list when sound; the list
// of problems otherwise; a non-OK status when the file cannot be read as an
// index.
Result<std::vector<std::string>> CheckIndex(const std::string& path);

}  // namespace neardup
