#include "cli/cli_options.h"

#include <CLI/CLI.hpp>

#include <cctype>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <system_error>
#include <utility>

#include "neardup/version.h"

namespace neardup::cli {

std::optional<unsigned long long> ParseSize(const std::string& text) {
  size_t i = 0;
  unsigned long long value = 0;
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    const unsigned long long digit = static_cast<unsigned long long>(text[i] - '0');
    if (value > (~0ULL - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
    ++i;
  }
  std::string suffix = text.substr(i);
  for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (suffix.ends_with("IB")) suffix.resize(suffix.size() - 2);
  else if (suffix.size() > 1 && suffix.ends_with("B")) suffix.pop_back();
  int shift = 0;
  if (suffix.empty() || suffix == "B") shift = 0;
  else if (suffix == "K") shift = 10;
  else if (suffix == "M") shift = 20;
  else if (suffix == "G") shift = 30;
  else if (suffix == "T") shift = 40;
  else return std::nullopt;
  if (shift > 0 && value > (~0ULL >> shift)) return std::nullopt;
  return value << shift;
}

namespace {

// The first usage error found after parsing: one short line, naming the
// option and the value as typed.
class Errors {
 public:
  void Add(std::string message) {
    if (first_.empty()) first_ = std::move(message);
  }
  bool any() const { return !first_.empty(); }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

// A value as typed, for a message: '' when empty, control characters as '?',
// at most 40 bytes, so that the message stays one short line.
std::string Shown(const std::string& text) {
  if (text.empty()) return "''";
  std::string shown;
  for (const char c : text) {
    if (shown.size() >= 40) return shown + "...";
    const auto u = static_cast<unsigned char>(c);
    shown.push_back(u < 0x20 || u == 0x7F ? '?' : c);
  }
  return shown;
}

// A CLI11 message on one line: line breaks become "; ".
std::string OneLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  std::string line;
  for (const char c : text) {
    if (c == '\n') {
      line += "; ";
    } else if (c != '\r') {
      line.push_back(c);
    }
  }
  return line;
}

// The whole of `text` as a decimal number of type T (no sign for unsigned
// types, no '+', no spaces, no suffix), or nothing.
template <typename T>
std::optional<T> ReadNumber(const std::string& text) {
  T value{};
  const char* const end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
  return value;
}

// An integer option in [low, high], given as `text`, into *out.
template <typename T>
void ReadInteger(const char* option, const std::string& text, long long low, long long high, T* out,
                 Errors* errors) {
  const std::optional<long long> value = ReadNumber<long long>(text);
  if (!value || *value < low || *value > high) {
    std::string range = high == std::numeric_limits<long long>::max()
                            ? "an integer of at least " + std::to_string(low)
                            : "an integer from " + std::to_string(low) + " to " + std::to_string(high);
    errors->Add(std::string(option) + " must be " + range + ", got " + Shown(text));
    return;
  }
  *out = static_cast<T>(*value);
}

// One of `names` (ignoring case; only the names, never an index), into *out.
template <typename E>
void ReadChoice(const char* option, const std::string& text,
                std::initializer_list<std::pair<const char*, E>> names, E* out, Errors* errors) {
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& [name, value] : names) {
    if (lower == name) {
      *out = value;
      return;
    }
  }
  std::string list;
  size_t i = 0;
  for (const auto& entry : names) {
    if (i > 0) list += i + 1 == names.size() ? " or " : ", ";
    list += entry.first;
    ++i;
  }
  errors->Add(std::string(option) + " must be " + list + ", got " + Shown(text));
}

// Option values kept as text until after parsing, so that every value is
// checked here, with one message style, and enums accept only their names.
struct RawValues {
  CLI::Option* threshold = nullptr;
  std::string threshold_text;
  CLI::Option* num_perm = nullptr;
  std::string num_perm_text;
  CLI::Option* bands = nullptr;
  std::string bands_text;
  CLI::Option* rows = nullptr;
  std::string rows_text;
};

void AddBandingOptions(CLI::App* cmd, RawValues& raw) {
  raw.threshold = cmd->add_option("-t,--threshold", raw.threshold_text, "Jaccard similarity threshold, 0 < X <= 1")
                      ->option_text("X [0.8]");
  raw.num_perm = cmd->add_option("--num-perm", raw.num_perm_text, "MinHash permutations (signature length), 1..4096")
                     ->option_text("N [128]");
  raw.bands = cmd->add_option("--bands", raw.bands_text, "LSH bands B (with --rows; B*R <= num-perm); default: chosen")
                  ->option_text("B");
  raw.rows = cmd->add_option("--rows", raw.rows_text, "LSH rows per band R (with --bands); default: chosen")
                 ->option_text("R");
}

void ReadBandingOptions(const RawValues& raw, Options& o, Errors* errors) {
  if (raw.threshold->count() > 0) {
    const std::optional<double> t = ReadNumber<double>(raw.threshold_text);
    if (!t || !(*t > 0.0 && *t <= 1.0)) {
      errors->Add("--threshold must be in (0, 1], got " + Shown(raw.threshold_text));
    } else {
      o.threshold = *t;
    }
  }
  if (raw.num_perm->count() > 0) ReadInteger("--num-perm", raw.num_perm_text, 1, kMaxNumPerm, &o.num_perm, errors);
  constexpr long long kIntMax = std::numeric_limits<int>::max();
  if (raw.bands->count() > 0) ReadInteger("--bands", raw.bands_text, 1, kIntMax, &o.bands, errors);
  if (raw.rows->count() > 0) ReadInteger("--rows", raw.rows_text, 1, kIntMax, &o.rows, errors);
}

}  // namespace

ParsedArgs ParseArgs(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  ParsedArgs parsed;
  CliOptions& c = parsed.options;
  Options& o = c.scan;
  RawValues scan_raw, params_raw;  // each subcommand has its own banding options

  CLI::App app{"neardup: find near-duplicate text documents (shingling, MinHash, LSH)", "neardup"};
  app.set_version_flag("--version", std::string("neardup ") + kVersion);
  app.require_subcommand(1);
  app.footer("Exit status: 0 something reported, 1 nothing reported, 2 error.");

  // --- scan ------------------------------------------------------------------
  CLI::App* scan = app.add_subcommand("scan", "Find near-duplicate documents under PATH...");
  scan->add_option("PATH", o.paths, "Files or directories to scan (directories recursively)");
  AddBandingOptions(scan, scan_raw);
  std::string shingle_text, ngram_text, seed_text, verify_text, format_text, threads_text, mode_text, keep_text,
      cluster_by_text, input_text, encoding_text, min_words_text, max_filesize;
  auto* shingle = scan->add_option("--shingle", shingle_text, "Shingle unit: word or char")
                      ->option_text("word|char [word]");
  auto* ngram = scan->add_option("-k,--ngram", ngram_text, "Words or characters per shingle (default 5 words, 9 chars)")
                    ->option_text("N");
  auto* seed = scan->add_option("--seed", seed_text, "Seed of every hash function (0..2^64-1)")->option_text("N [1]");
  auto* verify = scan->add_option("--verify", verify_text, "How candidates are checked: signature, exact or none")
                     ->option_text("signature|exact|none [signature]");
  bool exact = false;
  scan->add_flag("--exact", exact, "Same as --verify exact")->excludes(verify);
  bool exact_all = false;
  scan->add_flag("--exact-all", exact_all,
                 "--exact, checking every candidate (not only those within 4 standard errors of -t)")
      ->excludes(verify);
  auto* format = scan->add_option("-f,--format", format_text, "Output format: jsonl, json, csv or tsv")
                     ->option_text("jsonl|json|csv|tsv [jsonl]");
  auto* output = scan->add_option("-o,--output", c.output,
                                  "Write to FILE instead of stdout (atomically replaced; a device or FIFO is written in place)")
                     ->option_text("FILE");
  auto* threads = scan->add_option("-j,--threads", threads_text, "Worker threads (default: number of cores)")
                      ->option_text("N");
  bool quiet = false;
  int verbose = 0;
  auto* q = scan->add_flag("-q,--quiet", quiet, "Errors only on stderr");
  scan->add_flag("-v,--verbose", verbose, "More on stderr (-v info, -vv debug)")->excludes(q);
  bool progress = false, no_progress = false;
  auto* pr = scan->add_flag("--progress", progress, "Show the progress line even when stderr is not a terminal");
  scan->add_flag("--no-progress", no_progress, "Never show the progress line")->excludes(pr);

  auto* mode = scan->add_option("--mode", mode_text, "What to report: pairs, clusters or duplicates")
                   ->option_text("pairs|clusters|duplicates [pairs]");
  auto* keep = scan->add_option("--keep", keep_text, "Document kept in a cluster: first, longest, shortest, newest, oldest")
                   ->option_text("first|longest|shortest|newest|oldest [first]");
  auto* cluster_by = scan->add_option("--cluster-by", cluster_by_text, "Cluster membership: connected or keep")
                         ->option_text("connected|keep [connected]");
  scan->add_option("--against", o.against, "Reference path (repeatable): never removable, reference-only pairs not reported")
      ->option_text("PATH")
      ->allow_extra_args(false);
  bool null = false;
  scan->add_flag("-0,--null", null, "In duplicates mode, end each path with NUL (for xargs -0)");

  scan->add_option("--files-from", c.files_from, "Read paths from FILE, one per line ('-' = stdin)")->option_text("FILE")->allow_extra_args(false);
  scan->add_option("--files0-from", c.files0_from, "Read NUL-separated paths from FILE ('-' = stdin)")->option_text("FILE")->allow_extra_args(false);
  scan->add_option("-g,--glob", o.globs, "Include files matching GLOB, exclude with !GLOB (repeatable; last match wins)")
      ->option_text("GLOB")
      ->allow_extra_args(false);
  scan->add_flag("--hidden", o.hidden, "Include hidden files and directories");
  scan->add_flag("-L,--follow", o.follow, "Follow symbolic links");
  auto* max_size = scan->add_option("--max-filesize", max_filesize, "Skip files larger than SIZE (e.g. 10M); default: no limit")
                       ->option_text("SIZE");
  std::string max_line;
  auto* max_line_opt =
      scan->add_option("--max-line", max_line, "JSONL: a longer line is skipped as malformed")->option_text("SIZE [256M]");
  auto* input = scan->add_option("--input", input_text, "Input kind: text (a file is a document) or jsonl (a line is)")
                    ->option_text("text|jsonl [text]");
  scan->add_option("--text-key", o.text_key, "JSONL key of the text")->option_text("KEY [text]")->capture_default_str();
  scan->add_option("--id-key", o.id_key, "JSONL key of the document's name (default id; else FILE:LINE)")
      ->option_text("KEY [id]")
      ->capture_default_str();
  auto* encoding = scan->add_option("--encoding", encoding_text, "Input encoding: utf8 (UTF-16 with a BOM is detected) or latin1")
                       ->option_text("utf8|latin1 [utf8]");
  auto* min_words = scan->add_option("--min-words", min_words_text, "Skip documents with fewer words")->option_text("N [1]");

  scan->add_option("--index", o.index, "Keep signatures in FILE (SQLite) between runs: only new and changed files are read")
      ->option_text("FILE");
  auto* new_only = scan->add_flag("--new", o.new_only, "With --index: report only what involves a document signed in this run");
  std::string lock_wait_text;
  auto* lock_wait = scan->add_option("--lock-wait", lock_wait_text, "With --index: wait for another run holding it")
                        ->option_text("SECONDS [0]");
  (void)new_only;

  // --- index info|check -------------------------------------------------------
  CLI::App* index_cmd = app.add_subcommand("index", "Inspect an index written by scan --index");
  index_cmd->require_subcommand(1);
  CLI::App* index_info = index_cmd->add_subcommand("info", "Parameters, documents, file size and the last runs of FILE");
  index_info->add_option("FILE", c.index_file, "The index")->required();
  CLI::App* index_check = index_cmd->add_subcommand("check", "Integrity and consistency checks of FILE (exit 0 when sound)");
  index_check->add_option("FILE", c.index_file, "The index")->required();

  // --- params ----------------------------------------------------------------
  CLI::App* params = app.add_subcommand("params", "Show the LSH banding and its S-curve for a threshold");
  AddBandingOptions(params, params_raw);

  auto usage_error = [&](const std::string& message) {
    err << "neardup: " << message << "\n";
    parsed.exit_now = ExitCode::kError;
    return parsed;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version
      app.exit(e, out, err);
      parsed.exit_now = ExitCode::kFound;
      return parsed;
    }
    std::string message = OneLine(e.what());
    // "--threshold: 1 required TEXT missing" names our storage type, not the value.
    if (const size_t at = message.find(": 1 required "); at != std::string::npos && message.ends_with(" missing")) {
      message = message.substr(0, at) + " needs a value";
    }
    return usage_error(message);
  }
  c.command = params->parsed()        ? Command::kParams
              : index_info->parsed()  ? Command::kIndexInfo
              : index_check->parsed() ? Command::kIndexCheck
                                      : Command::kScan;

