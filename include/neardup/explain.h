// Explain: why a scan does (or does not) report a pair of documents
// (ExplainPair), and what a banding makes of each similarity (ExplainParams).
//
// Reads two documents under the same Options as a scan and returns every fact
// the scan's decision rests on: sizes, token and shingle counts, the shared
// shingles, the exact Jaccard similarity and the exact containment of each
// document in the other (|A ∩ B| / |A|), the MinHash estimate and its
// standard error sqrt(J(1-J)/num_perm), the LSH bands in which the two
// signatures agree (any one makes the pair a candidate), whether each
// --verify setting would report the pair, and the S-curve probability
// 1-(1-J^r)^b that a pair of this Jaccard becomes a candidate.
//
// The documents are two files (text input), or two documents of one JSONL
// file named by id, or by FILE:LINE as the scan names a line without an id
// (--input jsonl). Each document's token text (Shingler::set_token_text: the
// normalized words, lowercased, one space after each) is kept, up to
// `max_words` words, for a word diff (word_diff.h).
//
// ExplainParams gives, for `neardup params`, the banding a scan with the
// options uses and its S-curve at a few similarities.
//
// Thread safety: ExplainPair is a pure function of its arguments and the
// file system; ExplainParams of its arguments.
//
//   ExplainInputs in; in.a = "x.txt"; in.b = "y.txt";
//   Result<PairExplanation> e = ExplainPair(options, in);
//   ParamsExplanation p = ExplainParams(options);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "neardup/options.h"
#include "neardup/status.h"

namespace neardup {

struct ExplainInputs {
  // Text input: two paths. JSONL input: two ids (or FILE:LINE names) of
  // documents in `jsonl_file`. A path "-" is standard input (text input only).
  std::string a;
  std::string b;
  std::string jsonl_file;  // used when options.input is kJsonl
  // Words of token text kept per document for the diff; 0 keeps none.
  uint64_t max_words = 20000;
};

struct ExplainedDoc {
  std::string name;    // path, or JSONL id / FILE:LINE
  uint64_t bytes = 0;  // bytes of text read (after decompression)
  uint64_t words = 0;
  uint64_t tokens = 0;    // words, or characters with --shingle char
  uint64_t shingles = 0;  // distinct shingles
  // Why a scan would not index it: "" (it would), "empty", "too short"
  // (under --min-words), "binary", "too large" (over --max-filesize).
  std::string skipped;
  // The token text's first max_words words (each followed by one space).
  std::string token_text;
  bool token_text_capped = false;  // more words than max_words
};

struct PairExplanation {
  ExplainedDoc a;
  ExplainedDoc b;
  int num_perm = 0;
  Banding banding;  // as the scan would choose it (or --bands/--rows)
  double threshold = 0;
  double exact_margin = 0;
  uint64_t shared_shingles = 0;  // |A ∩ B|
  uint64_t union_shingles = 0;   // |A ∪ B|
  double jaccard = 0;            // exact: shared / union
  // Exact containment both ways, from the same count: C(A, B) = shared /
  // |A|, the share of a's shingles found in b, and C(B, A) = shared / |B|
  // (0 for a document with no shingle). The larger names the document that
  // lies inside the other.
  double containment_a_in_b = 0;
  double containment_b_in_a = 0;
  bool same_tokens = false;          // identical token sequences (exact copies)
  double estimate = 0;               // share of agreeing signature positions
  double standard_error = 0;         // sqrt(J(1-J)/num_perm) at the exact J
  std::vector<int> agreeing_bands;   // 0-based band numbers, ascending
  bool candidate = false;            // at least one agreeing band (or same tokens)
  double candidate_probability = 0;  // 1-(1-J^r)^b at the exact J
  // Whether `neardup scan` would report the pair under each --verify
  // setting (with these options): signature: candidate and estimate >=
  // threshold; exact: candidate, estimate >= CandidateFloor() and Jaccard >=
  // threshold; none: candidate. A document the scan skips is never reported;
  // exact copies are always reported (they are grouped before LSH).
  bool reported_signature = false;
  bool reported_exact = false;
  bool reported_none = false;
  // With --relation contains|both (Options::relation): the relation scan
  // --relation reports the pair for under each verification, when it does
  // (kSimilar, or which one lies inside the other); --verify none is refused
  // with such a relation (reported_none false). The containment banding
  // (containment_banding.h) of the pair's size strata, `strata_apart` (-1
  // when either is under --min-contained or they are further apart than the
  // cap allows), makes it a candidate when it agrees in a band.
  Relation relation = Relation::kSimilar;
  std::optional<PairKind> kind_signature;
  std::optional<PairKind> kind_exact;
  int strata_apart = -1;
  Banding containment_banding;
  bool containment_candidate = false;
};

// Reads both documents and explains the pair. Errors: IoError / NotFound
// for a file that cannot be read; NotFound for an id that is not in the
// JSONL file; InvalidArgument for invalid options, or a JSONL line of either
// document that is malformed.
Result<PairExplanation> ExplainPair(const Options& options, const ExplainInputs& inputs);

// The S-curve 1-(1-s^r)^b of a banding at one similarity s.
struct CurvePoint {
  double similarity = 0;
  double probability = 0;  // that a pair of this Jaccard becomes a candidate
};

// With --contains: the banding of the pairs of size strata `distance` apart
// (containment_banding.h): their ratios, the least Jaccard of a pair
// contained at the threshold at the largest ratio up to the cap, and the
// (bands, rows) the Jaccard rule picks for it.
struct StrataParams {
  int distance = 0;
  double min_ratio = 1;
  double max_ratio = 2;
  double jaccard = 0;
  Banding banding;
};
// With --contains: the probability that a document contained at exactly the
// threshold in one `ratio` times its size becomes a candidate (the least over
// the strata distances such a pair can lie at); 0 where no distance it can
// lie at is banded. Beyond the cap nothing is promised.
struct RatioPoint {
  double ratio = 1;
  double probability = 0;
};

struct ParamsExplanation {
  double threshold = 0;
  int num_perm = 0;
  Banding banding;                   // as the scan would choose it (or --bands/--rows)
  double approximate_threshold = 0;  // (1/b)^(1/r), where the S-curve is steepest
  std::vector<CurvePoint> curve;     // at s = 0.1, 0.2, ..., 1.0
  double threshold_probability = 0;  // at s = threshold
  // Options::contains only: the containment banding, per strata distance,
  // and its probability at ratios 1, 1.5, 2, 3, 4, 6, 8, ... up to twice the
  // cap (Options::max_ratio).
  std::vector<StrataParams> strata;
  std::vector<RatioPoint> ratio_curve;
};

// The banding of a scan with `options` and its S-curve.
// REQUIRES: ValidateOptions(options).ok().
ParamsExplanation ExplainParams(const Options& options);

}  // namespace neardup
