#include "neardup/option_table.h"

#include <cassert>
#include <cctype>
#include <charconv>
#include <limits>
#include <system_error>
#include <type_traits>

#include "base/option_table.h"

namespace neardup {

namespace {

using option_access::Get;
using option_access::List;
using option_access::Put;
using option_access::Text;

// scan's options, also read by the stages (kStageCommand).
constexpr unsigned kScan = kScanCommand | kStageCommand;
constexpr unsigned kBoth = kScan | kParamsCommand;
constexpr long long kIntMax = std::numeric_limits<int>::max();
constexpr unsigned long long kUint64Max = std::numeric_limits<uint64_t>::max();

// Every option, in help order. Help lines leave out ranges (RangeText() adds
// them) and defaults (DefaultText() reads a core option's from Options{},
// shown as "[0.8]"; a front-end option's is its `default_text`).
constexpr OptionSpec kTable[] = {
    // --- Input ---------------------------------------------------------------
    {.long_name = "PATH",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kPositional,
     .help = "Files or directories to scan (directories recursively)",
     .commands = kScan,
     .list = List<&Options::paths>},
    {.long_name = "--files-from",
     .value_name = "FILE",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kTextList,
     .help = "Read paths from FILE, one per line ('-' = stdin)",
     .commands = kScan,
     .front_end = true},
    {.long_name = "--files0-from",
     .value_name = "FILE",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kTextList,
     .help = "Read NUL-separated paths from FILE ('-' = stdin)",
     .commands = kScan,
     .front_end = true},
    {.long_name = "--glob",
     .short_name = "-g",
     .value_name = "GLOB",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kTextList,
     .help = "Include files matching GLOB, exclude with !GLOB (repeatable; last match wins)",
     .commands = kScan,
     .list = List<&Options::globs>},
    {.long_name = "--ignore-file",
     .value_name = "FILE",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kTextList,
     .help =
         "Skip what FILE's gitignore patterns match below each PATH (repeatable; .ignore and .gitignore come first)",
     .commands = kScan,
     .list = List<&Options::ignore_files>},
    {.long_name = "--no-ignore",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kFlag,
     .help = "Honour no .ignore or .gitignore file (--ignore-file still applies)",
     .commands = kScan,
     .get = Get<&Options::no_ignore>,
     .put = Put<&Options::no_ignore>},
    {.long_name = "--hidden",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kFlag,
     .help = "Include hidden files and directories",
     .commands = kScan,
     .get = Get<&Options::hidden>,
     .put = Put<&Options::hidden>},
    {.long_name = "--follow",
     .short_name = "-L",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kFlag,
     .help = "Follow symbolic links",
     .commands = kScan,
     .get = Get<&Options::follow>,
     .put = Put<&Options::follow>},
    {.long_name = "--max-filesize",
     .value_name = "SIZE",
     .group = OptionGroup::kInput,
     .unset_text = "no limit",
     .kind = ValueKind::kSize,
     .range = {.low = 1, .zero_is_unset = true},
     .expects = "a size such as 500K, 10M or 2G",
     .zero_expects = "more than 0 (without it there is no limit)",
     .help = "Skip files larger than SIZE (e.g. 10M)",
     .commands = kScan,
     .get = Get<&Options::max_filesize>,
     .put = Put<&Options::max_filesize>},
    {.long_name = "--input",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kChoice,
     .choices = kInputFormatNames,
     .help = "Input kind: text (a file is a document), jsonl (a line is) or parquet (a row is)",
     .commands = kScan | kExplainCommand,
     .get = Get<&Options::input>,
     .put = Put<&Options::input>},
    {.long_name = "--max-line",
     .value_name = "SIZE",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kSize,
     .range = {.low = 1},
     .expects = "a size of at least 1 such as 64K or 256M",
     .help = "JSONL: a longer line is skipped as malformed",
     .commands = kScan | kExplainCommand,
     .get = Get<&Options::max_line>,
     .put = Put<&Options::max_line>},
    {.long_name = "--text-key",
     .value_name = "KEY",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kText,
     .help = "JSONL key of the text",
     .commands = kScan | kExplainCommand,
     .text = Text<&Options::text_key>},
    {.long_name = "--id-key",
     .value_name = "KEY",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kText,
     .help = "JSONL key of the document's name (without it: FILE:LINE)",
     .commands = kScan | kExplainCommand,
     .text = Text<&Options::id_key>},
    {.long_name = "--encoding",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kChoice,
     .choices = kEncodingNames,
     .help = "Input encoding: utf8 (UTF-16 with a BOM is detected) or latin1",
     .commands = kScan | kExplainCommand,
     .get = Get<&Options::encoding>,
     .put = Put<&Options::encoding>},
    {.long_name = "--strip",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kChoice,
     .choices = kStripNames,
     .help = "Compare only the text: html (what a page shows) or mail (a message's body), held whole up to "
             "--max-filesize, else --max-line",
     .commands = kScan | kExplainCommand,
     .get = Get<&Options::strip>,
     .put = Put<&Options::strip>},
    {.long_name = "--min-words",
     .value_name = "N",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kInteger,
     .range = {.low = 1},
     .help = "Skip documents with fewer words",
     .commands = kScan | kExplainCommand,
     .get = Get<&Options::min_words>,
     .put = Put<&Options::min_words>},
    {.long_name = "--against",
     .value_name = "PATH",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kTextList,
     .help = "Reference path (repeatable): report only what matches a reference document, never removable",
     .commands = kScan,
     .list = List<&Options::against>},
    {.long_name = "--among-new",
     .group = OptionGroup::kInput,
     .kind = ValueKind::kFlag,
     .help = "With --against: also report pairs and clusters of new documents alone",
     .commands = kScan,
     .get = Get<&Options::among_new>,
     .put = Put<&Options::among_new>},

    // --- Shingling & LSH -------------------------------------------------------
    {.long_name = "--shingle",
     .group = OptionGroup::kShingling,
     .kind = ValueKind::kChoice,
     .choices = kShingleUnitNames,
     .help = "Shingle unit: word or char",
     .commands = kScan | kExplainCommand,
     .get = Get<&Options::shingle>,
     .put = Put<&Options::shingle>},
    {.long_name = "--ngram",
     .short_name = "-k",
     .value_name = "N",
     .group = OptionGroup::kShingling,
     .unset_text = "5 words, 9 chars",  // kWordNgram, kCharNgram: checked below the table
     .kind = ValueKind::kInteger,
     .range = {.low = 1, .high = kMaxNgram, .has_high = true, .zero_is_unset = true},
     .help = "Words or characters per shingle",
     .commands = kScan | kExplainCommand,
     .get = Get<&Options::ngram>,
     .put = Put<&Options::ngram>},
    {.long_name = "--num-perm",
     .value_name = "N",
     .group = OptionGroup::kShingling,
     .kind = ValueKind::kInteger,
     .range = {.low = 1, .high = kMaxNumPerm, .has_high = true},
     .help = "MinHash permutations (signature length)",
     .commands = kBoth | kExplainCommand,
     .get = Get<&Options::num_perm>,
     .put = Put<&Options::num_perm>},
    {.long_name = "--bands",
     .value_name = "B",
     .group = OptionGroup::kShingling,
     .unset_text = "chosen",
     .kind = ValueKind::kInteger,
     .range = {.low = 1, .high = kIntMax, .has_high = true, .zero_is_unset = true},
     .help = "LSH bands B (with --rows; B*R <= num-perm)",
     .commands = kBoth | kExplainCommand,
     .get = Get<&Options::bands>,
     .put = Put<&Options::bands>},
    {.long_name = "--rows",
     .value_name = "R",
     .group = OptionGroup::kShingling,
     .unset_text = "chosen",
     .kind = ValueKind::kInteger,
     .range = {.low = 1, .high = kIntMax, .has_high = true, .zero_is_unset = true},
     .help = "LSH rows per band R (with --bands)",
     .commands = kBoth | kExplainCommand,
     .get = Get<&Options::rows>,
     .put = Put<&Options::rows>},
    {.long_name = "--seed",
     .value_name = "N",
     .group = OptionGroup::kShingling,
     .kind = ValueKind::kInteger,
     .range = {.low = 0, .high = kUint64Max, .has_high = true},
     .help = "Seed of every hash function",
     .commands = kScan | kExplainCommand,
     .get = Get<&Options::seed>,
     .put = Put<&Options::seed>},

    // --- Verification ----------------------------------------------------------
    {.long_name = "--threshold",
     .short_name = "-t",
     .value_name = "X",
     .group = OptionGroup::kVerification,
     .kind = ValueKind::kReal,
     .range = {.low = 0, .high = 1, .has_high = true, .low_open = true},
     .help = "Jaccard similarity threshold",
     .commands = kBoth | kExplainCommand,
     .get = Get<&Options::threshold>,
     .put = Put<&Options::threshold>},
    {.long_name = "--verify",
     .group = OptionGroup::kVerification,
     .kind = ValueKind::kChoice,
     .choices = kVerifyModeNames,
     .help = "How candidates are checked: exact (proven), signature (estimate only: may list pairs below -t) or none",
     .commands = kScan | kExplainCommand,
     .get = Get<&Options::verify>,
     .put = Put<&Options::verify>},
    {.long_name = "--exact",
     .group = OptionGroup::kVerification,
     .kind = ValueKind::kFlag,
     .help = "Same as --verify exact (the default)",
     .commands = kScan | kExplainCommand,
     .excludes = "--verify",
     .put = [](Options& o, long double) { o.verify = VerifyMode::kExact; }},
    {.long_name = "--exact-all",
     .group = OptionGroup::kVerification,
     .kind = ValueKind::kFlag,
     .help = "--exact, checking every candidate (not only those whose estimate is near -t)",
     .commands = kScan | kExplainCommand,
     .excludes = "--verify",
     .put =
         [](Options& o, long double) {
           o.verify = VerifyMode::kExact;
           o.exact_margin = 0;
         }},
    {.long_name = "--contains",
     .group = OptionGroup::kVerification,
     .kind = ValueKind::kFlag,
     .help = "params: the banding that finds a document contained in another at -t (size strata)",
     .commands = kParamsCommand,
     .get = Get<&Options::contains>,
     .put = Put<&Options::contains>},
    {.long_name = "--max-ratio",
     .value_name = "X",
     .group = OptionGroup::kVerification,
     .kind = ValueKind::kReal,
     .range = {.low = 1, .high = 1024, .has_high = true},
     .help = "Containment: the largest size ratio of container to contained looked for",
     .commands = kBoth | kExplainCommand,
     .get = Get<&Options::max_ratio>,
     .put = Put<&Options::max_ratio>},
    {.long_name = "--relation",
     .group = OptionGroup::kVerification,
     .kind = ValueKind::kChoice,
     .choices = kRelationNames,
     .help = "What to report: similar (near copies), contains (one document inside another) or both",
     .commands = kScan | kExplainCommand,
     .get = Get<&Options::relation>,
     .put = Put<&Options::relation>},
    {.long_name = "--min-contained",
     .value_name = "N",
     .group = OptionGroup::kVerification,
     .kind = ValueKind::kInteger,
     .range = {.low = 1},
     .help = "Containment: the least distinct shingles of a contained document",
     .commands = kScan | kExplainCommand,
     .get = Get<&Options::min_contained>,
     .put = Put<&Options::min_contained>},
    {.long_name = "--min-jaccard",
     .value_name = "X",
     .group = OptionGroup::kVerification,
     .kind = ValueKind::kReal,
     .range = {.low = 0, .high = 1, .has_high = true},
     .help = "Containment: the least Jaccard of a pair reported as containment",
     .commands = kScan | kExplainCommand,
     .get = Get<&Options::min_jaccard>,
     .put = Put<&Options::min_jaccard>},
    {.long_name = "--min-ratio",
     .value_name = "X",
     .group = OptionGroup::kVerification,
     .kind = ValueKind::kReal,
     .range = {.low = 1, .high = 1024, .has_high = true},
     .help = "Containment: the least size ratio of container to contained (nearer pairs: Jaccard alone)",
     .commands = kScan | kExplainCommand,
     .get = Get<&Options::min_ratio>,
     .put = Put<&Options::min_ratio>},

    // --- Output ----------------------------------------------------------------
    {.long_name = "--format",
     .short_name = "-f",
     .group = OptionGroup::kOutput,
     .default_text = "jsonl",
     .kind = ValueKind::kChoice,
     .choices = kOutputFormatNames,
     .help = "Output format: jsonl, json, csv, tsv or html (review page)",
     .commands = kScan,
     .front_end = true},
    // explain's -f: text unless json; a command has one entry of a name.
    {.long_name = "--format",
     .short_name = "-f",
     .group = OptionGroup::kOutput,
     .unset_text = "text",
     .kind = ValueKind::kChoice,
     .choices = kExplainFormatNames,
     .help = "Print one JSON object instead of text",
     .commands = kExplainCommand,
     .front_end = true},
    {.long_name = "--color",
     .group = OptionGroup::kOutput,
     .default_text = "auto",
     .kind = ValueKind::kChoice,
     .choices = kColorWhenNames,
     .help = "Colour the diff: auto (on a terminal, unless NO_COLOR is set), always or never",
     .commands = kExplainCommand,
     .front_end = true},
    {.long_name = "--output",
     .short_name = "-o",
     .value_name = "FILE",
     .group = OptionGroup::kOutput,
     .unset_text = "stdout",
     .kind = ValueKind::kText,
     .help = "Write to FILE instead of stdout (atomically replaced; a device or FIFO is written in place)",
     .commands = kScan,
     .front_end = true},
    {.long_name = "--mode",
     .group = OptionGroup::kOutput,
     .kind = ValueKind::kChoice,
     .choices = kModeNames,
     .help = "What to report: pairs, clusters or duplicates",
     .commands = kScan,
     .get = Get<&Options::mode>,
     .put = Put<&Options::mode>},
    {.long_name = "--null",
     .short_name = "-0",
     .group = OptionGroup::kOutput,
     .kind = ValueKind::kFlag,
     .help = "In duplicates mode, end each path with NUL (for xargs -0)",
     .commands = kScan,
     .front_end = true},

    {.long_name = "--kept-dir",
     .value_name = "DIR",
     .group = OptionGroup::kOutput,
     .kind = ValueKind::kText,
     .help = "Also write the kept documents to DIR (new or empty): each input file below DIR, without what --mode "
             "duplicates lists",
     .commands = kScanCommand | kStageFilterCommand,
     .text = Text<&Options::kept_dir>},
    {.long_name = "--kept-copy",
     .group = OptionGroup::kOutput,
     .kind = ValueKind::kFlag,
     .help = "With --kept-dir: copy text files instead of hard-linking them",
     .commands = kScanCommand | kStageFilterCommand,
     .get = Get<&Options::kept_copy>,
     .put = Put<&Options::kept_copy>},
    {.long_name = "--annotate-dir",
     .value_name = "DIR",
     .group = OptionGroup::kOutput,
     .kind = ValueKind::kText,
     .help = "Also write the whole corpus to DIR (new or empty), each JSONL line or Parquet row with the fields "
             "cluster, duplicate_of, score and kept added (JSONL and Parquet input)",
     .commands = kScanCommand | kStageFilterCommand,
     .text = Text<&Options::annotate_dir>},
    {.long_name = "--annotate-prefix",
     .value_name = "P",
     .group = OptionGroup::kOutput,
     .kind = ValueKind::kText,
     .help = "With --annotate-dir: name the added fields P+cluster, P+duplicate_of, P+score and P+kept",
     .commands = kScanCommand | kStageFilterCommand,
     .text = Text<&Options::annotate_prefix>},

    // --- Clusters --------------------------------------------------------------
    {.long_name = "--keep",
     .group = OptionGroup::kClusters,
     .kind = ValueKind::kChoice,
     .choices = kKeepRuleNames,
     .help = "Document kept in a cluster: first (in input order), longest, shortest, newest, oldest",
     .commands = kScan,
     .get = Get<&Options::keep>,
     .put = Put<&Options::keep>},
    {.long_name = "--cluster-by",
     .group = OptionGroup::kClusters,
     .kind = ValueKind::kChoice,
     .choices = kClusterByNames,
     .help = "Cluster membership: keep (each member like the kept one) or connected (may be unlike it: not for rm)",
     .commands = kScan,
     .get = Get<&Options::cluster_by>,
     .put = Put<&Options::cluster_by>},

    // --- Execution -------------------------------------------------------------
    {.long_name = "--threads",
     .short_name = "-j",
     .value_name = "N",
     .group = OptionGroup::kExecution,
     .unset_text = "cores",
     .kind = ValueKind::kInteger,
     .range = {.low = 1, .high = kMaxThreads, .has_high = true, .zero_is_unset = true},
     .help = "Worker threads (by default one per core)",
     .commands = kScan,
     .get = Get<&Options::threads>,
     .put = Put<&Options::threads>},

    // --- Index ---------------------------------------------------------------
    {.long_name = "--index",
     .value_name = "FILE",
     .group = OptionGroup::kIndex,
     .kind = ValueKind::kText,
     .help = "Keep signatures in FILE (SQLite) between runs: only new and changed files are read",
     .commands = kScanCommand,
     .text = Text<&Options::index>},
    {.long_name = "--new",
     .group = OptionGroup::kIndex,
     .kind = ValueKind::kFlag,
     .help = "With --index: report only what involves a document not yet delivered (signed in this run, or "
             "pending); delivered only by a --new run over the index's paths and options into a regular file "
             "(-o FILE, >file), never a pipe",
     .commands = kScanCommand,
     .get = Get<&Options::new_only>,
     .put = Put<&Options::new_only>},
    {.long_name = "--lock-wait",
     .value_name = "SECONDS",
     .group = OptionGroup::kIndex,
     .kind = ValueKind::kReal,
     .range = {.low = 0},
     .help = "With --index: wait this long for another run holding the index",
     .commands = kScanCommand,
     .get = Get<&Options::lock_wait>,
     .put = Put<&Options::lock_wait>},

    // --- Logging ---------------------------------------------------------------
    {.long_name = "--quiet",
     .short_name = "-q",
     .group = OptionGroup::kLogging,
     .kind = ValueKind::kFlag,
     .help = "Errors only on stderr",
     .commands = kScan | kExplainCommand,
     .front_end = true},
    {.long_name = "--verbose",
     .short_name = "-v",
     .group = OptionGroup::kLogging,
     .kind = ValueKind::kCount,
     .help = "More on stderr (-v info, -vv debug)",
     .commands = kScan | kExplainCommand,
     .excludes = "--quiet",
     .front_end = true},
    {.long_name = "--progress",
     .group = OptionGroup::kLogging,
     .kind = ValueKind::kFlag,
     .help = "Show the progress line even when stderr is not a terminal",
     .commands = kScanCommand,
     .front_end = true},
    {.long_name = "--no-progress",
     .group = OptionGroup::kLogging,
     .kind = ValueKind::kFlag,
     .help = "Never show the progress line",
     .commands = kScanCommand,
     .excludes = "--progress",
     .front_end = true},
};
static_assert(kWordNgram == 5 && kCharNgram == 9, "the --ngram entry's unset_text spells these");

// The shortest text that reads back as `value`: -0.5, 1e+308, nan (never
// the 309 digits std::to_string() gives for DBL_MAX).
std::string Shortest(double value) {
  char text[64];
  const auto [end, error] = std::to_chars(text, text + sizeof text, value);
  if (error != std::errc()) return "?";
  return std::string(text, end);
}

std::string IntegerText(long double value) {
  if (value < 0) return std::to_string(static_cast<long long>(value));
  return std::to_string(static_cast<unsigned long long>(value));
}

// A byte count as it would be typed (ParseSize() reads it back): with the
// largest of the suffixes T, G, M, K that divides it ("256M"), else bare.
std::string SizeText(uint64_t value) {
  constexpr struct {
    int shift;
    char suffix;
  } kUnits[] = {{40, 'T'}, {30, 'G'}, {20, 'M'}, {10, 'K'}};
  for (const auto& unit : kUnits) {
    const uint64_t size = uint64_t{1} << unit.shift;
    if (value != 0 && value % size == 0) return std::to_string(value / size) + unit.suffix;
  }
  return std::to_string(value);
}

Status MustBe(const OptionSpec& spec, const std::string& expects, const std::string& shown) {
  return Status::InvalidArgument(
      std::string(spec.long_name).append(" must be ").append(expects).append(", got ").append(shown));
}

bool InRange(const ValueRange& range, long double value) {
  const auto low = static_cast<long double>(range.low);
  const auto high = static_cast<long double>(range.high);
  if (range.low_open ? !(value > low) : !(value >= low)) return false;
  if (range.has_high && (range.high_open ? !(value < high) : !(value <= high))) return false;
  return true;
}

// The whole of `text` as a decimal integer (a '-' only for negatives; no '+',
// no spaces, no suffix), or nothing.
std::optional<long double> ReadInteger(std::string_view text) {
  const char* const end = text.data() + text.size();
  if (!text.empty() && text[0] == '-') {
    long long value = 0;
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc() || stop != end) return std::nullopt;
    return static_cast<long double>(value);
  }
  unsigned long long value = 0;
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
  return static_cast<long double>(value);
}

std::optional<double> ReadReal(std::string_view text) {
  double value = 0;
  const char* const end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
  return value;
}

}  // namespace

