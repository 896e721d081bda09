#include "neardup/report.h"

namespace neardup {

Params::Params(const Options& options, Banding banding)
    : threshold(options.threshold),
      shingle(options.shingle),
      ngram(options.EffectiveNgram()),
      num_perm(options.num_perm),
      bands(banding.bands),
      rows(banding.rows),
      seed(options.seed),
      verify(options.verify),
      mode(options.mode),
      keep(options.keep),
      cluster_by(options.cluster_by),
      has_reference(!options.against.empty()) {}

Params MakeParams(const Options& options, Banding banding) { return Params(options, banding); }

}  // namespace neardup
