// Bucket pairs: bucket/J.pairs, the candidate pairs a bucket task found in
// its bands (and, in cluster modes, its large buckets), as bytes and back:
// read whole (DecodeBucketOutput()) or streamed from the file
// (StreamBucketPairs()) by a verify task that keeps only its share.
//
// Layout (coding.h: little-endian):
//   8  magic "NDUPPAIR"
//   4  u32 version (kBucketPairsVersion = 2)
//   8  u64 large_bucket (0 in pairs mode)
//   u64 P, then P pairs: u64 a, u64 b, u64 band (24 bytes each)
//   the large buckets as id lists (id_lists.h): u64 L, L lists (u64 n, n
//     u64 ids)
//   u64 contained_visited, u64 C, then C containment candidates: u64 a,
//     u64 b (16 bytes each; --relation contains|both, else 0 and 0)
//   8  u64 checksum: Checksum64() of every byte before it
// (Version 2 added the containment candidates.)
//
// Thread safety: free functions over values; a FileSource is the caller's.
//
//   std::string bytes = EncodeBucketOutput(out);
//   Result<BucketOutput> back = DecodeBucketOutput(bytes);
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/coding.h"
#include "neardup/status.h"

namespace neardup {

struct BucketPair {
  uint64_t a = 0, b = 0;  // global ids of representatives, a < b
  uint64_t band = 0;
  bool operator<(const BucketPair& o) const { return a != o.a ? a < o.a : b != o.b ? b < o.b : band < o.band; }
  bool operator==(const BucketPair&) const = default;
};

// A containment candidate (--relation contains|both): found by the size
// strata's banding (containment_candidates.h), its estimate at or above
// the containment floor of its sizes.
struct ContainedPair {
  uint64_t a = 0, b = 0;  // global ids of representatives, a < b
  bool operator<(const ContainedPair& o) const { return a != o.a ? a < o.a : b < o.b; }
  bool operator==(const ContainedPair&) const = default;
};

struct BucketOutput {
  uint64_t large_bucket = 0;                 // 0 in pairs mode, else kLargeBucket
  std::vector<BucketPair> pairs;             // sorted, unique
  std::vector<std::vector<uint64_t>> large;  // large buckets' representatives, ascending
  // --relation contains|both: the pairs the task's passes of the size
  // strata's banding produced (Candidates::visited), and the candidates
  // among them, sorted, unique. Else 0 and none.
  uint64_t contained_visited = 0;
  std::vector<ContainedPair> contained;
};

inline constexpr char kBucketPairsMagic[8] = {'N', 'D', 'U', 'P', 'P', 'A', 'I', 'R'};
inline constexpr uint32_t kBucketPairsVersion = 2;

// The encoding of `out` (the layout above).
std::string EncodeBucketOutput(const BucketOutput& out);
// The output encoded in `bytes`: InvalidArgument "bucket pairs: another
// format version" for another version; Corrupt "bucket pairs: damaged
// (checksum, size or fields)" on a damaged checksum, size or field. The
// values are checked by CheckBucketOutput() (stage_bucket.h).
Result<BucketOutput> DecodeBucketOutput(std::string_view bytes);

// What StreamBucketPairs() hands over, field by field. Each returns Ok, or
// the error that stops the stream.
struct BucketPairsVisitor {
  std::function<Status(uint64_t large_bucket)> header;
  // Called with each pair in order, and its index.
  std::function<Status(uint64_t index, const BucketPair& pair)> pair;
  // Called with each large bucket in order.
  std::function<Status(std::vector<uint64_t> list)> list;
  // Called with the containment pairs visited, then with each containment
  // candidate in order, and its index (each read and passed over when unset).
  std::function<Status(uint64_t visited)> contained_visited;
  std::function<Status(uint64_t index, const ContainedPair& pair)> contained;
};
// Streams the bucket output that `in` (opened) reads to `visit`, then reads
// the file through for its checksum. Returns, once the file is read
// through: Corrupt "bucket pairs: damaged (checksum, size or fields)" when
// the checksum does not match (before any other error), or the first error
// of the fields (Corrupt "bucket pairs: another format version", the
// damaged one above for a bad magic, size or count) or of `visit`; else Ok.
// Memory: `in`'s buffer and one large bucket.
Status StreamBucketPairs(FileSource& in, const BucketPairsVisitor& visit);

}  // namespace neardup
