// Shard meta: sign/I.meta, what a sign task found besides its table (its
// problems and counts, the walk's tally, the fingerprint of the listing it
// walked, and what it saw of each file of its share), as bytes and back.
// Also the global ids every work-folder format uses: a document's global id
// is (shard << kShardShift) | its local index in its shard.
//
// Layout (coding.h: little-endian, a text is its u64 length then its bytes):
//   8  magic "NDUPMETA"
//   4  u32 version (kMetaVersion = 5)
//   4+4  u32 task, u32 tasks
//   8*4  u64 first_file, first_begin, last_end, listing
//   8*4  u64 counts: bytes, invalid_utf8, transcoded, duplicate_ids
//   u64 P, P problems: u32 file, u64 line, u8 kind, u8 status code (never
//     0), text message
//   7*8  u64 walk counts: hidden, glob, too_large, symlinks, loops,
//     dangling, special
//   u64 E, E walk errors: u8 status code (never 0), text message
//   u64 R, R u32 roots
//   u64 K, K texts: kept_paths
//   u64 H, H u32 line_hashes
//   u64 I, I texts: inputs
//   u64 S, S FileSeen: u64 size, dev, ino, mtime_ns, raw_hash
//   8  u64 checksum: Checksum64() of every byte before it
// (Version 2 added the listing fingerprint; 3 what stage filter needs; 4
// first_begin and last_end; 5 the listing of paths and sizes, and `seen`.)
//
// Thread safety: free functions over values.
//
//   std::string bytes = EncodeShardMeta(meta);
//   Result<ShardMeta> back = DecodeShardMeta(bytes);
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "neardup/stages.h"
#include "neardup/status.h"
#include "walk/walk.h"

namespace neardup {

inline constexpr int kShardShift = 40;  // local index < 2^40, shard < 2^24
inline uint64_t GlobalId(uint32_t shard, uint64_t local) { return (uint64_t{shard} << kShardShift) | local; }
inline uint32_t ShardOf(uint64_t global) { return static_cast<uint32_t>(global >> kShardShift); }
inline uint64_t LocalOf(uint64_t global) { return global & ((uint64_t{1} << kShardShift) - 1); }

// What a sign task saw of one file of its share (its path is the table's:
// a meta read by the report stays small).
struct FileSeen {
  uint64_t size = 0;
  uint64_t dev = 0;
  uint64_t ino = 0;
  int64_t mtime_ns = 0;
  // XXH3-64 (seed 0) of the bytes of the file's part as signed
  // (byte_shares.h); 0: unknown (not read to the part's end, as a binary
  // file).
  uint64_t raw_hash = 0;
};

// What a sign task found besides its table.
struct ShardMeta {
  StageTask task;
  uint64_t first_file = 0;  // index of its first file among all walked files
  // Where its share starts in its first file and ends in its last
  // (byte_shares.h): first_begin > 0 when the first file continues the
  // range of an earlier shard, last_end below the last file's size when a
  // later shard continues it. 0 and 0 for a shard without files.
  uint64_t first_begin = 0;
  uint64_t last_end = 0;
  uint64_t listing = 0;  // ListingFingerprint() of the task's whole walk
  SignCounts counts;
  std::vector<InputProblem> problems;  // `file` is local to the shard
  WalkCounts walk;                     // the walk's (the same in every shard)
  std::vector<Status> walk_errors;
  // Per file of the shard, the input it came from (InputFile::root), which
  // the table does not store: --keep first follows input order.
  std::vector<uint32_t> roots;
  // What stage filter needs besides the table, without the PATHs: per file,
  // its path below --kept-dir (KeptPathOf()); per document, the hash of its
  // JSONL line (DocRecord::line_hash, 0 for text); the inputs --kept-dir is
  // checked against (every PATH and --against path, and the listed paths
  // the shard's files came from).
  std::vector<std::string> kept_paths;
  std::vector<uint32_t> line_hashes;
  std::vector<std::string> inputs;
  // Per file of the shard, what the task saw of it (CheckShareUnchanged).
  std::vector<FileSeen> seen;
};

inline constexpr char kMetaMagic[8] = {'N', 'D', 'U', 'P', 'M', 'E', 'T', 'A'};
inline constexpr uint32_t kMetaVersion = 5;

// The encoding of `meta` (the layout above).
std::string EncodeShardMeta(const ShardMeta& meta);
// The size of a meta's head, its magic to its listing fingerprint.
inline constexpr size_t kMetaHeadSize = 52;
// The listing fingerprint in the head of a meta (its first kMetaHeadSize
// bytes), or nullopt when they are not the head of a meta of this version
// (too few, another magic or version). Unchecked (the checksum covers the
// whole meta): for a caller that only compares listings, and decodes the
// whole metas (DecodeShardMeta) before it says that any differ.
std::optional<uint64_t> ListingOfMetaHead(std::string_view head);
// The meta encoded in `bytes`: InvalidArgument "shard meta: another format
// version (made by another neardup)" for another version; Corrupt "shard
// meta: damaged (checksum, size or fields)" for any damage (a checksum,
// magic, size, count or status code that does not fit).
Result<ShardMeta> DecodeShardMeta(std::string_view bytes);
// The roots of the meta encoded in `bytes` (ShardMeta::roots), checked as
// DecodeShardMeta() checks the meta up to them (its checksum over every
// byte), without decoding the paths after them: for a reader that holds
// the rest from before. The same errors.
Result<std::vector<uint32_t>> DecodeShardMetaRoots(std::string_view bytes);

}  // namespace neardup
