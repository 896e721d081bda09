// The stage commands: a scan split into tasks of job arrays, so that many
// machines share it (`neardup stage sign|bucket|verify|report|filter`, run by
// scripts/stage_local.sh or scripts/slurm/submit.sh).
//
//   sign   task I of N walks the inputs, takes its share of the files and
//          signs them into the work folder;
//   bucket task J of M reads every shard's band keys for its share of the
//          bands and writes the candidate pairs;
//   verify task K of V scores its share of the candidate pairs (those whose
//          first document's id hashes to K modulo V) from the shards'
//          signatures and writes those that are candidates; with --exact
//          (or -t 1) it reads their documents again and writes the exact
//          verdicts, so the report reads no document;
//   report reads the shards and the verified pairs and returns the scan's Report,
//          byte for byte the same once written, for any N and M; it leaves
//          per shard the documents --mode duplicates lists;
//   filter task I of N (one per sign shard) writes the kept documents of
//          shard I's files to --kept-dir DIR: together, what scan --kept-dir
//          writes, byte for byte.
//
// Each task writes under temporary names and renames into place, its
// completion marker last: a task killed at any moment can be run again, and a
// task whose marker is there does nothing. Every sign task records the
// listing it walked; a sign task (walking first, even when its marker is
// there), a bucket task or the report refuses shards whose listings differ
// (the inputs changed between the tasks). The work folder's layout and file
// formats are src/distributed/.
//
// Thread safety: each call uses options.threads threads inside; distinct
// tasks may run at once in distinct processes on one folder.
//
//   Result<TaskRun> ran = RunSignTask(options, "work", {.task = 0, .tasks = 4}, {});
//   Result<Report> r = RunReportTask(options, "work", {});
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "neardup/options.h"
#include "neardup/report.h"
#include "neardup/scan.h"
#include "neardup/status.h"

namespace neardup {

// A task of a job array: number `task` of `tasks` (0 <= task < tasks).
struct StageTask {
  uint32_t task = 0;
  uint32_t tasks = 1;
};

// What a task did: its work, or nothing because its marker was there.
enum class TaskRun { kRan, kAlreadyDone };

// Runs sign task `t` into `work` (creating it). Errors: invalid options, a
// malformed glob, a stream input, a folder of another run, inputs that
// changed since a finished shard was signed, I/O errors.
// Problems with single inputs are results, stored for the report.
// `walk_skipped`, when set, receives for task 0 what the walk skipped
// (hidden names, --glob, --max-filesize, special files), named with
// Options::name_skipped: every task walks the whole tree, so task 0 alone
// names them, once (the report names the documents skipped when read).
Result<TaskRun> RunSignTask(const Options& options, const std::string& work, StageTask t, const RunContext& ctx,
                            std::vector<std::string>* walk_skipped = nullptr);

// Runs bucket task `t` over `work`. InvalidArgument when sign tasks are
// missing (listed by number) or were run with other options.
Result<TaskRun> RunBucketTask(const Options& options, const std::string& work, StageTask t, const RunContext& ctx);

// What a verify task that reads documents again (--exact) did: the pairs of
// its share of the bucket outputs kept as candidates and those the shards'
// bitmaps ruled out (below -t 0.7, when the sign tasks stored them; the
// pairs of large buckets are not counted), and the documents it read again.
// All 0 for a task that reads nothing again, or that was done before.
struct VerifyTally {
  uint64_t candidates = 0;
  uint64_t ruled_out = 0;
  uint64_t reread = 0;
};

// Runs verify task `t` over `work`: its share of the bucket tasks' pairs,
// scored from the shards' signatures (distributed/stage_verify.h).
// InvalidArgument when sign or bucket tasks are missing or were run with
// other options; Corrupt for a damaged work file, named. `tally`, when set,
// receives what the task did.
Result<TaskRun> RunVerifyTask(const Options& options, const std::string& work, StageTask t, const RunContext& ctx,
                              VerifyTally* tally = nullptr);

// InvalidArgument when tasks are missing or shards were signed with other
// parameters (each difference named); Corrupt or IoError for damaged or
// unreadable work files. Writes WORK/report/I.dropped for every shard (in
// pairs mode deferred: the first filter task completes them; no clusters
// are built here then).
Result<Report> RunReportTask(const Options& options, const std::string& work, const RunContext& ctx);

// What a filter task wrote to --kept-dir and --annotate-dir, and the files
// it did not write (changed since signed, unreadable): each a problem, exit
// status 2.
struct FilterOutcome {
  KeptStats stats;      // --kept-dir
  KeptStats annotated;  // --annotate-dir
  std::vector<Status> problems;
};
// Runs filter task `t` (t.tasks: the number of sign tasks) into
// options.kept_dir and options.annotate_dir (the whole corpus, each document
// marked as scan --annotate-dir marks it, from the report's marks: the first
// task that needs them does the report's work again to write them,
// stage_marks.h). Each DIR is shared by the tasks of one work folder: it must
// be new or empty when the first task begins it, and then be one they began
// (recorded in WORK/filter); a task run again (after a kill, or twice)
// leaves the folder one run leaves, each file placed over the one there at
// once, never removed first.
// Errors (nothing written): neither folder given, --tasks not the sign tasks'
// count, a missing or damaged shard or dropped list (run stage report
// first), a list made with other options or shards, two input files the
// report found going to one place below DIR, DIR refused as scan refuses it
// (CheckKeptDirPlace()) or not empty and not begun by these tasks.
Result<FilterOutcome> RunFilterTask(const Options& options, const std::string& work, StageTask t,
                                    const RunContext& ctx);

}  // namespace neardup
