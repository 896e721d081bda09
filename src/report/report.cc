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
      has_reference(!options.against.empty()),
      relation(options.relation) {}

Params MakeParams(const Options& options, Banding banding) { return Params(options, banding); }

uint64_t Report::clustered() const {
  uint64_t n = 0;
  for (const Cluster& c : clusters) n += c.members.size();
  return n;
}

uint64_t Report::removable_bytes() const {
  uint64_t bytes = 0;
  for (const Removal& r : removable) bytes += docs[r.doc].size;
  return bytes;
}

}  // namespace neardup
