#include "cli/cli_options.h"

#include <CLI/CLI.hpp>

#include <cctype>
#include <map>

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

template <typename E>
CLI::CheckedTransformer Choice(const std::map<std::string, E>& map) {
  return CLI::CheckedTransformer(map, CLI::ignore_case);
}

void AddBandingOptions(CLI::App* cmd, Options& o) {
  cmd->add_option("-t,--threshold", o.threshold, "Jaccard similarity threshold, 0 < X <= 1")
      ->option_text("X [0.8]")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--num-perm", o.num_perm, "MinHash permutations (signature length), 1..4096")
      ->option_text("N [128]")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--bands", o.bands, "LSH bands B (with --rows; B*R <= num-perm); default: chosen")
      ->option_text("B")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--rows", o.rows, "LSH rows per band R (with --bands); default: chosen")
      ->option_text("R")
      ->check(CLI::PositiveNumber);
}

}  // namespace

ParsedArgs ParseArgs(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  ParsedArgs parsed;
  CliOptions& c = parsed.options;
  Options& o = c.scan;

  CLI::App app{"neardup: find near-duplicate text documents (shingling, MinHash, LSH)", "neardup"};
  app.set_version_flag("--version", std::string("neardup ") + kVersion);
  app.require_subcommand(1);
  app.footer("Exit status: 0 something reported, 1 nothing reported, 2 error.");

  // --- scan ------------------------------------------------------------------
  CLI::App* scan = app.add_subcommand("scan", "Find near-duplicate documents under PATH...");
  scan->add_option("PATH", o.paths, "Files or directories to scan (directories recursively)");
  AddBandingOptions(scan, o);
  scan->add_option("--shingle", o.shingle, "Shingle unit: word or char")
      ->option_text("word|char [word]")
      ->transform(Choice(std::map<std::string, ShingleUnit>{{"word", ShingleUnit::kWord},
                                                            {"char", ShingleUnit::kChar}}))
      ->default_str("word");
  scan->add_option("-k,--ngram", o.ngram, "Words or characters per shingle (default 5 words, 9 chars)")
      ->option_text("N")
      ->check(CLI::Range(1, 64));
  scan->add_option("--seed", o.seed, "Seed of every hash function")->option_text("N [1]")->capture_default_str();
  auto* verify = scan->add_option("--verify", o.verify, "How candidates are checked: signature, exact or none")
                     ->option_text("signature|exact|none [signature]")
                     ->transform(Choice(std::map<std::string, VerifyMode>{
                         {"signature", VerifyMode::kSignature},
                         {"exact", VerifyMode::kExact},
                         {"none", VerifyMode::kNone}}))
                     ->default_str("signature");
  bool exact = false;
  scan->add_flag("--exact", exact, "Same as --verify exact")->excludes(verify);
  scan->add_option("-f,--format", c.format, "Output format: jsonl, json, csv or tsv")
      ->option_text("jsonl|json|csv|tsv [jsonl]")
      ->transform(Choice(std::map<std::string, OutputFormat>{{"jsonl", OutputFormat::kJsonl},
                                                             {"json", OutputFormat::kJson},
                                                             {"csv", OutputFormat::kCsv},
                                                             {"tsv", OutputFormat::kTsv}}))
      ->default_str("jsonl");
  scan->add_option("-o,--output", c.output, "Write to FILE (atomically) instead of stdout")->option_text("FILE");
  scan->add_option("-j,--threads", o.threads, "Worker threads (default: number of cores)")
      ->option_text("N")
      ->check(CLI::Range(1, 1024));
  bool quiet = false;
  int verbose = 0;
  auto* q = scan->add_flag("-q,--quiet", quiet, "Errors only on stderr");
  scan->add_flag("-v,--verbose", verbose, "More on stderr (-v info, -vv debug)")->excludes(q);
  bool progress = false, no_progress = false;
  auto* pr = scan->add_flag("--progress", progress, "Show the progress line even when stderr is not a terminal");
  scan->add_flag("--no-progress", no_progress, "Never show the progress line")->excludes(pr);

  scan->add_option("--mode", o.mode, "What to report: pairs, clusters or duplicates")
      ->option_text("pairs|clusters|duplicates [pairs]")
      ->transform(Choice(std::map<std::string, Mode>{{"pairs", Mode::kPairs},
                                                     {"clusters", Mode::kClusters},
                                                     {"duplicates", Mode::kDuplicates}}))
      ->default_str("pairs");
  scan->add_option("--keep", o.keep, "Document kept in a cluster: first, longest, shortest, newest, oldest")
      ->option_text("first|longest|shortest|newest|oldest [first]")
      ->transform(Choice(std::map<std::string, KeepRule>{{"first", KeepRule::kFirst},
                                                         {"longest", KeepRule::kLongest},
                                                         {"shortest", KeepRule::kShortest},
                                                         {"newest", KeepRule::kNewest},
                                                         {"oldest", KeepRule::kOldest}}))
      ->default_str("first");
  scan->add_option("--cluster-by", o.cluster_by, "Cluster membership: connected or keep")
      ->option_text("connected|keep [connected]")
      ->transform(Choice(std::map<std::string, ClusterBy>{{"connected", ClusterBy::kConnected},
                                                          {"keep", ClusterBy::kKeep}}))
      ->default_str("connected");
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
  std::string max_filesize;
  scan->add_option("--max-filesize", max_filesize, "Skip files larger than SIZE (e.g. 10M); default: no limit")->option_text("SIZE");
  std::string max_line;
  scan->add_option("--max-line", max_line, "JSONL: a longer line is skipped as malformed")->option_text("SIZE [256M]");
  scan->add_option("--input", o.input, "Input kind: text (a file is a document) or jsonl (a line is)")
      ->option_text("text|jsonl [text]")
      ->transform(Choice(std::map<std::string, InputFormat>{{"text", InputFormat::kText},
                                                            {"jsonl", InputFormat::kJsonl}}))
      ->default_str("text");
  scan->add_option("--text-key", o.text_key, "JSONL key of the text")->option_text("KEY [text]")->capture_default_str();
  scan->add_option("--id-key", o.id_key, "JSONL key of the document's name (default id; else FILE:LINE)")
      ->option_text("KEY [id]")
      ->capture_default_str();
  scan->add_option("--encoding", o.encoding, "Input encoding: utf8 (UTF-16 with a BOM is detected) or latin1")
      ->option_text("utf8|latin1 [utf8]")
      ->transform(Choice(std::map<std::string, Encoding>{{"utf8", Encoding::kUtf8},
                                                         {"utf-8", Encoding::kUtf8},
                                                         {"latin1", Encoding::kLatin1},
                                                         {"latin-1", Encoding::kLatin1},
                                                         {"iso-8859-1", Encoding::kLatin1}}))
      ->default_str("utf8");
  scan->add_option("--min-words", o.min_words, "Skip documents with fewer words")->option_text("N [1]")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);

  // --- params ----------------------------------------------------------------
  CLI::App* params = app.add_subcommand("params", "Show the LSH banding and its S-curve for a threshold");
  AddBandingOptions(params, o);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e, out, err);
    parsed.exit_now = code == 0 ? ExitCode::kFound : ExitCode::kError;
    return parsed;
  }
  c.command = params->parsed() ? Command::kParams : Command::kScan;
  if (exact) o.verify = VerifyMode::kExact;
  c.verbosity = quiet ? -1 : verbose;
  if (progress) c.progress = true;
  if (no_progress || quiet) c.progress = false;
  if (null) c.terminator = '\0';
  if (!max_filesize.empty()) {
    const auto size = ParseSize(max_filesize);
    if (!size) {
      err << "neardup: --max-filesize: cannot read size '" << max_filesize << "' (e.g. 500K, 10M, 2G)\n";
      parsed.exit_now = ExitCode::kError;
      return parsed;
    }
    o.max_filesize = *size;
  }
  if (!max_line.empty()) {
    const auto size = ParseSize(max_line);
    if (!size || *size == 0) {
      err << "neardup: --max-line: cannot read size '" << max_line << "' (at least 1, e.g. 64K, 256M)\n";
      parsed.exit_now = ExitCode::kError;
      return parsed;
    }
    o.max_line = *size;
  }
  if (c.command == Command::kScan && o.paths.empty() && c.files_from.empty() && c.files0_from.empty()) {
    err << "neardup: scan needs a PATH (or --files-from); see neardup scan --help\n";
    parsed.exit_now = ExitCode::kError;
    return parsed;
  }
  if (Status s = ValidateOptions(o); !s.ok()) {
    err << "neardup: " << s.message() << "\n";
    parsed.exit_now = ExitCode::kError;
    return parsed;
  }
  return parsed;
}

}  // namespace neardup::cli
