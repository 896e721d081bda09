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
// tables (table_codec's DecodeRecordsWith: each table's records, and of its
// matrix only the rows needed), the shards without a document of the share
// not at all; the checksums of the tables are the report's to check, which
// reads them whole before it trusts a pair. The bucket outputs are streamed
// through a buffer of 1 MiB, each value checked as it passes and the file's
// checksum once read through (a damaged file is refused before anything is
// written). The memory of a task: its share of the pairs, the rows of their
// documents and that buffer, however large the bucket outputs.
//
// --exact is decided by the report, which reads the documents of the
// verified pairs again (verify_candidates.h), as scan does: the estimates
// written here are the candidates it verifies.
//
// Output: verify/K.pairs (VerifyOutput), then verify/K.done.
//
// Thread safety: RunVerifyTask is single-threaded.
//
//   Result<TaskRun> r = RunVerifyTask(options, "work", {.task = 1, .tasks = 3}, {});
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/options.h"
#include "neardup/stages.h"
#include "neardup/status.h"

namespace neardup {

struct VerifiedPair {
  uint64_t a = 0, b = 0;  // global ids of representatives, a < b
  double estimate = 0;    // signature agreement (DistinctScore), >= the candidate floor
};

struct VerifyOutput {
  uint64_t large_bucket = 0;                 // LargeBucketOf() the mode
  uint64_t visited = 0;                      // candidates of the share, each in its first shared band
  std::vector<VerifiedPair> pairs;           // ascending by (a, b), unique
  std::vector<std::vector<uint64_t>> large;  // large buckets of the share, each ascending
};

// The verify task of V that takes a pair or large bucket whose first
// document is `first` (a global id): Mix64(first) modulo V.
uint32_t VerifyTaskOf(uint64_t first, uint32_t tasks);

// BucketFingerprint() and the candidate floor.
uint64_t VerifyFingerprint(const Options& options);

// Encoding: magic "NDUPVRFY", u32 version, u64 large_bucket, u64 visited,
// u64 P, P records (u64 a, u64 b, f64 estimate), u64 L, L lists (u64 n,
// n u64 ids), XXH3-64 checksum.
std::string EncodeVerifyOutput(const VerifyOutput& out);
// Corrupt on a damaged checksum, size or field; the values are checked by
// CheckVerifyOutput().
Result<VerifyOutput> DecodeVerifyOutput(std::string_view bytes);

// Checks every value of `out`, task `t`'s output: pairs ascending and
// unique, a < b, every id of a shard (`shard_docs`: per shard, its count)
// and the first of each pair or list of the task's share, estimates in
// [floor, 1]; large buckets only when `large_bucket`, each of more ids,
// ascending. InvalidArgument when made for another mode; Corrupt naming the
// first bad value otherwise.
Status CheckVerifyOutput(const VerifyOutput& out, const std::vector<uint64_t>& shard_docs, uint64_t large_bucket,
                         double floor, StageTask t);

}  // namespace neardup
