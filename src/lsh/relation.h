// Relation: which relation a pair of documents is reported for under
// scan --relation, judged in one place from its Jaccard and the two sizes
// (distinct-shingle counts), whether they are exact (--exact) or a MinHash
// estimate (--verify signature).
//
// A pair is similar when its Jaccard reaches the threshold (kSimilar or
// kBoth). Else, with kContains or kBoth, the smaller document A is contained
// in the larger B when C(A, B) = |A ∩ B| / |A| reaches the threshold and the
// guard against templates lets it through (docs/method.md):
//  - A has at least min_contained distinct shingles;
//  - the Jaccard is at least min_jaccard;
//  - the size ratio |B| / |A| is at least min_ratio (pairs of near-equal
//    sizes are judged by Jaccard alone) and at most max_ratio (the cap the
//    candidates are banded for: beyond it, out of reach).
// With kContains alone a similar pair is reported only when it is also a
// containment that passes the guard.
//
// Thread safety: a plain value; pure functions.
//
//   const RelationRule rule = RelationRule::Of(options);
//   const std::optional<PairKind> kind = rule.Judge(OverlapOf(x, y));
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "base/types.h"
#include "lsh/similarity.h"
#include "neardup/options.h"

namespace neardup {

struct RelationRule {
  Relation relation = Relation::kSimilar;
  double threshold = 0.8;
  uint64_t min_contained = 50;
  double min_jaccard = 0.05;
  double min_ratio = 1.2;
  double max_ratio = 8;

  static RelationRule Of(const Options& options);

  // The relation of a pair (a, b) whose Jaccard is `jaccard` and whose
  // intersection is `shared`, of sizes size_a and size_b: nullopt when it
  // is not reported.
  std::optional<PairKind> Judge(double jaccard, double shared, uint64_t size_a, uint64_t size_b) const;
  // The least intersection a pair of sizes size_a and size_b needs for some
  // relation this rule reports (less a rounding allowance); above both sizes
  // when none can be had at these sizes.
  double SharedNeeded(uint64_t size_a, uint64_t size_b) const;
  // From an exact overlap (OverlapOf(), OverlapIfReaches()).
  std::optional<PairKind> Judge(const Overlap& overlap) const {
    return Judge(overlap.Jaccard(), static_cast<double>(overlap.shared), overlap.size_a, overlap.size_b);
  }
  // From a Jaccard estimate and the sizes: the intersection it implies
  // (SharedFromJaccard()).
  std::optional<PairKind> JudgeEstimate(double jaccard, uint64_t size_a, uint64_t size_b) const {
    return Judge(jaccard, SharedFromJaccard(jaccard, size_a, size_b), size_a, size_b);
  }
};

// OverlapOf(a, b) when its intersection reaches `needed`; else an overlap
// whose `shared` is some count below `needed` (an upper bound on the true
// one): the merge stops once what is left of the sets cannot reach it.
// REQUIRES: as OverlapOf().
Overlap OverlapIfReaches(std::span<const uint64_t> a, std::span<const uint64_t> b, double needed);

// The containment of the smaller of two documents in the other that a
// Jaccard `jaccard` and the sizes imply (SharedFromJaccard() / the smaller
// size); 0 when the smaller is empty. With `exact` (an exact Jaccard) the
// intersection is a count, rounded to the nearest integer, so that a whole
// containment is 1 and not 1 less a rounding error.
double ContainmentOfSmaller(double jaccard, uint64_t size_a, uint64_t size_b, bool exact);

}  // namespace neardup
