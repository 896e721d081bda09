// Dropped list: report/I.dropped, the documents of shard I that the report
// drops (what stage filter leaves out of --kept-dir), as bytes and back.
//
// Layout (coding.h: little-endian, a text is its u64 length then its bytes):
//   8  magic "NDUPDROP"
//   4  u32 version (kDroppedVersion = 2: the clash and `deferred`)
//   4+4  u32 shard, u32 shards
//   8  u64 DroppedFingerprint (stage_filter.h)
//   8  u64 the shard's ListingFingerprint (its meta's)
//   8  u64 the shard's document count D
//   the NameClash: three texts (first, second, name; every list holds the
//     same)
//   1  u8 deferred (0 or 1)
//   u64 K, then K u64 local ids strictly ascending and below D (none when
//     deferred)
//   8  u64 checksum: Checksum64() of every byte before it
//
// Thread safety: free functions over values.
//
//   std::string bytes = EncodeDroppedList(list);
//   Result<DroppedList> back = DecodeDroppedList(bytes);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/stages.h"
#include "neardup/status.h"

namespace neardup {

// Two input files that stage filter would write to the same place below
// --kept-dir (their paths below their PATHs are the same: a/x.txt and
// b/x.txt given as PATHs a and b), found by the report over every shard
// (of several, the one whose later file comes first in the run's order).
// `name` empty: none.
struct NameClash {
  std::string first;
  std::string second;
  std::string name;  // the place below DIR
};

// A report in pairs mode builds no clusters, which only the dropped lists
// would need: it writes them deferred (the clash found, no ids), and the
// first filter task that reads one deferred builds them all (stage_filter.h).
struct DroppedList {
  StageTask task;
  uint64_t fingerprint = 0;
  uint64_t listing = 0;
  uint64_t docs = 0;
  NameClash clash;
  bool deferred = false;
  std::vector<uint64_t> ids;
};

inline constexpr char kDroppedMagic[8] = {'N', 'D', 'U', 'P', 'D', 'R', 'O', 'P'};
inline constexpr uint32_t kDroppedVersion = 2;

// The encoding of `list` (the layout above).
std::string EncodeDroppedList(const DroppedList& list);
// The list encoded in `bytes`: Corrupt "dropped list: ..." on any damage
// ("another format version", "damaged (checksum, size or fields)" for a
// damaged checksum, size or field or a task out of range, "ids out of range
// or order").
Result<DroppedList> DecodeDroppedList(std::string_view bytes);

}  // namespace neardup
