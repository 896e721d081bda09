#include "lsh/banding.h"

#include <cassert>
#include <cmath>

namespace neardup {

double CandidateProbability(double s, int bands, int rows) { return 1.0 - std::pow(1.0 - std::pow(s, rows), bands); }

double ApproximateThreshold(int bands, int rows) { return std::pow(1.0 / bands, 1.0 / rows); }

double FalseCandidateArea(double threshold, int bands, int rows) {
  // Simpson's rule over 200 intervals: the curve is smooth.
  constexpr int kSteps = 200;
  const double h = threshold / kSteps;
  double sum = CandidateProbability(0.0, bands, rows) + CandidateProbability(threshold, bands, rows);
  for (int i = 1; i < kSteps; ++i) {
    sum += (i % 2 ? 4.0 : 2.0) * CandidateProbability(i * h, bands, rows);
  }
  return sum * h / 3.0;
}

Banding ChooseBanding(double threshold, int num_perm) {
  assert(threshold > 0 && threshold <= 1 && num_perm >= 1);
  Banding best;
  double best_area = 0;
  Banding fallback{num_perm, 1};
  double fallback_p = -1;
  for (int r = 1; r <= num_perm; ++r) {
    // More bands only raise the curve, so for each r the fewest bands that
    // reach the target is the best; past it, area grows with b.
    for (int b = 1; b * r <= num_perm; ++b) {
      const double p = CandidateProbability(threshold, b, r);
      if (p > fallback_p) {
        fallback_p = p;
        fallback = {b, r};
      }
      if (p < kTargetRecall) continue;
      const double area = FalseCandidateArea(threshold, b, r);
      if (best.bands == 0 || area < best_area) {
        best = {b, r};
        best_area = area;
      }
      break;
    }
  }
  return best.bands == 0 ? fallback : best;
}

Banding BandingOf(const Options& options) {
  return options.bands > 0 ? Banding{options.bands, options.rows} : ChooseBanding(options.threshold, options.num_perm);
}

}  // namespace neardup
