// Banding: the LSH S-curve and the choice of b bands of r rows.
//
// A pair of Jaccard similarity s agrees in all r rows of one band with
// probability s^r, so it becomes a candidate (agrees in at least one of b
// bands) with probability 1 - (1 - s^r)^b: the S-curve of MMDS section 3.4.
//
// ChooseBanding picks, among b*r <= num_perm, the (b, r) whose S-curve is at
// least 0.99 at the threshold (so at most 1% of the pairs at the threshold are
// missed, fewer above it) and whose area below the threshold is the least (the
// fewest false candidates to verify).
//
// The Banding value itself is public (options.h): explain and the report
// echo it.
//
// Thread safety: pure functions.
#pragma once

#include "neardup/options.h"

namespace neardup {

// 1 - (1 - s^r)^b.
double CandidateProbability(double s, int bands, int rows);

// (1/b)^(1/r): where the S-curve is steepest, the LSH stage's own threshold.
double ApproximateThreshold(int bands, int rows);

// Integral of the S-curve from 0 to `threshold` (numeric).
double FalseCandidateArea(double threshold, int bands, int rows);

// REQUIRES: 0 < threshold <= 1, num_perm >= 1. When no (b, r) reaches 0.99 at
// the threshold (tiny num_perm, very low threshold), the one with the highest
// probability at the threshold is returned.
Banding ChooseBanding(double threshold, int num_perm);

// The banding in effect for `options`, the one place it is decided: --bands
// x --rows when given, else ChooseBanding() for -t and --num-perm.
Banding BandingOf(const Options& options);

// The target probability at the threshold used by ChooseBanding.
inline constexpr double kTargetRecall = 0.99;

}  // namespace neardup