std::span<const OptionSpec> OptionTable() { return kTable; }

const OptionSpec* FindOption(std::string_view name) {
  for (const OptionSpec& spec : kTable) {
    if (name == spec.long_name || (!name.empty() && name == spec.short_name)) return &spec;
  }
  return nullptr;
}

const char* ToString(OptionGroup group) {
  switch (group) {
    case OptionGroup::kInput:
      return "Input";
    case OptionGroup::kShingling:
      return "Shingling & LSH";
    case OptionGroup::kVerification:
      return "Verification";
    case OptionGroup::kOutput:
      return "Output";
    case OptionGroup::kClusters:
      return "Clusters";
    case OptionGroup::kExecution:
      return "Execution";
    case OptionGroup::kIndex:
      return "Index";
    case OptionGroup::kLogging:
      return "Logging";
  }
  return "?";
}

std::optional<int> FindEnumValue(std::span<const EnumName> names, std::string_view text) {
  for (const EnumName& entry : names) {
    const std::string_view name = entry.name;
    if (name.size() != text.size()) continue;
    bool same = true;
    for (size_t i = 0; i < name.size() && same; ++i) {
      same = std::tolower(static_cast<unsigned char>(text[i])) == static_cast<unsigned char>(name[i]);
    }
    if (same) return entry.value;
  }
  return std::nullopt;
}