  // Every value, in the order of the options table; the first error is reported.
  Errors errors;
  ReadBandingOptions(c.command == Command::kParams ? params_raw : scan_raw, o, &errors);
  if (c.command == Command::kScan) {
    if (shingle->count() > 0) {
      ReadChoice("--shingle", shingle_text, {{"word", ShingleUnit::kWord}, {"char", ShingleUnit::kChar}}, &o.shingle,
                 &errors);
    }
    if (ngram->count() > 0) ReadInteger("--ngram", ngram_text, 1, kMaxNgram, &o.ngram, &errors);
    if (seed->count() > 0) {
      if (const std::optional<uint64_t> value = ReadNumber<uint64_t>(seed_text)) {
        o.seed = *value;
      } else {
        errors.Add("--seed must be an integer from 0 to 18446744073709551615, got " + Shown(seed_text));
      }
    }
    if (verify->count() > 0) {
      ReadChoice("--verify", verify_text,
                 {{"signature", VerifyMode::kSignature}, {"exact", VerifyMode::kExact}, {"none", VerifyMode::kNone}},
                 &o.verify, &errors);
    }
    if (exact || exact_all) o.verify = VerifyMode::kExact;
    if (exact_all) o.exact_margin = 0;
    if (format->count() > 0) {
      ReadChoice("--format", format_text,
                 {{"jsonl", OutputFormat::kJsonl},
                  {"json", OutputFormat::kJson},
                  {"csv", OutputFormat::kCsv},
                  {"tsv", OutputFormat::kTsv}},
                 &c.format, &errors);
    }
    if (output->count() > 0 && c.output.empty()) {
      errors.Add("--output needs a file name ('-' for stdout), got ''");
    }
    if (threads->count() > 0) ReadInteger("--threads", threads_text, 1, kMaxThreads, &o.threads, &errors);
    if (mode->count() > 0) {
      ReadChoice("--mode", mode_text,
                 {{"pairs", Mode::kPairs}, {"clusters", Mode::kClusters}, {"duplicates", Mode::kDuplicates}}, &o.mode,
                 &errors);
    }
    if (keep->count() > 0) {
      ReadChoice("--keep", keep_text,
                 {{"first", KeepRule::kFirst},
                  {"longest", KeepRule::kLongest},
                  {"shortest", KeepRule::kShortest},
                  {"newest", KeepRule::kNewest},
                  {"oldest", KeepRule::kOldest}},
                 &o.keep, &errors);
    }
    if (cluster_by->count() > 0) {
      ReadChoice("--cluster-by", cluster_by_text, {{"connected", ClusterBy::kConnected}, {"keep", ClusterBy::kKeep}},
                 &o.cluster_by, &errors);
    }
    if (max_size->count() > 0) {
      const auto size = ParseSize(max_filesize);
      if (!size) {
        errors.Add("--max-filesize must be a size such as 500K, 10M or 2G, got " + Shown(max_filesize));
      } else if (*size == 0) {
        // 0 would silently mean "no limit": leave the option out for that.
        errors.Add("--max-filesize must be more than 0 (without it there is no limit), got " + Shown(max_filesize));
      } else {
        o.max_filesize = *size;
      }
    }
    if (max_line_opt->count() > 0) {
      const auto size = ParseSize(max_line);
      if (!size || *size == 0) {
        errors.Add("--max-line must be a size of at least 1 such as 64K or 256M, got " + Shown(max_line));
      } else {
        o.max_line = *size;
      }
    }
    if (input->count() > 0) {
      ReadChoice("--input", input_text, {{"text", InputFormat::kText}, {"jsonl", InputFormat::kJsonl}}, &o.input,
                 &errors);
    }
    if (encoding->count() > 0) {
      ReadChoice("--encoding", encoding_text,
                 {{"utf8", Encoding::kUtf8},
                  {"utf-8", Encoding::kUtf8},
                  {"latin1", Encoding::kLatin1},
                  {"latin-1", Encoding::kLatin1},
                  {"iso-8859-1", Encoding::kLatin1}},
                 &o.encoding, &errors);
    }
    if (lock_wait->count() > 0) {
      const std::optional<double> w = ReadNumber<double>(lock_wait_text);
      if (!w || !(*w >= 0) || *w > 1e9) {
        errors.Add("--lock-wait must be a number of seconds from 0, got " + Shown(lock_wait_text));
      } else {
        o.lock_wait = *w;
      }
    }
    if (min_words->count() > 0) {
      ReadInteger("--min-words", min_words_text, 1, std::numeric_limits<long long>::max(), &o.min_words, &errors);
    }
  }
  if (errors.any()) return usage_error(errors.first());

