// Stage report: the work folder's shards and candidate pairs -> the scan's
// Report (`neardup stage report`), the last of the three stages.
//
// It checks that every sign task and every bucket task has finished (the
// missing ones are listed by number), loads the shard tables in task order
// into one SignatureTable (the scan's DocIds), makes JSONL ids unique over
// all of them, groups copies, takes the candidates from the bucket tasks (a
// pair only in the first band its rows really share; large buckets by
// leaders, as FindCandidates), then verifies (with --exact, re-reading the
// candidates' documents by their paths in the shards), builds pairs or
// clusters, and tallies problems exactly as FindDuplicates (pipeline.h): the
// Report is the same as the scan's with the same inputs and options, for any
// number of sign and bucket tasks.
//
// Memory: the whole signature table (4 * num_perm bytes a document), the
// documents' names and the candidate pairs, as a scan after signing.
//
// Thread safety: uses options.threads threads inside.
//
//   Result<Report> r = RunReportTask(options, "work", {});
#pragma once

#include <string>

#include "neardup/options.h"
#include "neardup/pipeline.h"
#include "neardup/report.h"
#include "neardup/status.h"
#include "neardup/work_folder.h"

namespace neardup {

// InvalidArgument when tasks are missing or shards were signed with other
// parameters (each difference named); Corrupt or IoError for damaged or
// unreadable work files.
Result<Report> RunReportTask(const Options& options, const std::string& work, const RunContext& ctx);

}  // namespace neardup
