// Stage verify: task K of V scores its share of the candidate pairs the
// bucket tasks wrote (`neardup stage verify`).
//
// The share: the pairs (and, in cluster modes, the large buckets) whose
// first document's global id hashes to K modulo V (VerifyTaskOf()). A hash,
// not the sign shard: the pairs of any N shards spread evenly over any V
// tasks (by shard, V > N would leave tasks idle, and a shard rich in
// duplicates would load one task), and each task holds the rows of about
// 1/V of the documents in pairs. Its partners are in any shard either way.
//
// Each pair is kept as the report kept it before (FindCandidates' rule):
// only in the first band its two signatures really share, counted as a
// visited candidate, and written when its estimate reaches the candidate
// floor (CandidateFloor()). Large buckets are passed on whole, for the
// report's leaders (candidates.h). The rows are read by id from the shard
// tables, one pread each where the table's header puts them (neither the
// records nor the rest of the matrix are read, nothing is mapped), the
// shards without a document of the share not at all; the checksums of the tables are the report's to check, which
// reads them whole before it trusts a pair. The bucket outputs are streamed
// through a buffer of 1 MiB, each value checked as it passes and the file's
// checksum once read through (a damaged file is refused before anything is
// written). The memory of a task: its share of the pairs, the rows of their
// documents and that buffer, however large the bucket outputs.
//
// --exact (and -t 1, which reads copies again whatever --verify says) is
// decided here, not by the report: the task reads again the documents of
// its share, as scan's verification reads them (verify_candidates.h, the
// same code): every document of its candidate pairs (the pairs of its large
// buckets led here, as candidates.h leads them) and every copy of theirs,
// and every group of copies whose first document's key hashes to K (the
// groups found by sorting every document's content key, content_keys.h, in
// bounded memory). A document that is not what was signed is left out with
// scan's message. Below -t 0.7 (WantsBitmaps()), before it reads anything
// again, the task reads by id the bitmaps the sign tasks stored for the
// documents of its pairs (format/shard_bitmaps.h) and drops the pairs they
// rule out (CandidateRule, large buckets too), as scan does; a shard
// without the file rules none out. It writes the pairs --exact accepts with their exact
// Jaccard, the documents left out, and the shingle sets of
// the representatives of its pairs (--cluster-by keep compares any two
// members of a cluster). The report adopts these verdicts and reads no
// document. The records are read by id from the shard tables, in one
// shard's pass at a time; the memory of the task: the documents of its
// share (their records, rows and sets), never the
// corpus's.

// With --relation contains|both, the containment candidates of the bucket
// tasks (containment_share.h) are shared the same way (by their first
// document) and taken with the others, a pair in both once: from the
// signatures with their estimate (their floor was the bucket task's; the
// report judges their relation from the estimate and the sizes), or read
// again and judged as scan judges them (the overlap both ways, RelationRule),
// each written with its relation; no bitmap rules them out. Task 0 adds the
// containment pairs the bucket tasks visited to its visited count.
//
// Output: verify/K.pairs (VerifyOutput, format/verify_output.h), then
// verify/K.done (task_frame.h).
//
// Thread safety: RunVerifyTask is single-threaded.
//
//   Result<TaskRun> r = RunVerifyTask(options, "work", {.task = 1, .tasks = 3}, {});
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "distributed/format/verify_output.h"
#include "neardup/options.h"
#include "neardup/stages.h"
#include "neardup/status.h"
#include "verify/verify_candidates.h"

namespace neardup {

// The verify task of V that takes a pair or large bucket whose first
// document is `first` (a global id): Mix64(first) modulo V.
uint32_t VerifyTaskOf(uint64_t first, uint32_t tasks);

// BucketFingerprint(), the candidate floor, and whether (and against which
// threshold) the documents are read again.
uint64_t VerifyFingerprint(const Options& options);

// InvalidArgument naming the first output of `dir` (the verify folder) made
// by reading the documents again when `reread` is false, or the reverse:
// verdicts of the two kinds are never mixed. Files that cannot be read or
// are of another format are left to the checks that follow.
Status CheckVerifyKinds(const std::string& dir, bool reread);

// Checks every value of `out`, task `t`'s output: pairs ascending and
// unique, a < b, every id of a shard (`shard_docs`: per shard, its count)
// and the first of each pair or list of the task's share, estimates in
// [rule.candidate_floor, 1]; large buckets only when `large_bucket`, each of more ids,
// ascending. Read again: the pairs' first documents may be of any task
// (those of a large bucket are the leaders'), their Jaccard in
// [threshold, 1], and no large bucket. InvalidArgument when made for another
// mode; Corrupt naming the first bad value otherwise. With `relation`
// contains or both, estimates and Jaccards may be any in [0, 1] (a
// containment's floor depends on the sizes), a pair read again may have any
// kind, and the containment candidates' visited count is task 0's alone;
// else every kind is kSimilar. Whether the output is
// of the kind the report needs (reread) is the caller's to check.
Status CheckVerifyOutput(const VerifyOutput& out, const std::vector<uint64_t>& shard_docs, uint64_t large_bucket,
                         const Verification& rule, Relation relation, StageTask t);

}  // namespace neardup
