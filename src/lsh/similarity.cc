#include "lsh/similarity.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace neardup {

double ExactJaccard(std::span<const uint64_t> a, std::span<const uint64_t> b) { return OverlapOf(a, b).Jaccard(); }

Overlap OverlapOf(std::span<const uint64_t> a, std::span<const uint64_t> b) {
  return {.shared = SharedIfReaches(a, b, 0), .size_a = a.size(), .size_b = b.size()};
}

double SharedFromJaccard(double jaccard, uint64_t size_a, uint64_t size_b) {
  const double j = std::clamp(jaccard, 0.0, 1.0);
  const double shared = j * static_cast<double>(size_a + size_b) / (1 + j);
  return std::min(shared, static_cast<double>(std::min(size_a, size_b)));
}

namespace {

// |A ∩ B| / |A ∪ B| for `common` shared elements: ExactJaccard's formula.
double JaccardOf(size_t na, size_t nb, size_t common) {
  return static_cast<double>(common) / static_cast<double>(na + nb - common);
}

// The least intersection with which sets of na and nb elements meet
// `threshold` (MeetsThreshold, with the formula ExactJaccard uses), or
// min(na, nb) + 1 when none does. The Jaccard grows with the intersection.
size_t LeastCommon(size_t na, size_t nb, double threshold) {
  const size_t most = std::min(na, nb);
  const double guess = std::floor(threshold * static_cast<double>(na + nb) / (1 + threshold)) - 2;
  size_t c = guess > 0 ? static_cast<size_t>(guess) : 0;
  while (c > 0 && MeetsThreshold(JaccardOf(na, nb, c - 1), threshold)) --c;  // the guess is rounded
  while (c <= most && !MeetsThreshold(JaccardOf(na, nb, c), threshold)) ++c;
  return c;
}

}  // namespace

uint64_t SharedIfReaches(std::span<const uint64_t> a, std::span<const uint64_t> b, uint64_t need) {
  const size_t na = a.size(), nb = b.size();
  // kChains merges over consecutive ranges of hash values, interleaved: one
  // merge's steps wait on each other, four in turn need not.
  constexpr size_t kChains = 4;
  std::array<size_t, kChains> i{}, j{}, i_end{}, j_end{};
  for (size_t c = 0; c < kChains; ++c) {
    const uint64_t bound = (UINT64_MAX / kChains) * (c + 1);
    i_end[c] = c + 1 == kChains ? na : static_cast<size_t>(std::upper_bound(a.begin(), a.end(), bound) - a.begin());
    j_end[c] = c + 1 == kChains ? nb : static_cast<size_t>(std::upper_bound(b.begin(), b.end(), bound) - b.begin());
    i[c] = c == 0 ? 0 : i_end[c - 1];
    j[c] = c == 0 ? 0 : j_end[c - 1];
  }
  uint64_t common = 0;
  while (true) {
    // The shingles left could add at most min(na - i, nb - j) to the
    // intersection in each range.
    uint64_t most = common;
    size_t steps = SIZE_MAX;
    for (size_t c = 0; c < kChains; ++c) {
      const size_t left = std::min(i_end[c] - i[c], j_end[c] - j[c]);
      most += left;
      if (left > 0) steps = std::min(steps, left);
    }
    if (most < need) return most;
    if (steps == SIZE_MAX) break;  // every range is done
    // Each step moves i, j or both by one, so `steps` steps stay inside
    // every range that has any left; a range with none left is skipped.
    steps = std::min<size_t>(steps, 64);
    std::array<bool, kChains> live{};
    for (size_t c = 0; c < kChains; ++c) live[c] = i[c] < i_end[c] && j[c] < j_end[c];
    for (size_t s = 0; s < steps; ++s) {
      for (size_t c = 0; c < kChains; ++c) {
        if (!live[c]) continue;
        const uint64_t x = a[i[c]], y = b[j[c]];
        common += x == y;
        i[c] += x <= y;
        j[c] += y <= x;
      }
    }
  }
  return common;
}

double JaccardIfReaches(std::span<const uint64_t> a, std::span<const uint64_t> b, double threshold) {
  if (a.empty() && b.empty()) return ExactJaccard(a, b);
  const size_t na = a.size(), nb = b.size();
  const size_t need = LeastCommon(na, nb, threshold);
  if (need > std::min(na, nb)) return -1;  // the sizes alone rule it out
  const uint64_t common = SharedIfReaches(a, b, need);
  return common < need ? -1 : JaccardOf(na, nb, common);
}

double CandidateFloor(const Options& options) {
  switch (options.verify) {
    case VerifyMode::kNone:
      return 0;
    case VerifyMode::kSignature:
      return options.threshold;
    case VerifyMode::kExact: {
      if (options.exact_margin <= 0) return 0;  // --exact-all
      const double t = options.threshold;
      return t - options.exact_margin * std::sqrt(t * (1 - t) / options.num_perm);
    }
  }
  return 0;
}

CandidateRule CandidateRule::Of(const Options& options, std::span<const SetBitmap> bitmaps, size_t docs) {
  const bool bounded = options.verify == VerifyMode::kExact && options.threshold < 1.0 && bitmaps.size() == docs;
  return {.floor = CandidateFloor(options),
          .threshold = options.threshold,
          .bitmaps = bounded ? bitmaps : std::span<const SetBitmap>()};
}

}  // namespace neardup
