// Stage filter: task I of N writes the kept documents of sign shard I's
// input files to --kept-dir DIR (`neardup stage filter`), after the report.
//
// Every stage report leaves, per sign shard, the documents --mode duplicates
// lists (report/I.dropped, a DroppedList: format/dropped_list.h). A filter task reads only its
// shard's table, meta and list, and drives the pass of scan --kept-dir over
// its files (WriteKeptDir(), kept_dir.h): the same checks (stat keys, the
// hash of each dropped line), the same bytes. Together the N tasks write
// what scan --kept-dir writes with the same options, byte for byte. The stat
// key a file is checked against is the one its sign task saw, or, when that
// changed but the file's bytes hash as the sign task read them
// (ShardMeta::seen; a file not split between shards), the stat seen now:
// the hard links of an earlier filter run are not a change.
//
// Every task has names of its own below DIR: the report refuses, for every
// filter task and before any writes, input files of two shards that go to
// the same place (a/x.txt and b/x.txt given as PATHs a and b: both x.txt),
// where scan --kept-dir writes the first and not the other (the report
// checks every file but the reference ones, written or not, as it cannot
// tell which the filter tasks will write). So no task replaces a file
// another placed.
//
// A JSONL file split between sign shards (byte_shares.h) is written whole by
// the task of the shard holding its first range, from the dropped lists of
// every shard holding a range of it; the other tasks neither write nor
// remove it. So every file of DIR has one writer.
//
// DIR is shared by the tasks, each writing only its own files, each under a
// temporary name renamed into place. DIR must be new or empty when a task
// begins it: that task records it (filter/DEV-INO.dir, holding the list's
// fingerprint) before writing anything, so that the other tasks, and a task
// run again, accept it no longer empty. A task run again (after a kill, a
// requeue, or twice) leaves the folder one run leaves: it removes the
// temporaries a killed run of it left, and places each file again over the
// one there at once (renamed over it, never removed first: a kill at any
// moment leaves every file a finished run placed, whole); a hard link to the
// input already there stays. The inputs' change times its own hard links
// changed are no change (ProveUnchanged()).
//
// Thread safety: RunFilterTask uses options.threads threads inside; the
// tasks may run at once in distinct processes on one folder.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "distributed/format/dropped_list.h"
#include "distributed/work_folder.h"
#include "neardup/options.h"
#include "neardup/stages.h"
#include "neardup/status.h"

namespace neardup {

// One value for what decides the dropped documents past the candidates:
// the bucket tasks' fingerprint, the threshold, the verification, --keep
// and --cluster-by. A filter task refuses a list made with another.
uint64_t DroppedFingerprint(const Options& options);

// What a filter task says of a clash, refusing to write anything.
Status RefuseNameClash(const NameClash& clash);

// A shard's document count and its listing.
struct ShardSpan {
  uint64_t docs = 0;
  uint64_t listing = 0;  // ShardMeta::listing
};
// A report in pairs mode builds no clusters, which only the dropped lists
// (format/dropped_list.h) would need: it writes them deferred (the clash
// found, no ids), and the first filter task that reads one deferred builds
// them all, under a lock (report/.lists.lock), as a report of another mode
// writes them (WriteDroppedListsNow()): a pairs report followed by no filter
// task costs no clustering.
//
// Writes report/I.dropped for every shard of `shards` (atomically), the
// last shard's first: `dropped` (global ids, GlobalId(), ascending) split
// by shard, and `clash` in each; or, `deferred`, no ids. IoError on failure.
Status WriteDroppedLists(const WorkFolder& folder, const Options& options, const std::vector<ShardSpan>& shards,
                         const std::vector<uint64_t>& dropped, const NameClash& clash, bool deferred);

// The report's work over `work` again, for its dropped lists alone: writes
// them complete (stage_report.cc). The report's errors.
Status WriteDroppedListsNow(const Options& options, const std::string& work, const RunContext& ctx);

}  // namespace neardup