const char* EnumValueName(std::span<const EnumName> names, int value) {
  for (const EnumName& entry : names) {
    if (entry.value == value) return entry.name;
  }
  return "?";
}

const char* ToString(ShingleUnit unit) { return NameOf(unit); }
const char* ToString(VerifyMode verify) { return NameOf(verify); }
const char* ToString(Mode mode) { return NameOf(mode); }
const char* ToString(KeepRule keep) { return NameOf(keep); }
const char* ToString(ClusterBy cluster_by) { return NameOf(cluster_by); }
const char* ToString(Strip strip) { return NameOf(strip); }
const char* ToString(Relation relation) { return NameOf(relation); }

Status InvalidValue(const OptionSpec& spec, std::string_view text) {
  return MustBe(spec, Expectation(spec), ShownValue(text));
}

std::string Expectation(const OptionSpec& spec) {
  if (*spec.expects != '\0') return spec.expects;
  const ValueRange& r = spec.range;
  switch (spec.kind) {
    case ValueKind::kInteger:
    case ValueKind::kSize: {
      std::string what = spec.kind == ValueKind::kSize ? "a size" : "an integer";
      if (!r.has_high) return what.append(" of at least ").append(std::to_string(r.low));
      return what.append(" from ").append(std::to_string(r.low)).append(" to ").append(std::to_string(r.high));
    }
    case ValueKind::kReal:
      if (!r.has_high) {
        return std::string("a number ").append(r.low_open ? "above " : "of at least ").append(std::to_string(r.low));
      }
      return std::string("in ")
          .append(r.low_open ? "(" : "[")
          .append(std::to_string(r.low))
          .append(", ")
          .append(std::to_string(r.high))
          .append(r.high_open ? ")" : "]");
    case ValueKind::kChoice: {
      std::string list;
      for (size_t i = 0; i < spec.choices.size(); ++i) {
        if (i > 0) list += i + 1 == spec.choices.size() ? " or " : ", ";
        list += spec.choices[i].name;
      }
      return list;
    }
    default:
      return "";
  }
}