  c.verbosity = quiet ? -1 : verbose;
  if (progress) c.progress = true;
  if (no_progress || quiet) c.progress = false;
  if (c.command == Command::kScan) {
    if (null && o.mode != Mode::kDuplicates) return usage_error("-0 (--null) applies only to --mode duplicates");
    if (null && c.format == OutputFormat::kJson) {
      return usage_error("-0 (--null) does not apply to -f json (one json document)");
    }
    if (null) c.terminator = '\0';
    if (o.mode == Mode::kPairs) {
      if (keep->count() > 0) parsed.warnings.push_back("--keep has no effect in pairs mode (see --mode)");
      if (cluster_by->count() > 0) parsed.warnings.push_back("--cluster-by has no effect in pairs mode (see --mode)");
    }
  }
  if (c.command == Command::kScan && o.paths.empty() && c.files_from.empty() && c.files0_from.empty()) {
    return usage_error("scan needs a PATH (or --files-from); see neardup scan --help");
  }
  if (c.command == Command::kScan && lock_wait->count() > 0 && o.index.empty()) {
    return usage_error("--lock-wait needs --index FILE");
  }
  if (c.command == Command::kScan || c.command == Command::kParams) {
    if (Status s = ValidateOptions(o); !s.ok()) return usage_error(s.message());
  }
  return parsed;
}

}  // namespace neardup::cli
