// Mark list: report/I.marks, what stage filter --annotate-dir adds to each
// document of shard I that is in a cluster or dropped (the fields of
// annotate_dir.h), as bytes and back. Documents without a mark are in no
// cluster and kept.
//
// Layout (coding.h: little-endian, a text is its u64 length then its bytes):
//   8  magic "NDUPMARK"
//   4  u32 version (kMarksVersion = 1)
//   4+4  u32 shard, u32 shards
//   8  u64 DroppedFingerprint (stage_filter.h): what decides the clusters
//   8  u64 the shard's ListingFingerprint (its meta's)
//   8  u64 the shard's document count D
//   u64 N, then N texts: the names of the documents kept for the marked
//     duplicates (each once)
//   u64 K, then K marks, local ids strictly ascending and below D:
//     u64 local id, u32 cluster, u8 flags (1 clustered, 2 duplicate,
//     4 scored, 8 kept), f64 score, u32 name (below N; 0 when not a
//     duplicate)
//   8  u64 checksum: Checksum64() of every byte before it
//
// Thread safety: free functions over values.
//
//   std::string bytes = EncodeMarkList(list);
//   Result<MarkList> back = DecodeMarkList(bytes);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/stages.h"
#include "neardup/status.h"

namespace neardup {

struct ShardMark {
  uint64_t local = 0;  // the document's id in its shard
  uint32_t cluster = 0;
  uint32_t name = 0;  // MarkList::names, when `duplicate`
  double score = 0;
  bool clustered = false;
  bool duplicate = false;  // not the kept document of its cluster
  bool scored = false;
  bool kept = true;
};

struct MarkList {
  StageTask task;
  uint64_t fingerprint = 0;
  uint64_t listing = 0;
  uint64_t docs = 0;
  std::vector<std::string> names;
  std::vector<ShardMark> marks;
};

inline constexpr char kMarksMagic[8] = {'N', 'D', 'U', 'P', 'M', 'A', 'R', 'K'};
inline constexpr uint32_t kMarksVersion = 1;

// The encoding of `list` (the layout above).
std::string EncodeMarkList(const MarkList& list);
// The list encoded in `bytes`: Corrupt "mark list: ..." on any damage
// ("another format version", "damaged (checksum, size or fields)", "marks
// out of range or order").
Result<MarkList> DecodeMarkList(std::string_view bytes);

}  // namespace neardup
