#include "neardup/options.h"

#include <charconv>
#include <string>
#include <system_error>

namespace neardup {

namespace {

// The shortest text that reads back as `value`: -0.5, 1e+308, nan (never
// the 309 digits std::to_string() gives for DBL_MAX).
std::string Shortest(double value) {
  char text[64];
  const auto [end, error] = std::to_chars(text, text + sizeof text, value);
  if (error != std::errc()) return "?";
  return std::string(text, end);
}

std::string Range(const char* option, long long low, long long high, long long got) {
  return std::string(option) + " must be an integer from " + std::to_string(low) + " to " + std::to_string(high) +
         ", got " + std::to_string(got);
}

}  // namespace

Status ValidateOptions(const Options& o) {
  if (!(o.threshold > 0.0 && o.threshold <= 1.0)) {
    return Status::InvalidArgument("--threshold must be in (0, 1], got " + Shortest(o.threshold));
  }
  if (o.ngram < 0 || o.ngram > kMaxNgram) {
    return Status::InvalidArgument(Range("--ngram", 1, kMaxNgram, o.ngram));
  }
  if (o.num_perm < 1 || o.num_perm > kMaxNumPerm) {
    return Status::InvalidArgument(Range("--num-perm", 1, kMaxNumPerm, o.num_perm));
  }
  if ((o.bands == 0) != (o.rows == 0)) {
    return Status::InvalidArgument("--bands and --rows go together: give both or neither");
  }
  if (o.bands < 0 || o.rows < 0) {
    return Status::InvalidArgument("--bands and --rows must be positive, got --bands " + std::to_string(o.bands) +
                                   " --rows " + std::to_string(o.rows));
  }
  // In 64 bits: --bands 65536 --rows 65536 would overflow an int.
  const long long needed = static_cast<long long>(o.bands) * static_cast<long long>(o.rows);
  if (o.bands > 0 && needed > o.num_perm) {
    return Status::InvalidArgument("--bands " + std::to_string(o.bands) + " --rows " + std::to_string(o.rows) +
                                   " needs " + std::to_string(needed) + " permutations, --num-perm is " +
                                   std::to_string(o.num_perm));
  }
  if (o.threads < 0 || o.threads > kMaxThreads) {
    return Status::InvalidArgument(Range("--threads", 1, kMaxThreads, o.threads));
  }
  if (o.min_words < 1) return Status::InvalidArgument("--min-words must be at least 1, got 0");
  if (o.input == InputFormat::kJsonl && o.text_key.empty()) {
    return Status::InvalidArgument("--text-key must not be empty");
  }
  if (o.new_only && o.index.empty()) return Status::InvalidArgument("--new needs --index FILE");
  if (!(o.lock_wait >= 0)) return Status::InvalidArgument("--lock-wait must be at least 0, got " + Shortest(o.lock_wait));
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
