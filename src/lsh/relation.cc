#include "lsh/relation.h"

#include <algorithm>
#include <cmath>

namespace neardup {

RelationRule RelationRule::Of(const Options& options) {
  return {.relation = options.relation,
          .threshold = options.threshold,
          .min_contained = options.min_contained,
          .min_jaccard = options.min_jaccard,
          .min_ratio = options.min_ratio,
          .max_ratio = options.max_ratio};
}

std::optional<PairKind> RelationRule::Judge(double jaccard, double shared, uint64_t size_a, uint64_t size_b) const {
  if (relation != Relation::kContains && MeetsThreshold(jaccard, threshold)) return PairKind::kSimilar;
  if (relation == Relation::kSimilar) return std::nullopt;
  const uint64_t small = std::min(size_a, size_b);
  const uint64_t large = std::max(size_a, size_b);
  if (small == 0 || small < min_contained) return std::nullopt;
  const double ratio = static_cast<double>(large) / static_cast<double>(small);
  // The ratio by integers where it is compared with its bounds: 3 shingles
  // in 12 is a ratio of 4 whatever the rounding.
  if (ratio < min_ratio - 1e-12 || ratio > max_ratio + 1e-12) return std::nullopt;
  if (!MeetsThreshold(jaccard, min_jaccard)) return std::nullopt;
  if (!MeetsThreshold(shared / static_cast<double>(small), threshold)) return std::nullopt;
  return size_a <= size_b ? PairKind::kAInB : PairKind::kBInA;
}

double RelationRule::SharedNeeded(uint64_t size_a, uint64_t size_b) const {
  const double sum = static_cast<double>(size_a + size_b);
  double needed = sum + 1;  // none
  if (relation != Relation::kContains) needed = threshold * sum / (1 + threshold);
  const uint64_t small = std::min(size_a, size_b);
  const double ratio = small == 0 ? 0 : static_cast<double>(std::max(size_a, size_b)) / static_cast<double>(small);
  const bool guarded = small > 0 && small >= min_contained && ratio >= min_ratio - 1e-12 && ratio <= max_ratio + 1e-12;
  if (relation != Relation::kSimilar && guarded) {
    const double contained = std::max(threshold * static_cast<double>(small), min_jaccard * sum / (1 + min_jaccard));
    needed = std::min(needed, contained);
  }
  // MeetsThreshold()'s allowance, and more: never stop short of a pair it
  // would accept.
  return needed - 1e-6 * (1 + sum);
}

Overlap OverlapIfReaches(std::span<const uint64_t> a, std::span<const uint64_t> b, double needed) {
  // An intersection reaches `needed` when it reaches the least count not below it.
  const uint64_t need = needed > 0 ? static_cast<uint64_t>(std::ceil(std::min(needed, 1e18))) : 0;
  return {.shared = SharedIfReaches(a, b, need), .size_a = a.size(), .size_b = b.size()};
}

double ContainmentOfSmaller(double jaccard, uint64_t size_a, uint64_t size_b, bool exact) {
  const uint64_t small = std::min(size_a, size_b);
  if (small == 0) return 0;
  double shared = SharedFromJaccard(jaccard, size_a, size_b);
  if (exact) shared = std::round(shared);
  return std::min(1.0, shared / static_cast<double>(small));
}

}  // namespace neardup