std::string ValueName(const OptionSpec& spec) {
  if (spec.kind != ValueKind::kChoice) return spec.value_name;
  // Each value once, by its name; aliases are accepted but not listed.
  std::string names;
  for (size_t i = 0; i < spec.choices.size(); ++i) {
    if (EnumValueName(spec.choices, spec.choices[i].value) != spec.choices[i].name) continue;
    if (!names.empty()) names += '|';
    names += spec.choices[i].name;
  }
  return names;
}

std::string RangeText(const OptionSpec& spec) {
  const ValueRange& r = spec.range;
  if (spec.kind == ValueKind::kReal) {
    if (!r.has_high)
      return std::string(spec.value_name).append(r.low_open ? " > " : " >= ").append(std::to_string(r.low));
    return std::to_string(r.low)
        .append(r.low_open ? " < " : " <= ")
        .append(spec.value_name)
        .append(r.high_open ? " < " : " <= ")
        .append(std::to_string(r.high));
  }
  if (spec.kind != ValueKind::kInteger) return "";
  if (!r.has_high) return std::string(">= ").append(std::to_string(r.low));
  if (r.high == static_cast<unsigned long long>(kIntMax)) return "";
  return std::to_string(r.low).append("..").append(r.high == kUint64Max ? "2^64-1" : std::to_string(r.high));
}

