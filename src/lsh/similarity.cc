#include "lsh/similarity.h"

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
