// Containment banding: which pairs of documents LSH must make candidates so
// that a document contained in another, C(A, B) = |A ∩ B| / |A| >= t, is
// found (the idea of LSH Ensemble, on the book's banding).
//
// For |A| <= |B| with size ratio ρ = |B| / |A|, the Jaccard of the pair is
// J = C / (1 + ρ - C), which grows with C: so C >= t holds exactly when
// J >= t / (1 + ρ - t) (JaccardForContainment). A contained document's
// Jaccard is small when its container is much larger; one banding for all
// ratios would have to catch the smallest Jaccard and let through every
// pair. So documents are grouped by their distinct-shingle count
// (DocRecord::shingles) into geometric strata of half an octave, stratum k
// holding the counts in [2^(k/2), 2^((k+1)/2)) (StratumOf), and each pair of
// strata d apart is banded for the least Jaccard a contained pair of theirs
// can have, at their largest ratio within the cap, min(2^((d+1)/2), cap), by
// the rule the Jaccard banding uses (ChooseBanding, banding.h: at least 0.99
// at that Jaccard, least area below it). Half an octave rather than one: a
// pass's banding is then chosen for ratios closer to its pairs' own, and on
// mail (most documents within one octave of size) banding visits a third of
// the pairs it visits with strata of an octave. Strata further apart than
// the ratio cap allows (their least ratio, 2^((d-1)/2), above it) are not
// banded: a containment at a ratio above the cap is out of reach.
//
// Thread safety: pure functions.
//
//   for (const StrataBanding& s : ContainmentBandings(0.8, 8.0, 128)) ...
#pragma once

#include <cstdint>
#include <vector>

#include "neardup/options.h"

namespace neardup {

// The least Jaccard of documents A, B with |B| = ratio * |A| and
// C(A, B) >= containment: t / (1 + ρ - t).
// REQUIRES: 0 < containment <= 1, ratio >= 1.
double JaccardForContainment(double containment, double ratio);

// The stratum of a document of `shingles` distinct shingles: floor(2 log2 n),
// so stratum k holds counts in [2^(k/2), 2^((k+1)/2)); 0 for a count of 0 or
// 1. Exact below 2^32 (by integers); past it, by the count's top 32 bits.
int StratumOf(uint64_t shingles);

// The banding of the pairs of strata `distance` apart (small stratum k,
// large stratum k + distance).
struct StrataBanding {
  int distance = 0;      // between the strata, >= 0
  double min_ratio = 1;  // the least size ratio of such a pair: 2^((d-1)/2), 1 for d = 0
  double max_ratio = 2;  // the largest within the cap: min(2^((d+1)/2), cap); banded for it
  double jaccard = 0;    // JaccardForContainment(t, max_ratio)
  Banding banding;       // ChooseBanding(jaccard, num_perm)
};

// One StrataBanding per distance whose least ratio is at most `max_ratio`
// (0, 1, ... while 2^((d-1)/2) <= max_ratio), in distance order.
// REQUIRES: 0 < containment <= 1, max_ratio >= 1, num_perm >= 1.
std::vector<StrataBanding> ContainmentBandings(double containment, double max_ratio, int num_perm);

// The probability that a document contained at exactly `containment` in one
// `ratio` times its size (|B| = ratio |A|) becomes a candidate when the two
// lie `distance` strata apart under `bandings` (ContainmentBandings()'s):
// the S-curve of that distance's banding at the pair's Jaccard; 0 when the
// distance is not banded (beyond the cap).
double ContainmentCandidateProbability(const std::vector<StrataBanding>& bandings, int distance, double containment,
                                       double ratio);

}  // namespace neardup