std::string DefaultText(const OptionSpec& spec) {
  if (spec.front_end) return *spec.default_text != '\0' ? spec.default_text : spec.unset_text;
  assert(*spec.default_text == '\0');  // a core option's default is the one of Options
  Options defaults;
  switch (spec.kind) {
    case ValueKind::kText:
      if (!spec.text(defaults)->empty()) return *spec.text(defaults);
      break;
    case ValueKind::kChoice:
      return EnumValueName(spec.choices, static_cast<int>(spec.get(defaults)));
    case ValueKind::kInteger:
    case ValueKind::kReal:
    case ValueKind::kSize: {
      const long double value = spec.get(defaults);
      if (value == 0 && spec.range.zero_is_unset) break;
      if (spec.kind == ValueKind::kInteger) return IntegerText(value);
      if (spec.kind == ValueKind::kReal) return Shortest(static_cast<double>(value));
      return SizeText(static_cast<uint64_t>(value));
    }
    default:
      break;
  }
  return spec.unset_text;
}

std::string HelpLine(const OptionSpec& spec) {
  const std::string range = RangeText(spec);
  if (range.empty()) return spec.help;
  return std::string(spec.help).append(", ").append(range);
}

std::string ShownValue(std::string_view text) {
  if (text.empty()) return "''";
  std::string shown;
  for (const char c : text) {
    if (shown.size() >= 40) return shown + "...";
    const auto u = static_cast<unsigned char>(c);
    shown.push_back(u < 0x20 || u == 0x7F ? '?' : c);
  }
  return shown;
}

