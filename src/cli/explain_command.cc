#include "cli/explain_command.h"

#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "neardup/explain.h"
#include "neardup/options.h"
#include "neardup/writers.h"

namespace neardup::cli {
namespace {

using Json = nlohmann::ordered_json;

// The diff's lines are wrapped between words at the terminal's width less
// this margin, and never narrower than kMinWrap.
constexpr size_t kWrapMargin = 2;
constexpr size_t kMinWrap = 20;

std::string Num(double value) { return FormatScore(value); }

std::string Fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

// A score with 4 decimals; below 1 it is at most 0.9999, as FormatScore()
// has it (1 means the same tokens).
std::string Score4(double value) { return Fixed(value < 1.0 ? std::min(value, 0.9999) : value, 4); }

// A score as a json number with at most 4 decimals, as scan's json writes
// it (FormatScore(): 0.875, 0.8612, 1; below 1 at most 0.9999).
Json ScoreJson(double value) {
  const double rounded = std::strtod(FormatScore(value).c_str(), nullptr);
  // nlohmann prints 1.0 as "1.0": a whole score is stored as an integer.
  if (rounded == std::trunc(rounded) && std::fabs(rounded) < 1e15) return static_cast<int64_t>(rounded);
  return rounded;
}

const char* Yes(bool reported) { return reported ? "reported" : "not reported"; }

void DocLines(const char* label, const ExplainedDoc& d, const char* unit, std::string* text) {
  *text += std::string(label) + ": " + d.name + "\n";
  *text += "   " + std::to_string(d.bytes) + " bytes, " + std::to_string(d.words) + " words, " +
           std::to_string(d.tokens) + " " + unit + ", " + std::to_string(d.shingles) + " distinct shingles";
  if (!d.skipped.empty()) *text += "; skipped by scan: " + d.skipped;
  *text += "\n";
}

// Writes words, wrapping lines at `wrap` columns (marks and colour codes
// are not counted).
class Wrapper {
 public:
  Wrapper(std::string* out, size_t wrap) : out_(out), wrap_(wrap) {}
  // One word (or a marked run's piece) of `visible` printed columns.
  void Word(std::string_view printed, size_t visible) {
    if (column_ > 0 && column_ + 1 + visible > wrap_) {
      out_->push_back('\n');
      column_ = 0;
    } else if (column_ > 0) {
      out_->push_back(' ');
      ++column_;
    }
    out_->append(printed);
    column_ += visible;
  }
  // The words of `run`; with marks, as one marked run ("[-a b c-]"), or,
  // in colour, each word coloured (so a wrapped line keeps its colour).
  void Words(std::string_view run, const char* open, const char* close, bool per_word) {
    size_t i = 0;
    while (i < run.size()) {
      size_t j = run.find(' ', i);
      if (j == std::string_view::npos) j = run.size();
      const std::string_view w = run.substr(i, j - i);
      const bool first = i == 0, last = j == run.size();
      std::string printed;
      if (per_word || first) printed += open;
      printed += w;
      if (per_word || last) printed += close;
      Word(printed, w.size() + (per_word ? 0 : (first ? std::strlen(open) : 0) + (last ? std::strlen(close) : 0)));
      i = j + 1;
    }
  }
  void End() {
    if (column_ > 0) out_->push_back('\n');
    column_ = 0;
  }

