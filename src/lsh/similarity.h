// Similarity: the rules a pair of documents is judged by, in one place for
// every wing that judges pairs (LSH, the stage verify tasks, verification,
// the report, explain):
//  - the signature estimate of a pair (PairEstimate) and the score it is
//    reported with (DistinctScore);
//  - whether a similarity meets the threshold (MeetsThreshold);
//  - which pairs are candidates for verification (CandidateFloor, and
//    CandidateRule::Accepts, which also asks the bitmaps: RulesOut);
//  - the exact Jaccard of two shingle sets (ExactJaccard, JaccardIfReaches);
//  - the containment of one set in the other, C(A, B) = |A ∩ B| / |A|, from
//    the same count of shared shingles (Overlap), or estimated from a
//    Jaccard and the two sizes (SharedFromJaccard).
//
// Thread safety: pure functions; a CandidateRule is a plain value.
//
//   const CandidateRule rule = CandidateRule::Of(options, corpus.bitmaps, table.size());
//   const double est = PairEstimate(table.signature(a), table.signature(b));
//   if (rule.Accepts(est, a, b, &scratch)) pairs.Add({.a = a, .b = b, .estimate = est});
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "neardup/options.h"
#include "sign/minhash.h"
#include "sign/set_bitmap.h"
#include "sign/signature_table.h"

namespace neardup {

// |A ∩ B| / |A ∪ B| of two sorted sets without repeats; 0 when both are empty.
// REQUIRES: both sorted ascending and unique.
double ExactJaccard(std::span<const uint64_t> a, std::span<const uint64_t> b);

// What two shingle sets share, counted once: the Jaccard and the
// containment both ways follow from it with no other pass.
struct Overlap {
  uint64_t shared = 0;  // |A ∩ B|
  uint64_t size_a = 0;  // |A|
  uint64_t size_b = 0;  // |B|

  // |A ∩ B| / |A ∪ B|, as ExactJaccard(); 0 when both are empty.
  double Jaccard() const {
    const uint64_t unite = size_a + size_b - shared;
    return unite == 0 ? 0.0 : static_cast<double>(shared) / static_cast<double>(unite);
  }
  // C(A, B) = |A ∩ B| / |A|: the share of A's shingles that are in B; 0 when
  // A is empty.
  double ContainmentOfA() const {
    return size_a == 0 ? 0.0 : static_cast<double>(shared) / static_cast<double>(size_a);
  }
  // C(B, A) = |A ∩ B| / |B|.
  double ContainmentOfB() const {
    return size_b == 0 ? 0.0 : static_cast<double>(shared) / static_cast<double>(size_b);
  }
};

// The overlap of two sorted sets without repeats, counted by one merge.
// REQUIRES: as ExactJaccard.
Overlap OverlapOf(std::span<const uint64_t> a, std::span<const uint64_t> b);

// |A ∩ B| of two sorted sets without repeats when it is at least `need`;
// else some count below `need` that bounds it from above: the merge stops as
// soon as the shingles left cannot lift the intersection to `need` (with 0,
// never). The one merge OverlapOf(), JaccardIfReaches() and
// OverlapIfReaches() (relation.h) count by, without branches.
// REQUIRES: as ExactJaccard.
uint64_t SharedIfReaches(std::span<const uint64_t> a, std::span<const uint64_t> b, uint64_t need);

// The intersection |A ∩ B| that a Jaccard `jaccard` of sets of `size_a` and
// `size_b` elements implies: J(|A| + |B|) / (1 + J), as a real number, kept
// within [0, min(|A|, |B|)] (an estimate may imply more than the smaller
// set). Exact for an exact Jaccard; with a MinHash estimate, an estimate,
// which the candidate step may use and a proof never does.
double SharedFromJaccard(double jaccard, uint64_t size_a, uint64_t size_b);

// The same judgement as MeetsThreshold(ExactJaccard(a, b), threshold), for
// --exact's candidate pairs: returns ExactJaccard(a, b), the same value, when
// it meets `threshold`; otherwise some value that does not (an upper bound
// on the Jaccard, or -1). It stops as soon as the shingles left cannot lift
// the intersection to the threshold (at once when the sizes differ too
// much), and merges without branches: on the pairs banding lets through at
// low thresholds, most far below, it is several times faster.
// REQUIRES: as ExactJaccard.
double JaccardIfReaches(std::span<const uint64_t> a, std::span<const uint64_t> b, double threshold);

// True when `similarity` reaches `threshold`, allowing for the rounding of a
// ratio of integers (an estimate of 102/128 against a threshold of 0.796875).
inline bool MeetsThreshold(double similarity, double threshold) { return similarity >= threshold - 1e-12; }

// A similarity of two documents whose token sequences differ, as it is
// reported: below 1 even when every signature position or every shingle
// agrees, so that a score of 1 always means the same tokens (copies, whose
// score is 1 by definition). A negative value (not computed) is kept.
inline double DistinctScore(double similarity) { return similarity < 1.0 ? similarity : std::nextafter(1.0, 0.0); }

// The signature estimate of two documents whose token sequences differ:
// the share of positions where their signatures agree, as DistinctScore().
// REQUIRES: x.size() == y.size().
inline double PairEstimate(SignatureView x, SignatureView y) {
  return DistinctScore(SignatureAgreement(x.data(), y.data(), static_cast<int>(x.size())));
}

// The least signature estimate a candidate pair needs to be verified at
// all: the threshold in signature mode; with --exact, the threshold less
// Options::exact_margin standard errors (0 with a margin of 0: every
// candidate); 0 with --verify none.
double CandidateFloor(const Options& options);

// Whether the bitmaps of two documents rule the pair out at `threshold`
// (set_bitmap.h): JaccardBound() below it by more than 1e-9, far wider than
// the rounding MeetsThreshold() allows, so no pair that the exact check would
// accept is ruled out. `scratch`: JaccardBound()'s.
inline bool RulesOut(const SetBitmap& a, const SetBitmap& b, double threshold, std::vector<uint64_t>* scratch) {
  return JaccardBound(a, b, scratch) < threshold - 1e-9;
}

// The rule that makes a pair that shares a band a candidate pair, decided
// once for a run: its signature estimate reaches the candidate floor and,
// with --exact below -t 1 and one bitmap per document, the bitmaps do not
// rule it out (RulesOut()), so that --exact never reads its documents again
// for it.
struct CandidateRule {
  double floor = 0;      // CandidateFloor()
  double threshold = 0;  // Options::threshold, which the bitmaps are asked about
  // Per DocId (SignedCorpus::bitmaps); empty: no pair is ruled out so.
  // Borrowed: must outlive the rule.
  std::span<const SetBitmap> bitmaps;

  // The rule of a run of `options`. `bitmaps` are used with --exact below
  // -t 1 when there is one for each of the `docs` documents; else none is.
  static CandidateRule Of(const Options& options, std::span<const SetBitmap> bitmaps = {}, size_t docs = 0);

  // Whether documents a and b, whose signature estimate is `estimate`
  // (PairEstimate()), are a candidate pair under this rule. `scratch`:
  // RulesOut()'s, reused between calls (unused without bitmaps).
  // REQUIRES: a and b are DocIds of the bitmaps when there are any.
  bool Accepts(double estimate, uint64_t a = 0, uint64_t b = 0, std::vector<uint64_t>* scratch = nullptr) const {
    if (!MeetsThreshold(estimate, floor)) return false;
    return bitmaps.empty() || !RulesOut(bitmaps[a], bitmaps[b], threshold, scratch);
  }
};

}  // namespace neardup
