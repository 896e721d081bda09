#include "neardup/options.h"

#include <cctype>
#include <optional>
#include <string>
#include <string_view>

#include "neardup/option_table.h"

namespace neardup {

namespace {

// --relation contains|both: what it is not supported with yet, said rather
// than ignored.
Status CheckRelation(const Options& o) {
  if (o.min_ratio > o.max_ratio) {
    return Status::InvalidArgument("--min-ratio " + std::to_string(o.min_ratio) + " is above --max-ratio " +
                                   std::to_string(o.max_ratio));
  }
  if (o.relation == Relation::kSimilar) return Status::Ok();
  const std::string relation = std::string("--relation ") + ToString(o.relation);
  // Refused by design, not for now: connected clusters chain containments
  // (a inside b, b inside c), so a document listed need not be inside the
  // kept one; and a containment needs a verification to say which way it goes.
  if (o.mode != Mode::kPairs && o.cluster_by == ClusterBy::kConnected) {
    return Status::InvalidArgument(relation +
                                   " cannot cluster with --cluster-by connected: chained containments would list "
                                   "documents that are not inside the kept one (use --cluster-by keep, the default)");
  }
  if (o.verify == VerifyMode::kNone) {
    return Status::InvalidArgument(relation +
                                   " cannot run with --verify none: a containment needs a verification to say which "
                                   "document is inside the other (use --verify exact, the default, or signature)");
  }
  if (o.threshold >= 1.0) return Status::InvalidArgument(relation + " needs --threshold below 1");
  return Status::Ok();
}

}  // namespace

Status ValidateOptions(const Options& o) {
  // Each value against its range in the option table, in the table's order.
  for (const OptionSpec& spec : OptionTable()) {
    if (Status s = CheckOptionRange(spec, o); !s.ok()) return s;
  }
  // Rules across options.
  if ((o.bands == 0) != (o.rows == 0)) {
    return Status::InvalidArgument("--bands and --rows go together: give both or neither");
  }
  // In 64 bits: --bands 65536 --rows 65536 would overflow an int.
  const long long needed = static_cast<long long>(o.bands) * static_cast<long long>(o.rows);
  if (o.bands > 0 && needed > o.num_perm) {
    return Status::InvalidArgument(std::string("--bands ")
                                       .append(std::to_string(o.bands))
                                       .append(" --rows ")
                                       .append(std::to_string(o.rows))
                                       .append(" needs ")
                                       .append(std::to_string(needed))
                                       .append(" permutations, --num-perm is ")
                                       .append(std::to_string(o.num_perm)));
  }
  if (RowsAreDocuments(o.input) && o.text_key.empty()) {
    return Status::InvalidArgument("--text-key must not be empty");
  }
  if (o.new_only && o.index.empty()) return Status::InvalidArgument("--new needs --index FILE");
  if (o.kept_copy && o.kept_dir.empty()) return Status::InvalidArgument("--kept-copy needs --kept-dir DIR");
  if (!o.annotate_prefix.empty() && o.annotate_dir.empty()) {
    return Status::InvalidArgument("--annotate-prefix needs --annotate-dir DIR");
  }
  if (Status s = CheckRelation(o); !s.ok()) return s;
  return Status::Ok();
}

// Declared in option_table.h: how every size option (--max-filesize, --max-line,
// --pair-memory) is read.
std::optional<uint64_t> ParseSize(std::string_view text) {
  size_t i = 0;
  uint64_t value = 0;
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    const auto digit = static_cast<uint64_t>(text[i] - '0');
    if (value > (~uint64_t{0} - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
    ++i;
  }
  std::string suffix(text.substr(i));
  for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (suffix.ends_with("IB")) {
    suffix.resize(suffix.size() - 2);
  } else if (suffix.size() > 1 && suffix.ends_with("B")) {
    suffix.pop_back();
  }
  int shift = 0;
  if (suffix.empty() || suffix == "B") {
    shift = 0;
  } else if (suffix == "K") {
    shift = 10;
  } else if (suffix == "M") {
    shift = 20;
  } else if (suffix == "G") {
    shift = 30;
  } else if (suffix == "T") {
    shift = 40;
  } else {
    return std::nullopt;
  }
  if (shift > 0 && value > (~uint64_t{0} >> shift)) return std::nullopt;
  return value << shift;
}

}  // namespace neardup
