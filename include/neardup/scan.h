// FindDuplicates: the whole scan, from paths to a Report.
//
// The phases (src/scan/phases.h), composed in process: walk the inputs
// (src/walk/); read, decode, normalize, shingle and sign every document on
// `threads` workers, keeping only its signature and name (a document's text
// is dropped as soon as it is signed); group exact duplicates (same content
// hash) so each distinct text is indexed once; find candidate pairs by LSH
// banding; verify them (signature agreement, or exact Jaccard after
// re-reading only the documents in candidate pairs); then, by mode, build
// pairs or clusters. The stage tasks (stages.h) follow the same rules
// (Run, the candidate rule) over their own reads and writes; only stage
// report shares a phase (phases.h says which). The report is the same, byte
// for byte once written, for every thread count.
//
// Problems with single inputs (unreadable, vanished, changed during the run,
// malformed JSONL lines) are recorded in Report::problems and the run goes on.
// A non-OK Status is returned for invalid options, cancellation, or a failure
// of the run itself (a temporary file that cannot be written, an --index that
// cannot be used).
//
// Thread safety: FindDuplicates may run concurrently with itself; the progress
// callback is called from the calling thread only.
//
//   Options o; o.paths = {"docs"};
//   Result<Report> r = FindDuplicates(o);
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "neardup/options.h"
#include "neardup/output_target.h"
#include "neardup/report.h"
#include "neardup/status.h"

namespace neardup {

// The core's way to read input (src/walk/file_system.h); null here means
// the real file system.
class FileSystem;

enum class Stage { kWalking, kReading, kBanding, kVerifying, kClustering, kDone };
const char* ToString(Stage stage);

struct Progress {
  Stage stage = Stage::kWalking;
  uint64_t inputs_done = 0;   // files (or JSONL batches' files) finished
  uint64_t inputs_total = 0;  // files to read, when known
  uint64_t bytes = 0;         // bytes read so far
  // Bytes to read, when known (regular uncompressed files, no --index: the
  // reading stage's share done is bytes / bytes_total); else 0.
  uint64_t bytes_total = 0;
  // Verifying with --exact (or -t 1): documents read again, of how many.
  uint64_t reread = 0;
  uint64_t reread_total = 0;
  uint64_t documents = 0;  // documents signed so far
  uint64_t linked = 0;     // clustering: verified pairs linked so far
  double seconds = 0;      // since the start
};

struct RunContext {
  // Where input bytes come from. Default: the real file system.
  FileSystem* fs = nullptr;
  // Called a few times a second at most, from the calling thread. May be empty.
  std::function<void(const Progress&)> progress;
  // When set and true, the run stops soon and returns Cancelled.
  const std::atomic<bool>* cancel = nullptr;
  // With --index: the key of the output the front end keeps in the index
  // (KeepResult, index.h); a result kept under it whose files are unchanged
  // is given again (Report::index.given_again) instead of a run. Empty: none
  // is looked for.
  std::string result_key;
};

Result<Report> FindDuplicates(const Options& options, const RunContext& context = {});

}  // namespace neardup
