// The marks of --annotate-dir for the stage tasks: report/I.marks per sign
// shard (format/mark_list.h), the fields annotate_dir.h adds to each of the
// shard's documents in a cluster or dropped.
//
// The report task does not write them: a run that annotates nothing costs
// nothing for them. The first filter task given --annotate-dir that finds
// its shard's list missing, or made from other sign tasks or with other
// options, does the report's work again over the work folder (one task at a
// time, under report/.lists.lock, as the deferred dropped lists of a pairs
// report are completed: stage_filter.h) and writes every shard's list,
// the last shard's first, with the dropped lists. The clusters are those of
// the whole corpus, in every mode, as scan --annotate-dir's.
//
// Thread safety: free functions; the lists are written under the lock.
//
//   WriteMarkLists(folder, options, spans, needed, outcome);      // the report's work
//   AnnotateMarks marks;                                           // a filter task
//   marks.files.resize(sources.files.size());
//   Status s = AddShardMarks(folder, options, task, {sources.docs, listing, same_file}, &marks);
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "distributed/stage_filter.h"
#include "distributed/work_folder.h"
#include "neardup/options.h"
#include "neardup/stages.h"
#include "neardup/status.h"
#include "scan/annotate_dir.h"
#include "scan/phases.h"

namespace neardup {

// Writes report/I.marks for every shard of `shards` (atomically, the last
// shard's first): the marks of `reported`'s clusters, removable and dropped
// documents (its DocIds; `global[d]`: the global id, GlobalId(), of DocId
// d). REQUIRES: `reported` made with --annotate-dir (its clusters kept).
Status WriteMarkLists(const WorkFolder& folder, const Options& o, const std::vector<ShardSpan>& shards,
                      const std::vector<uint64_t>& global, const ReportOutcome& reported);

// The report's work over `work` again, for its dropped lists and mark
// lists alone (stage_report.cc). The report's errors. REQUIRES: --annotate-dir
// given, --kept-dir not.
Status WriteMarkListsNow(const Options& o, const std::string& work, const RunContext& ctx);

// Removes report/I.marks of every shard below `shards`: a report run again
// leaves none of an earlier one, which its own lists may contradict.
// IoError when one cannot be removed.
Status RemoveMarkLists(const WorkFolder& folder, uint32_t shards);

// Whether shard t's list is there, made with these options from the sign
// tasks of `listing`.
bool MarksCurrent(const WorkFolder& folder, const Options& o, StageTask t, uint64_t listing);

// The documents of shard t as a filter task holds them (`docs`: its
// KeptSources::Doc, by local id) and the file each goes to in `out`
// (`file_of(shard file)`, or -1: left out). Adds the documents' lines and
// their marks from the shard's list (read and checked: its document count,
// `listing`, the options) to `out`.
struct ShardDocs {
  const std::vector<KeptSources::Doc>& docs;
  uint64_t listing = 0;
  std::function<int64_t(uint32_t)> file_of;
};
Status AddShardMarks(const WorkFolder& folder, const Options& o, StageTask t, const ShardDocs& shard,
                     AnnotateMarks* out);

}  // namespace neardup
