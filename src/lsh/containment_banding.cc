#include "lsh/containment_banding.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "lsh/banding.h"

namespace neardup {

double JaccardForContainment(double containment, double ratio) {
  assert(containment > 0 && containment <= 1 && ratio >= 1);
  return containment / (1 + ratio - containment);
}

int StratumOf(uint64_t shingles) {
  int k = 0;
  while (shingles > 1) {
    shingles >>= 1;
    ++k;
  }
  return k;
}

std::vector<StrataBanding> ContainmentBandings(double containment, double max_ratio, int num_perm) {
  assert(containment > 0 && containment <= 1 && max_ratio >= 1 && num_perm >= 1);
  std::vector<StrataBanding> out;
  for (int d = 0; d < 62; ++d) {
    StrataBanding s;
    s.distance = d;
    s.min_ratio = d == 0 ? 1.0 : std::ldexp(1.0, d - 1);
    if (s.min_ratio > max_ratio) break;
    s.max_ratio = std::min(std::ldexp(1.0, d + 1), max_ratio);
    s.jaccard = JaccardForContainment(containment, s.max_ratio);
    s.banding = ChooseBanding(s.jaccard, num_perm);
    out.push_back(s);
  }
  return out;
}

double ContainmentCandidateProbability(const std::vector<StrataBanding>& bandings, int distance, double containment,
                                       double ratio) {
  if (distance < 0 || static_cast<size_t>(distance) >= bandings.size()) return 0;
  const Banding& b = bandings[static_cast<size_t>(distance)].banding;
  return CandidateProbability(JaccardForContainment(containment, ratio), b.bands, b.rows);
}

}  // namespace neardup
