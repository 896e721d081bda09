#include "lsh/similarity.h"

#include <algorithm>
#include <cmath>

namespace neardup {

double ExactJaccard(std::span<const uint64_t> a, std::span<const uint64_t> b) {
  if (a.empty() && b.empty()) return 0.0;
  size_t i = 0, j = 0, common = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] < b[j]) {
      ++i;
    } else if (b[j] < a[i]) {
      ++j;
    } else {
      ++common;
      ++i;
      ++j;
    }
  }
  const size_t unite = a.size() + b.size() - common;
  return static_cast<double>(common) / static_cast<double>(unite);
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

double JaccardIfReaches(std::span<const uint64_t> a, std::span<const uint64_t> b, double threshold) {
  if (a.empty() && b.empty()) return ExactJaccard(a, b);
  const size_t na = a.size(), nb = b.size();
  const size_t need = LeastCommon(na, nb, threshold);
  size_t i = 0, j = 0, common = 0;
  while (i < na && j < nb) {
    // The shingles left could add at most min(na - i, nb - j) to the intersection.
    const size_t left = std::min(na - i, nb - j);
    if (common + left < need) return -1;
    // Each step moves i, j or both by one, so `left` steps stay inside both.
    const size_t steps = std::min<size_t>(left, 64);
    for (size_t s = 0; s < steps; ++s) {
      const uint64_t x = a[i], y = b[j];
      common += x == y;
      i += x <= y;
      j += y <= x;
    }
  }
  return JaccardOf(na, nb, common);
}

double CandidateFloor(const Options& options) {
  switch (options.verify) {
    case VerifyMode::kNone: return 0;
    case VerifyMode::kSignature: return options.threshold;
    case VerifyMode::kExact: {
      if (options.exact_margin <= 0) return 0;  // --exact-all
      const double t = options.threshold;
      return t - options.exact_margin * std::sqrt(t * (1 - t) / options.num_perm);
    }
  }
  return 0;
}

}  // namespace neardup
