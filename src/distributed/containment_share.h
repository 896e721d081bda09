// Containment share: the containment candidates a bucket task finds with
// --relation contains|both (`neardup stage bucket`), as scan finds them
// (containment_candidates.h): the representatives with at least
// --min-contained distinct shingles, grouped by size strata and banded per
// distance between strata with that distance's banding.
//
// The bands of the sign tasks' band files are those of the Jaccard banding
// alone: a containment banding has other rows per band for each distance.
// So the task reads the shard tables instead: the records of every shard
// (checked whole, checksum included), keeping those of the documents that
// can be contained or contain (kOk, at least --min-contained distinct
// shingles, the first of their content: the representative, as CopyGroups
// takes it) and their signatures. It runs its share of the banding passes
// (PassShare: pass p is task p mod M's), so that the candidates and visited
// counts of the M tasks add up to scan's; a pair of documents is met in the
// pass of its two strata only.
//
// Memory: the records and signatures of the documents kept (those that can
// be contained), and the task's candidates; never the other records.
//
// Thread safety: bands on the run's workers; the output does not depend on
// them.
//
//   Result<ContainedShare> c = FindContainedShare(run, folder, shards, {.task = 1, .tasks = 3});
#pragma once

#include <cstdint>
#include <vector>

#include "distributed/format/bucket_pairs.h"
#include "distributed/work_folder.h"
#include "neardup/stages.h"
#include "neardup/status.h"
#include "scan/run.h"

namespace neardup {

// What a bucket task finds of the containment candidates.
struct ContainedShare {
  uint64_t visited = 0;              // pairs its passes produced
  std::vector<ContainedPair> pairs;  // candidates, global ids, ascending, unique
};

// The containment candidates of bucket task `t` over the `shards` shard
// tables of `folder`. Errors: Corrupt naming a damaged table ("...: run again
// in an empty work folder"), InvalidArgument for a table signed with other
// parameters, IoError, Cancelled.
// REQUIRES: run.options().relation is contains or both, and the threshold is
// below 1.
Result<ContainedShare> FindContainedShare(const Run& run, const WorkFolder& folder, uint32_t shards, StageTask t);

}  // namespace neardup
