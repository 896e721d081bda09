// Fuzz harness: bytes -> bucket/J.pairs -> DecodeBucketOutput and
// CheckBucketOutput (stage_bucket.h), as the report reads them.
//
// The first byte chooses: bit 0, whether to make the checksum match (so
// that mutations reach the checks behind it); bit 1, pairs or cluster mode
// (large buckets of more than 2). The rest is the file. The run checked
// against has shards of 3, 5, 0 and 2^40-1 documents and bands [2, 6).
// Checks that:
//   - decoding returns (no allocation the bytes do not justify); a failure
//     is Corrupt or InvalidArgument, one line;
//   - a decoded output re-encodes to the same bytes (the encoding is
//     canonical);
//   - an output that passes CheckBucketOutput() is what the report may use:
//     every id maps to a document of the merged table (first document of its
//     shard plus its local index, below the total), every band is in range,
//     pairs ascend with a < b.
#include <cstdint>
#include <cstring>
#include <string>

#include "base/hash.h"
#include "distributed/stage_bucket.h"
#include "distributed/stage_sign.h"
#include "harnesses.h"

namespace neardup::fuzz {
namespace {

const std::vector<uint64_t> kShardDocs = {3, 5, 0, (uint64_t{1} << 40) - 1};

// Whether `id` maps into the merged table, as the report maps it.
bool Maps(uint64_t id) {
  uint64_t first = 0, total = 0;
  for (size_t s = 0; s < kShardDocs.size(); ++s) {
    if (s < ShardOf(id)) first += kShardDocs[s];
    total += kShardDocs[s];
  }
  return ShardOf(id) < kShardDocs.size() && first + LocalOf(id) < total && LocalOf(id) < kShardDocs[ShardOf(id)];
}

bool Run(const uint8_t* data, size_t size) {
  if (size == 0) return true;
  const uint8_t mode = data[0];
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((mode & 1) != 0 && bytes.size() >= 8) {
    const uint64_t sum = HashBytes(bytes.data(), bytes.size() - 8, 0);
    std::memcpy(bytes.data() + bytes.size() - 8, &sum, 8);
  }
  Result<BucketOutput> out = DecodeBucketOutput(bytes);
  if (!out.ok()) {
    NEARDUP_FUZZ_CHECK(out.status().code() == Status::Code::kCorrupt ||
                       out.status().code() == Status::Code::kInvalidArgument);
    NEARDUP_FUZZ_CHECK(out.status().message().starts_with("bucket pairs: "));
    return true;
  }
  NEARDUP_FUZZ_CHECK(EncodeBucketOutput(*out) == bytes);
  const PairsLimits limits{
      .shard_docs = kShardDocs, .bands = {.first = 2, .last = 6}, .large_bucket = (mode & 2) != 0 ? 2u : 0u};
  const Status checked = CheckBucketOutput(*out, limits);
  if (!checked.ok()) {
    NEARDUP_FUZZ_CHECK(checked.code() == Status::Code::kCorrupt || checked.code() == Status::Code::kInvalidArgument);
    NEARDUP_FUZZ_CHECK(checked.message().find('\n') == std::string::npos);
    return true;
  }
  for (size_t k = 0; k < out->pairs.size(); ++k) {
    const BucketPair& p = out->pairs[k];
    NEARDUP_FUZZ_CHECK(Maps(p.a) && Maps(p.b) && p.a < p.b);
    NEARDUP_FUZZ_CHECK(p.band >= 2 && p.band < 6);
    NEARDUP_FUZZ_CHECK(k == 0 || out->pairs[k - 1] < p);
  }
  NEARDUP_FUZZ_CHECK(out->large.empty() || limits.large_bucket > 0);
  for (const std::vector<uint64_t>& list : out->large) {
    NEARDUP_FUZZ_CHECK(list.size() > limits.large_bucket);
    for (size_t k = 0; k < list.size(); ++k) NEARDUP_FUZZ_CHECK(Maps(list[k]) && (k == 0 || list[k - 1] < list[k]));
  }
  return true;
}

}  // namespace

int PairsFuzz(const uint8_t* data, size_t size) {
  Run(data, size);
  return 0;
}

}  // namespace neardup::fuzz

#ifndef NEARDUP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return neardup::fuzz::PairsFuzz(data, size); }
#endif
