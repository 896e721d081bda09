// ExplainParams: the banding of a scan and its S-curve (explain.h).
#include "lsh/banding.h"
#include "neardup/explain.h"

namespace neardup {

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
  return p;
}

}  // namespace neardup
