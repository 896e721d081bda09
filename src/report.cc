#include "neardup/report.h"

namespace neardup {

Params MakeParams(const Options& o, Banding banding) {
  Params p;
  p.threshold = o.threshold;
  p.shingle = o.shingle;
  p.ngram = o.EffectiveNgram();
  p.num_perm = o.num_perm;
  p.bands = banding.bands;
  p.rows = banding.rows;
  p.seed = o.seed;
  p.verify = o.verify;
  p.mode = o.mode;
  p.keep = o.keep;
  p.cluster_by = o.cluster_by;
  p.has_reference = !o.against.empty();
  return p;
}

}  // namespace neardup