Status ApplyOption(const OptionSpec& spec, std::string_view text, Options& options) {
  assert(!spec.front_end);
  const std::string shown = ShownValue(text);
  switch (spec.kind) {
    case ValueKind::kFlag:
    case ValueKind::kCount:
      spec.put(options, 1);
      return Status::Ok();
    case ValueKind::kText:
      *spec.text(options) = std::string(text);
      return Status::Ok();
    case ValueKind::kTextList:
    case ValueKind::kPositional:
      spec.list(options)->emplace_back(text);
      return Status::Ok();
    case ValueKind::kChoice: {
      const std::optional<int> value = FindEnumValue(spec.choices, text);
      if (!value) return MustBe(spec, Expectation(spec), shown);
      spec.put(options, *value);
      return Status::Ok();
    }
    case ValueKind::kInteger: {
      const std::optional<long double> value = ReadInteger(text);
      if (!value || !InRange(spec.range, *value)) return MustBe(spec, Expectation(spec), shown);
      spec.put(options, *value);
      return Status::Ok();
    }
    case ValueKind::kReal: {
      const std::optional<double> value = ReadReal(text);
      if (!value || !InRange(spec.range, *value)) return MustBe(spec, Expectation(spec), shown);
      spec.put(options, *value);
      return Status::Ok();
    }
    case ValueKind::kSize: {
      const std::optional<uint64_t> value = ParseSize(text);
      if (value && *value == 0 && *spec.zero_expects != '\0') return MustBe(spec, spec.zero_expects, shown);
      if (!value || !InRange(spec.range, static_cast<long double>(*value))) {
        return MustBe(spec, Expectation(spec), shown);
      }
      spec.put(options, static_cast<long double>(*value));
      return Status::Ok();
    }
  }
  return Status::Internal(std::string(spec.long_name).append(": unknown kind of value"));
}

Status CheckOptionRange(const OptionSpec& spec, const Options& options) {
  if (spec.get == nullptr) return Status::Ok();
  const long double value = spec.get(options);
  if (spec.range.zero_is_unset && value == 0) return Status::Ok();
  switch (spec.kind) {
    case ValueKind::kInteger:
    case ValueKind::kSize:
      if (value == 0 && *spec.zero_expects != '\0') return MustBe(spec, spec.zero_expects, "0");
      if (!InRange(spec.range, value)) return MustBe(spec, Expectation(spec), IntegerText(value));
      return Status::Ok();
    case ValueKind::kReal:
      if (!InRange(spec.range, value)) return MustBe(spec, Expectation(spec), Shortest(static_cast<double>(value)));
      return Status::Ok();
    case ValueKind::kChoice:
      if (EnumValueName(spec.choices, static_cast<int>(value))[0] == '?') {
        return MustBe(spec, Expectation(spec), IntegerText(value));
      }
      return Status::Ok();
    default:
      return Status::Ok();
  }
}

}  // namespace neardup
