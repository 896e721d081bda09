// Verify output: verify/K.pairs, the pairs a verify task accepted in its
// share (with, when it read the documents again, the documents it left out
// and the shingle sets the report clusters with), as bytes and back.
//
// Layout (coding.h: little-endian, a double is its IEEE-754 bits as a u64):
//   8  magic "NDUPVRFY"
//   4  u32 version (kVerifyVersion = 3)
//   1  u8 reread (0 or 1)
//   8  u64 large_bucket
//   8  u64 visited
//   u64 P, then P pairs: u64 a, u64 b, f64 estimate, f64 jaccard, u8 kind
//     (PairKind: 0 similar, 1 a in b, 2 b in a; 33 bytes)
//   the large buckets as id lists (id_lists.h)
//   u64 O, then O left-out documents: u64 id, u8 status code, u64 n, n bytes
//     of message
//   u64 S, then S sets: u64 id, u64 n, n u64 hashes
//   8  u64 checksum: Checksum64() of every byte before it
// (Version 2 added the pairs' exact Jaccard, the documents left out and the
// sets of a task that read the documents again; 3 each pair's kind, for
// --relation contains|both.)
//
// Thread safety: free functions over values.
//
//   std::string bytes = EncodeVerifyOutput(out);  // or EncodeVerifyOutputTo(out, write)
//   Result<VerifyOutput> back = DecodeVerifyOutput(bytes);
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "neardup/options.h"
#include "neardup/status.h"

namespace neardup {

struct VerifiedPair {
  uint64_t a = 0, b = 0;  // global ids of representatives, a < b
  double estimate = 0;    // signature agreement (DistinctScore), >= the candidate floor
  double jaccard = -1;    // read again: the exact Jaccard (DistinctScore); else -1
  // Read again with --relation contains|both: the relation found (RelationRule).
  // Else kSimilar (from the signatures, the report judges the relation).
  PairKind kind = PairKind::kSimilar;
};

// A document a task read again that is not what was signed, with why.
struct LeftOutDoc {
  uint64_t id = 0;  // global id
  Status why;       // scan's ("PATH: changed during the run")
};

struct VerifyOutput {
  // Whether the documents were read again (Verification::rereads()): the
  // pairs are then those --exact accepted, and no large bucket is left.
  bool reread = false;
  uint64_t large_bucket = 0;                 // LargeBucketOf() the mode
  uint64_t visited = 0;                      // candidates of the share, each in its first shared band
  std::vector<VerifiedPair> pairs;           // ascending by (a, b), unique
  std::vector<std::vector<uint64_t>> large;  // large buckets of the share, each ascending
  std::vector<LeftOutDoc> left_out;          // read again: ascending by id
  // Read again: the shingle set of each representative of an accepted
  // pair (the report clusters in every mode, for the dropped lists), ascending by id.
  std::vector<std::pair<uint64_t, std::vector<uint64_t>>> sets;
};

inline constexpr char kVerifyMagic[8] = {'N', 'D', 'U', 'P', 'V', 'R', 'F', 'Y'};
inline constexpr uint32_t kVerifyVersion = 3;

// The encoding of `out` (the layout above), given to `write` piece by piece
// in order: a verify task writes its sets (megabytes on a few thousand
// mails) straight from where they are, never as one string.
void EncodeVerifyOutputTo(const VerifyOutput& out, const std::function<void(std::string_view)>& write);
// The same, as one string.
std::string EncodeVerifyOutput(const VerifyOutput& out);
// The output encoded in `bytes`: InvalidArgument "verified pairs: another
// format version" for another version; Corrupt "verified pairs: damaged
// (checksum, size or fields)" on a damaged checksum, size or field (a
// reread byte above 1, a kind above 2, a left-out status that is Ok or of a code a read
// cannot give). The values are checked by CheckVerifyOutput().
Result<VerifyOutput> DecodeVerifyOutput(std::string_view bytes);
// The reread byte of the verify output in file `path`, read without the
// rest (the checksum is not checked): nothing when the file cannot be
// opened, is shorter than 21 bytes, or has another magic or version.
std::optional<bool> PeekVerifyReread(const std::string& path);

}  // namespace neardup
