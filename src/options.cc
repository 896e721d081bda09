#include "neardup/options.h"

#include <string>

namespace neardup {

Status ValidateOptions(const Options& o) {
  if (!(o.threshold > 0.0 && o.threshold <= 1.0)) {
    return Status::InvalidArgument("--threshold must be in (0, 1], got " + std::to_string(o.threshold));
  }
  if (o.ngram < 0 || o.ngram > 64) {
    return Status::InvalidArgument("--ngram must be from 1 to 64, got " + std::to_string(o.ngram));
  }
  if (o.num_perm < 1 || o.num_perm > 4096) {
    return Status::InvalidArgument("--num-perm must be from 1 to 4096, got " + std::to_string(o.num_perm));
  }
  if ((o.bands == 0) != (o.rows == 0)) {
    return Status::InvalidArgument("--bands and --rows go together: give both or neither");
  }
  if (o.bands < 0 || o.rows < 0) {
    return Status::InvalidArgument("--bands and --rows must be positive");
  }
  if (o.bands > 0 && static_cast<long long>(o.bands) * o.rows > o.num_perm) {
    return Status::InvalidArgument("--bands " + std::to_string(o.bands) + " --rows " + std::to_string(o.rows) +
                                   " needs " + std::to_string(o.bands * o.rows) +
                                   " permutations, --num-perm is " + std::to_string(o.num_perm));
  }
  if (o.threads < 0 || o.threads > 1024) {
    return Status::InvalidArgument("--threads must be from 1 to 1024, got " + std::to_string(o.threads));
  }
  if (o.min_words < 1) return Status::InvalidArgument("--min-words must be at least 1");
  if (o.input == InputFormat::kJsonl && o.text_key.empty()) {
    return Status::InvalidArgument("--text-key must not be empty");
  }
  return Status::Ok();
}

const char* ToString(ShingleUnit unit) { return unit == ShingleUnit::kWord ? "word" : "char"; }

const char* ToString(VerifyMode verify) {
  switch (verify) {
    case VerifyMode::kSignature: return "signature";
    case VerifyMode::kExact: return "exact";
    case VerifyMode::kNone: return "none";
  }
  return "?";
}

const char* ToString(Mode mode) {
  switch (mode) {
    case Mode::kPairs: return "pairs";
    case Mode::kClusters: return "clusters";
    case Mode::kDuplicates: return "duplicates";
  }
  return "?";
}

const char* ToString(KeepRule keep) {
  switch (keep) {
    case KeepRule::kFirst: return "first";
    case KeepRule::kLongest: return "longest";
    case KeepRule::kShortest: return "shortest";
    case KeepRule::kNewest: return "newest";
    case KeepRule::kOldest: return "oldest";
  }
  return "?";
}

const char* ToString(ClusterBy by) { return by == ClusterBy::kConnected ? "connected" : "keep"; }

}  // namespace neardup
