#include "lsh/containment_banding.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

#include "lsh/banding.h"

namespace neardup {

double JaccardForContainment(double containment, double ratio) {
  assert(containment > 0 && containment <= 1 && ratio >= 1);
  return containment / (1 + ratio - containment);
}

int StratumOf(uint64_t shingles) {
  if (shingles <= 1) return 0;
  const int e = static_cast<int>(std::bit_width(shingles)) - 1;  // 2^e <= n < 2^(e+1)
  // n >= 2^(e + 1/2) exactly when n^2 >= 2^(2e + 1); past 2^32, by n's top
  // 32 bits (x^2 >= 2^63).
  const uint64_t x = e < 32 ? shingles : shingles >> (e - 31);
  const int ex = e < 32 ? e : 31;
  return 2 * e + (x * x >= (uint64_t{1} << (2 * ex + 1)) ? 1 : 0);
}

std::vector<StrataBanding> ContainmentBandings(double containment, double max_ratio, int num_perm) {
  assert(containment > 0 && containment <= 1 && max_ratio >= 1 && num_perm >= 1);
  std::vector<StrataBanding> out;
  for (int d = 0; d < 126; ++d) {
    StrataBanding s;
    s.distance = d;
    s.min_ratio = d == 0 ? 1.0 : std::exp2((d - 1) / 2.0);
    if (s.min_ratio > max_ratio) break;
    s.max_ratio = std::min(std::exp2((d + 1) / 2.0), max_ratio);
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
