// Containment share: the containment candidates a bucket task finds with
// --relation contains|both (`neardup stage bucket`), as scan finds them
// (containment_candidates.h): the representatives with at least
// --min-contained distinct shingles, grouped by size strata and banded per
// distance between strata with that distance's banding.
//
// The bands of the sign tasks' band files are those of the Jaccard banding
// alone: a containment banding has other rows per band for each distance.
// So the task reads the shard tables (checked whole, checksum included) and
// copies the documents that can be contained or contain (kOk, at least
// --min-contained distinct shingles: id, size, content and signature) to a
// store, in memory up to a budget and else in a temporary file, counting
// them by stratum. It then knows its share of the banding passes
// (PassShare: pass p is task p mod M's, numbered as scan numbers them).
// The bands of its passes are taken a group at a time on the workers, as
// many as a budget holds the band keys of: each group reads the store
// through, keeps the keys of the documents of its passes' strata, and finds
// its buckets as LshIndex does (a band larger than the budget has its keys
// sorted in temporary files). When the store is in a temporary file and
// reading it once a group would cost more than writing the keys, every key
// goes to one SortedRuns instead. Each bucket's members are read back from
// the store a batch at a time, reduced to the first of each content (the
// representative, as CopyGroups takes it: copies share every bucket), and
// paired as LshIndex pairs them (across the two strata past distance 0, each
// pair in the first band it shares), so that the candidates and visited
// counts of the M tasks add up to scan's.
//
// Memory: ContainedShareMemory's budgets, and a batch of buckets' members;
// nothing per document. Disk: the store past its budget, and the keys past
// theirs, in temporary files.
//
// Thread safety: the groups and the batches on the run's workers; the
// output does not depend on them.
//
//   Result<ContainedShare> c = FindContainedShare(run, folder, shards, {.task = 1, .tasks = 3},
//                                                 ContainedShareMemory::Of(run.options()));
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

// What FindContainedShare() holds in memory: the documents that can be
// contained up to `documents` bytes (past it, all in a temporary file), and
// band keys and pairs found up to `keys` bytes each (past it, sorted in
// temporary files).
struct ContainedShareMemory {
  uint64_t documents = 0;
  uint64_t keys = 0;
  // Options::pair_memory for the documents, a third of it for each of the
  // others.
  static ContainedShareMemory Of(const Options& options);
};

// The containment candidates of bucket task `t` over the `shards` shard
// tables of `folder`, within `memory`. Errors: Corrupt naming a damaged table ("...: run again
// in an empty work folder"), InvalidArgument for a table signed with other
// parameters, IoError, Cancelled.
// REQUIRES: run.options().relation is contains or both, and the threshold is
// below 1.
Result<ContainedShare> FindContainedShare(const Run& run, const WorkFolder& folder, uint32_t shards, StageTask t,
                                          ContainedShareMemory memory);

}  // namespace neardup