 private:
  std::string* out_;
  size_t wrap_;
  size_t column_ = 0;
};

// Appends the word diff of `e` (folded: a long unchanged stretch is shown as
// "... (N unchanged words) ..." on a line of its own) to `text`.
void AppendDiffText(const PairExplanation& e, const std::vector<DiffRun>& diff, DiffMarks marks, size_t width,
                    std::string* text) {
  std::string& t = *text;
  t += "\nword diff of the normalized words (a -> b)";
  if (e.a.token_text_capped || e.b.token_text_capped) {
    t += ", first " + std::to_string(e.a.token_text_capped ? e.a.words : e.b.words) + " words";
  }
  t += ":\n";
  const bool color = marks == DiffMarks::kColor;
  const char* del_open = color ? "\x1b[31m" : "[-";
  const char* del_close = color ? "\x1b[m" : "-]";
  const char* add_open = color ? "\x1b[32m" : "{+";
  const char* add_close = color ? "\x1b[m" : "+}";
  Wrapper w(&t, std::max(kMinWrap, width > kWrapMargin ? width - kWrapMargin : 0));
  for (const FoldedRun& run : FoldDiff(diff)) {
    switch (run.kind) {
      case FoldedRun::Kind::kRemoved:
        w.Words(run.text, del_open, del_close, color);
        break;
      case FoldedRun::Kind::kAdded:
        w.Words(run.text, add_open, add_close, color);
        break;
      case FoldedRun::Kind::kSame:
        w.Words(run.text, "", "", false);
        break;
      case FoldedRun::Kind::kSkipped:
        w.End();
        t += "... (" + std::to_string(run.words) + " unchanged words) ...\n";
        break;
    }
  }
  w.End();
  if (e.a.token_text_capped || e.b.token_text_capped) {
    t += "(diff capped: only the first words of each document are compared)\n";
  }
}

}  // namespace

bool UseColor(ColorWhen when, int fd) {
  if (when != ColorWhen::kAuto) return when == ColorWhen::kAlways;
  const char* no_color = std::getenv("NO_COLOR");
  return ::isatty(fd) != 0 && (no_color == nullptr || no_color[0] == '\0');
}

size_t TerminalWidth(int fd) {
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr && *columns != '\0') {
    char* end = nullptr;
    const unsigned long n = std::strtoul(columns, &end, 10);
    if (*end == '\0' && n > 0 && n <= 10000) return n;
  }
  winsize size{};
  if (::isatty(fd) != 0 && ::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return kDefaultWidth;
}

namespace {

// What a kind of pair reported is, as explain says it.
std::string KindText(const std::optional<PairKind>& kind) {
  if (!kind) return "not reported";
  switch (*kind) {
    case PairKind::kSimilar:
      return "reported, near copies";
    case PairKind::kAInB:
      return "reported, a inside b";
    case PairKind::kBInA:
      return "reported, b inside a";
  }
  return "reported";
}

// --relation contains|both: the containment banding of the pair, and what
// scan --relation would say by each verification.
void AppendRelationText(const PairExplanation& e, std::string* out) {
  std::string& t = *out;
  const std::string relation = std::string("--relation ") + ToString(e.relation);
  if (e.strata_apart < 0) {
    t += "containment banding: none (a document under --min-contained, a size ratio beyond --max-ratio, or copies)\n";
  } else {
    t += "containment banding: size strata " + std::to_string(e.strata_apart) + " apart, " +
         std::to_string(e.containment_banding.bands) + " bands x " + std::to_string(e.containment_banding.rows) +
         " rows" + (e.containment_candidate ? ": agreeing in a band, a candidate\n" : ": agreeing in none\n");
  }
  t += "threshold " + Num(e.threshold) + ", scan " + relation + " would say:\n";
  t += "  --verify signature: " + KindText(e.kind_signature) + "\n";
  t += "  --verify exact:     " + KindText(e.kind_exact) + "\n";
  t += "  --verify none:      refused with " + relation + "\n";
}

}  // namespace

void WriteExplanationText(const PairExplanation& e, const std::vector<DiffRun>& diff, DiffMarks marks, size_t width,
                          std::ostream& out) {
  std::string t;
  const char* unit = "tokens";
  DocLines("a", e.a, unit, &t);
  DocLines("b", e.b, unit, &t);
  t += "shared shingles: " + std::to_string(e.shared_shingles) + " of " + std::to_string(e.union_shingles) +
       " (union)\n";
  t += "exact Jaccard: " + Score4(e.jaccard) + (e.same_tokens ? " (same words: an exact copy)" : "") + "\n";
  t += "exact containment: a in b " + Score4(e.containment_a_in_b) + ", b in a " + Score4(e.containment_b_in_a) +
       (e.containment_a_in_b > e.containment_b_in_a   ? ": more of a is in b"
        : e.containment_b_in_a > e.containment_a_in_b ? ": more of b is in a"
                                                      : ": as much of each") +
       " (shared shingles / its own)\n";
  t += "signature estimate: " + Score4(e.estimate) + " (" + std::to_string(e.num_perm) +
       " permutations; standard error " + Fixed(e.standard_error, 4) + " at the exact Jaccard)\n";
  t += "LSH: " + std::to_string(e.banding.bands) + " bands x " + std::to_string(e.banding.rows) +
       " rows; agreeing in " + std::to_string(e.agreeing_bands.size()) + " band" +
       (e.agreeing_bands.size() == 1 ? "" : "s");
  if (!e.agreeing_bands.empty()) {
    t += " (";
    for (size_t i = 0; i < e.agreeing_bands.size(); ++i) {
      if (i > 0) t += ", ";
      if (i == 16) {
        t += "...";
        break;
      }
      t += std::to_string(e.agreeing_bands[i]);
    }
    t += ")";
  }
  t += e.candidate ? ": a candidate\n" : ": not a candidate\n";
  t += "P(candidate) at Jaccard " + Score4(e.jaccard) + ": " + Fixed(e.candidate_probability, 4) + " (S-curve 1-(1-s^" +
       std::to_string(e.banding.rows) + ")^" + std::to_string(e.banding.bands) + ")\n";
  if (e.relation != Relation::kSimilar) {
    AppendRelationText(e, &t);
    AppendDiffText(e, diff, marks, width, &t);
    out << t;
    return;
  }
  t += "threshold " + Num(e.threshold) + ", scan would say:\n";
  t += std::string("  --verify signature: ") + Yes(e.reported_signature) + "\n";
  t += std::string("  --verify exact:     ") + Yes(e.reported_exact) +
       (e.exact_margin > 0
            ? " (candidates with an estimate at least " +
                  Fixed(e.threshold - e.exact_margin * std::sqrt(e.threshold * (1 - e.threshold) / e.num_perm), 4) +
                  " are checked)"
            : std::string(" (every candidate is checked)")) +
       "\n";
  t += std::string("  --verify none:      ") + Yes(e.reported_none) + "\n";

  AppendDiffText(e, diff, marks, width, &t);
  out << t;
}

void WriteExplanationJson(const PairExplanation& e, const std::vector<DiffRun>& diff, std::ostream& out) {
  auto doc = [](const ExplainedDoc& d) {
    Json j = Json::object();
    j["name"] = d.name;
    j["bytes"] = d.bytes;
    j["words"] = d.words;
    j["tokens"] = d.tokens;
    j["shingles"] = d.shingles;
    j["skipped"] = d.skipped.empty() ? Json(nullptr) : Json(d.skipped);
    return j;
  };
  Json j = Json::object();
  j["neardup"] = "explain";
  j["a"] = doc(e.a);
  j["b"] = doc(e.b);
  j["threshold"] = e.threshold;
  j["num_perm"] = e.num_perm;
  j["bands"] = e.banding.bands;
  j["rows"] = e.banding.rows;
  j["shared_shingles"] = e.shared_shingles;
  j["union_shingles"] = e.union_shingles;
  j["jaccard"] = ScoreJson(e.jaccard);
  j["containment"] = Json::object({{"a_in_b", ScoreJson(e.containment_a_in_b)},
                                   {"b_in_a", ScoreJson(e.containment_b_in_a)},
                                   {"inside", e.containment_a_in_b > e.containment_b_in_a   ? Json("a")
                                              : e.containment_b_in_a > e.containment_a_in_b ? Json("b")
                                                                                            : Json(nullptr)}});
  j["same_tokens"] = e.same_tokens;
  j["estimate"] = ScoreJson(e.estimate);
  j["standard_error"] = ScoreJson(e.standard_error);
  j["agreeing_bands"] = e.agreeing_bands;
  j["candidate"] = e.candidate;
  j["candidate_probability"] = ScoreJson(e.candidate_probability);
  j["reported"] =
      Json::object({{"signature", e.reported_signature}, {"exact", e.reported_exact}, {"none", e.reported_none}});
  if (e.relation != Relation::kSimilar) {
    auto kind = [](const std::optional<PairKind>& k) {
      return !k                         ? Json(nullptr)
             : *k == PairKind::kSimilar ? Json("similar")
             : *k == PairKind::kAInB    ? Json("a_in_b")
                                        : Json("b_in_a");
    };
    j["relation"] = Json::object({{"relation", ToString(e.relation)},
                                  {"strata_apart", e.strata_apart < 0 ? Json(nullptr) : Json(e.strata_apart)},
                                  {"containment_candidate", e.containment_candidate},
                                  {"signature", kind(e.kind_signature)},
                                  {"exact", kind(e.kind_exact)}});
  }
  Json runs = Json::array();
  for (const DiffRun& run : diff) {
    const char* kind = run.kind == DiffRun::Kind::kSame      ? "same"
                       : run.kind == DiffRun::Kind::kRemoved ? "removed"
                                                             : "added";
    runs.push_back(Json::object({{"kind", kind}, {"text", run.text}}));
  }
  j["diff"] = std::move(runs);
  j["diff_capped"] = e.a.token_text_capped || e.b.token_text_capped;
  out << j.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
}

ExitCode RunExplain(const CliOptions& cli, std::ostream& out) {
  const Options& o = cli.scan;
  ExplainInputs in;
  if (RowsAreDocuments(o.input)) {
    in.jsonl_file = cli.explain_args[0];
    in.a = cli.explain_args[1];
    in.b = cli.explain_args[2];
  } else {
    in.a = cli.explain_args[0];
    in.b = cli.explain_args[1];
  }
  in.max_words = kDefaultMaxWords;
  Result<PairExplanation> e = ExplainPair(o, in);
  if (!e.ok()) {
    spdlog::error("{}", e.status().message());
    return ExitCode::kError;
  }
  const std::vector<DiffRun> diff = WordDiff(e->a.token_text, e->b.token_text);
  if (cli.format == OutputFormat::kJson) {
    WriteExplanationJson(*e, diff, out);
  } else {
    const bool color = UseColor(cli.color, STDOUT_FILENO);
    WriteExplanationText(*e, diff, color ? DiffMarks::kColor : DiffMarks::kBrackets, TerminalWidth(STDOUT_FILENO), out);
  }
  const bool reported = o.verify == VerifyMode::kExact  ? e->reported_exact
                        : o.verify == VerifyMode::kNone ? e->reported_none
                                                        : e->reported_signature;
  return reported ? ExitCode::kFound : ExitCode::kNothing;
}

}  // namespace neardup::cli
