// Verification: exact Jaccard similarity of two shingle sets.
//
// Thread safety: pure functions.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>

#include "neardup/options.h"

namespace neardup {

// |A ∩ B| / |A ∪ B| of two sorted sets without repeats; 0 when both are empty.
// REQUIRES: both sorted ascending and unique.
double ExactJaccard(std::span<const uint64_t> a, std::span<const uint64_t> b);

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
// The least signature estimate a candidate pair needs to be verified at
// all: the threshold in signature mode; with --exact, the threshold less
// Options::exact_margin standard errors (0 with a margin of 0: every
// candidate); 0 with --verify none.
double CandidateFloor(const Options& options);

inline bool MeetsThreshold(double similarity, double threshold) { return similarity >= threshold - 1e-12; }

// A similarity of two documents whose token sequences differ, as it is
// reported: below 1 even when every signature position or every shingle
// agrees, so that a score of 1 always means the same tokens (copies, whose
// score is 1 by definition). A negative value (not computed) is kept.
inline double DistinctScore(double similarity) { return similarity < 1.0 ? similarity : std::nextafter(1.0, 0.0); }

}  // namespace neardup
