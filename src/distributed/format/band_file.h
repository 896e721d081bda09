// Band file: sign/I.bands, a shard's band keys in sorted runs and each
// document's content hash, as bytes and back. A sign task writes it as its
// keys spill (shard_writer.h); a bucket task reads only its bands, merging
// their runs of every shard (stage_bucket.h). This file holds the
// encodings of its parts; the tasks read and write the file.
//
// Layout (coding.h: little-endian):
//   Header (kBandsHeaderSize = 48 bytes, written last):
//     8 magic "NDUPBAND", u32 version (kBandsVersion), u32 bands, u32 rows,
//     u32 R the runs (at least 1), u64 SignFingerprint, u64 K the entries
//     per band, u64 D the shard's documents
//   R runs, each of them `bands` sorted runs of entries of kBandEntrySize
//   bytes (u64 band hash, the local id in kBandIdBytes = 4 bytes: the shard
//   is the file's), band after band: run r's band b holds n[r][b] entries,
//   sorted by (hash, id) with no repeat, every id below D, and the n[r][b]
//   of a band add up to K (each signed document once in each band);
//   the copies section: per document of the shard, in id order, its
//   16-byte content hash (u64 low, u64 high), which the bucket task reads
//   by id only for the members of buckets of two or more;
//   the trailer (BandsTrailerSize()): the n[r][b] (u64, run after run, band
//   after band), Checksum64() of each run's band in the same order,
//   Checksum64() of the copies section, and BandsIndexChecksum() of the
//   header and those.
// A bucket task checks each run as it reads it, and the copies section
// whole before it reads a content hash from it. The work folder is
// 16 + 12*bands bytes a document for the keys, and 16*bands bytes a run.
// (Version 2 added the trailer of checksums; 3 the copies section and
// 5-byte ids; 4 the runs; 5 4-byte ids.)
//
// Thread safety: free functions over values.
//
//   std::string header = EncodeBandsHeader(h);
//   Result<BandsHeader> back = DecodeBandsHeader(header);
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "neardup/status.h"

namespace neardup {

inline constexpr size_t kBandsHeaderSize = 48;
inline constexpr size_t kBandEntrySize = 12;
inline constexpr size_t kBandIdBytes = 4;  // local ids are below 2^32 (kMaxShardDocs)
// The most documents a shard (one sign task's share) may hold.
inline constexpr uint64_t kMaxShardDocs = UINT32_MAX;
inline constexpr size_t kCopyEntrySize = 16;  // a content hash
inline constexpr uint32_t kBandsVersion = 5;
inline constexpr char kBandsMagic[8] = {'N', 'D', 'U', 'P', 'B', 'A', 'N', 'D'};

// A band key while sorting and merging (in a bucket task, `id` is global).
struct BandEntry {
  uint64_t hash = 0;  // XXH3-64 of the band's rows, seeded by the band (as LshIndex)
  uint64_t id = 0;
  bool operator<(const BandEntry& o) const { return hash != o.hash ? hash < o.hash : id < o.id; }
};

// What the header says.
struct BandsHeader {
  uint32_t bands = 0;
  uint32_t rows = 0;
  uint32_t runs = 0;
  uint64_t fingerprint = 0;  // SignFingerprint()
  uint64_t per_band = 0;     // K
  uint64_t docs = 0;         // D
};
// The kBandsHeaderSize bytes of `header`.
std::string EncodeBandsHeader(const BandsHeader& header);
// The header in the first kBandsHeaderSize bytes of `bytes` (REQUIRES: at
// least that many): Corrupt "not a band file" for another magic or version.
// Its values are the reader's to check (BandsFileSize()).
Result<BandsHeader> DecodeBandsHeader(std::string_view bytes);

// The size of a band file of `bands` bands of `per_band` entries in `runs`
// runs over a shard of `docs` documents; nothing when it would not fit 64
// bits.
std::optional<uint64_t> BandsFileSize(uint64_t bands, uint64_t per_band, uint64_t docs, uint64_t runs);

// What the trailer says: run r's band b is [r * bands + b] of `counts` and
// `sums`.
struct BandsTrailer {
  std::vector<uint64_t> counts;
  std::vector<uint64_t> sums;
  uint64_t copies_sum = 0;
  uint64_t index_sum = 0;  // BandsIndexChecksum()
};
// The trailer's size for `runs` runs of `bands` bands: (2*runs*bands + 2) * 8.
inline uint64_t BandsTrailerSize(uint64_t runs, uint64_t bands) { return (2 * runs * bands + 2) * 8; }
// The trailer's bytes for `counts` and `sums` (of equal sizes), the copies'
// checksum, and `header` (the header's bytes) for the last field.
std::string EncodeBandsTrailer(std::string_view header, const std::vector<uint64_t>& counts,
                               const std::vector<uint64_t>& sums, uint64_t copies_sum);
// The trailer in `bytes` (REQUIRES: BandsTrailerSize() bytes for `runs` runs
// of `bands`); its index checksum is the caller's to check
// (BandsIndexChecksum()).
BandsTrailer DecodeBandsTrailer(std::string_view bytes, uint64_t runs, uint64_t bands);
// The trailer's last field: Checksum64() of the header and the trailer's
// other fields (the counts, the runs' checksums, the copies section's),
// `fields` being those fields' bytes.
uint64_t BandsIndexChecksum(std::string_view header, std::string_view fields);

// Replaces `out` with the entries of `keys`, kBandEntrySize bytes each (the
// ids local to the shard, below 2^32).
void EncodeBandEntries(std::span<const BandEntry> keys, std::string& out);
// The entry at `p` (kBandEntrySize bytes): its hash, and its local id.
BandEntry DecodeBandEntry(const char* p);

// Appends `hash`'s kCopyEntrySize bytes (low, high).
void PutContentHash(std::string* out, ContentHash hash);
// The content hash at `p` (kCopyEntrySize bytes).
ContentHash DecodeContentHash(const char* p);

}  // namespace neardup
