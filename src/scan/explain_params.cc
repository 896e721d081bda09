// ExplainParams: the banding of a scan and its S-curve (explain.h).
#include <algorithm>
#include <cmath>
#include <vector>

#include "lsh/banding.h"
#include "lsh/containment_banding.h"
#include "neardup/explain.h"

namespace neardup {
namespace {

// The least probability, over the strata distances a pair of size ratio
// `ratio` can lie at (strata of half an octave: floor(2 log2 ratio) and the
// next, or the first alone when ratio is a power of sqrt(2)), that it becomes
// a candidate when contained at -t.
double LeastAtRatio(const std::vector<StrataBanding>& bands, double t, double ratio) {
  const int low = static_cast<int>(std::floor(2 * std::log2(ratio)));
  const bool exact = std::exp2(low / 2.0) == ratio;
  double least = ContainmentCandidateProbability(bands, low, t, ratio);
  if (!exact) least = std::min(least, ContainmentCandidateProbability(bands, low + 1, t, ratio));
  return least;
}

void AddContainment(const Options& options, ParamsExplanation* p) {
  const std::vector<StrataBanding> bands = ContainmentBandings(options.threshold, options.max_ratio, options.num_perm);
  for (const StrataBanding& s : bands) {
    p->strata.push_back({.distance = s.distance,
                         .min_ratio = s.min_ratio,
                         .max_ratio = s.max_ratio,
                         .jaccard = s.jaccard,
                         .banding = s.banding});
  }
  for (double ratio = 1; ratio <= 2 * options.max_ratio; ratio *= 2) {
    for (const double r : {ratio, 1.5 * ratio}) {
      if (r <= 2 * options.max_ratio) p->ratio_curve.push_back({r, LeastAtRatio(bands, options.threshold, r)});
    }
  }
}

}  // namespace

ParamsExplanation ExplainParams(const Options& options) {
  ParamsExplanation p;
  p.threshold = options.threshold;
  p.num_perm = options.num_perm;
  p.banding = BandingOf(options);
  const int bands = p.banding.bands;
  const int rows = p.banding.rows;
  p.approximate_threshold = ApproximateThreshold(bands, rows);
  for (int i = 1; i <= 10; ++i) {
    const double s = i / 10.0;
    p.curve.push_back({s, CandidateProbability(s, bands, rows)});
  }
  p.threshold_probability = CandidateProbability(options.threshold, bands, rows);
  if (options.contains) AddContainment(options, &p);
  return p;
}

}  // namespace neardup
