// Stage bucket: task J of M finds the candidate pairs of its share of the
// bands, [J*b/M, (J+1)*b/M), from every shard's band keys
// (`neardup stage bucket`).
//
// For each of its bands it merges the sorted runs of BandEntry of every
// shard (format/band_file.h: a shard holds one run a band each time its sign
// task spilled its keys), reading them in blocks with pread: its memory is a
// block per run (4096 entries, fewer past 256 runs in all), the largest
// bucket and the pairs it finds, never a whole signature. A bucket is a run of entries with one band hash. Copies share
// every band, so a bucket holds every copy of each text in it: its
// representatives (the smallest global id per content hash, read by id from
// the shards' copies sections for buckets of two or more) are the scan's
// (copy_groups.h). Each pair of representatives of a bucket is written with
// its band; the report keeps a pair only in the first band whose rows the
// two really share, as LshIndex does. In cluster modes a bucket of more than
// kLargeBucket representatives is written whole instead, for the report's
// leaders (candidates.h).
//
// With --relation contains|both, the task also finds its share of the
// containment candidates from the shard tables (containment_share.h: the
// size strata's passes p with p mod M = J); with contains alone it buckets
// no band.
//
// Output: bucket/J.pairs (BucketOutput, sorted: format/bucket_pairs.h), then
// bucket/J.done (task_frame.h).
//
// Thread safety: RunBucketTask buckets its bands on options.threads threads
// (one band a thread at a time); the output does not depend on them.
//
//   Result<TaskRun> ran = RunBucketTask(options, "work", {.task = 1, .tasks = 3}, {});
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/parallel.h"
#include "distributed/format/bucket_pairs.h"
#include "distributed/work_folder.h"
#include "lsh/banding.h"
#include "neardup/options.h"
#include "neardup/stages.h"
#include "neardup/status.h"

namespace neardup {

// The large-bucket size a mode needs: kLargeBucket in cluster modes, else 0.
uint64_t LargeBucketOf(const Options& options);
// SignFingerprint() and the large-bucket size; with --relation contains|both,
// what decides the containment candidates too (--relation, --max-ratio,
// --min-contained, --min-jaccard, --min-ratio, -t, --verify, the exact
// margin: ContainmentFloor()).
uint64_t BucketFingerprint(const Options& options);

// Bands [first, last).
struct BandRange {
  uint64_t first = 0, last = 0;
};
// The bands of bucket task `t` of `bands`: [t.task*bands/t.tasks, ...).
BandRange BandsOfTask(StageTask t, uint64_t bands);

// What a bucket task's output may hold.
struct PairsLimits {
  std::vector<uint64_t> shard_docs;  // per shard, its document count
  BandRange bands;                   // the task's bands
  uint64_t large_bucket = 0;         // LargeBucketOf() the mode
};
// Whether `id` (a global id) is a document of one of the shards, whose
// document counts are `shard_docs`.
bool IdInRange(uint64_t id, const std::vector<uint64_t>& shard_docs);
// Large buckets only in cluster modes (`large_bucket` > 0), each of more
// than `large_bucket` ids of the shards, ascending: Corrupt naming the first
// bad value, else Ok.
Status CheckLargeBuckets(const std::vector<std::vector<uint64_t>>& large, const std::vector<uint64_t>& shard_docs,
                         uint64_t large_bucket);
// Checks containment candidate `p` (after `before`, null for the first):
// ascending and unique, a < b, both ids of the shards. Corrupt naming the
// first bad value, else Ok.
Status CheckContainedPair(const ContainedPair* before, const ContainedPair& p, const std::vector<uint64_t>& shard_docs);
// Checks every value of `out` against `limits`: pairs ascending and unique,
// a < b, every id of a shard and below its document count, bands the task's;
// large buckets only in cluster modes, each of more than `large_bucket` ids,
// ascending; containment candidates as CheckContainedPair() checks them, no
// more than were visited. InvalidArgument when made for another mode; Corrupt naming the
// first bad value otherwise; else Ok.
Status CheckBucketOutput(const BucketOutput& out, const PairsLimits& limits);

// A shard's band file to read: where, the shard's number and its document
// count (its table's header).
struct ShardBands {
  std::string path;
  uint32_t shard = 0;
  uint64_t docs = 0;
};
// The candidates of `range` from the shards' band files (pairs sorted and
// unique): what bucket task writes. Each file is checked: its header
// against `banding` and `fingerprint`, its size, its trailer's checksum, and
// each run read against its checksum, each entry's id against its shard and
// the order. Corrupt naming the file ("...: run again in an empty work
// folder"), InvalidArgument for a file of other options, IoError.
// The bands are bucketed on `workers` (one band a worker at a time); the
// output does not depend on the threads.
Result<BucketOutput> BucketBands(const std::vector<ShardBands>& shards, Banding banding, uint64_t fingerprint,
                                 BandRange range, uint64_t large_bucket, const Workers& workers = Workers{});

}  // namespace neardup
