// ParseArgs: argv -> CliOptions, or the exit code of --help, --version or a
// usage error. No side effects besides writing help or errors to the given
// streams; reading --files-from lists and everything else happens in main.
// A usage error is one short line on `err`, naming the option and the value
// as typed: "neardup: --threshold must be in (0, 1], got -0.5". Enum options
// accept their names only (any case), never an index.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/exit_code.h"
#include "neardup/option_table.h"
#include "neardup/options.h"

namespace neardup::cli {

// kStage is the group `neardup stage`; a parsed command line names one of
// its five tasks (kStageSign, kStageBucket, kStageVerify, kStageReport, kStageFilter),
// never kStage.
enum class Command {
  kScan,
  kParams,
  kExplain,
  kIndex,
  kStage,
  kCompletions,
  kManPage,
  kStageSign,
  kStageBucket,
  kStageVerify,
  kStageReport,
  kStageFilter
};

// The commands of neardup, in the order of `neardup --help`: the source of
// the subcommands, of the completion scripts and of the man page.
struct CommandInfo {
  Command command;
  const char* name;      // "scan"
  const char* operands;  // synopsis after [OPTIONS]: "PATH...", or ""
  const char* summary;   // one line
  unsigned options;      // the option table's commands bit (kScanCommand...), 0 for none
};
inline constexpr CommandInfo kCommands[] = {
    {Command::kScan, "scan", "PATH...", "Find near-duplicate documents under PATH...", kScanCommand},
    {Command::kParams, "params", "", "Show the LSH banding and its S-curve for a threshold", kParamsCommand},
    {Command::kExplain, "explain", "A B",
     "Explain why scan does or does not report a pair (--input jsonl: FILE ID_A ID_B)", kExplainCommand},
    {Command::kIndex, "index", "info|check FILE", "Inspect an index written by scan --index (info) or check it (check)",
     0},
    {Command::kStage, "stage", "sign|bucket|verify|report|filter [OPTIONS] WORK [PATH...]",
     "Run one task of a stage over a shared work folder (sign, bucket, verify, report, filter)",
     kStageCommand | kStageFilterCommand},
    {Command::kCompletions, "completions", "bash|zsh|fish", "Print a shell completion script", 0},
    {Command::kManPage, "manpage", "", "Print the man page (roff)", 0},
};

// The tasks of `neardup stage`, each with the options of scan. sign, bucket,
// verify and filter also take --task I and --tasks N (kStageTaskOptions); filter
// alone takes --kept-dir (kStageFilterCommand).
struct StageInfo {
  Command command;
  const char* name;      // "sign"
  const char* operands;  // "WORK PATH..."
  const char* summary;
};
inline constexpr StageInfo kStageCommands[] = {
    {Command::kStageSign, "sign", "WORK PATH...", "Sign task I of N: a share of PATH... into WORK/sign"},
    {Command::kStageBucket, "bucket", "WORK", "Bucket task J of M: the candidate pairs of a share of the bands"},
    {Command::kStageVerify, "verify", "WORK",
     "Verify task K of V: a share of the candidate pairs, scored from their signatures"},
    {Command::kStageReport, "report", "WORK", "Report the verified pairs in WORK: what scan writes"},
    {Command::kStageFilter, "filter", "WORK",
     "Filter task I of N (one per sign task), after the report: sign shard I's kept documents into --kept-dir DIR"},
};
struct StageTaskOption {
  const char* name;
  const char* value_name;
  const char* help;
};
inline constexpr StageTaskOption kStageTaskOptions[] = {
    {"--task", "I", "This task's number, from 0 [$SLURM_ARRAY_TASK_ID]"},
    {"--tasks", "N", "The number of tasks [$SLURM_ARRAY_TASK_COUNT]"},
};

// An example of `neardup scan --help` and of the man page.
struct Example {
  const char* command;
  const char* what;
};
inline constexpr Example kScanExamples[] = {
    {"neardup scan docs/", "pairs of near-duplicate files under docs/, as jsonl"},
    {"neardup scan --mode duplicates -0 mail/ | xargs -0 -r rm --",
     "remove all but one document of each cluster: each removed one is proven (exact Jaccard >= -t) like the one kept"},
    {"neardup scan --input jsonl --text-key body -f csv corpus.jsonl.zst > pairs.csv",
     "each line of a compressed JSONL file is a document"},
    {"neardup scan --input jsonl --kept-dir dedup/ shards/ > clusters.jsonl",
     "also write the shards without their near copies to dedup/, compressed as they came"},
};

inline constexpr const char* kSummary = "find near-duplicate text documents (shingling, MinHash, LSH)";
inline constexpr const char* kExitStatus = "Exit status: 0 something reported, 1 nothing reported, 2 error.";

struct CliOptions {
  Command command = Command::kScan;
  Options scan;                                // the core's options
  OutputFormat format = OutputFormat::kJsonl;  // -f
  std::string output;                          // -o; empty = stdout
  ColorWhen color = ColorWhen::kAuto;          // explain --color
  int verbosity = 0;                           // -1 quiet, 0 warnings, 1 info, 2 debug
  std::optional<bool> progress;                // --progress / --no-progress
  char terminator = '\n';                      // -0: '\0' in duplicates mode
  std::vector<std::string> files_from;         // --files-from (one path a line)
  std::vector<std::string> files0_from;        // --files0-from (NUL-separated)
  std::string shell;                           // completions: bash, zsh or fish
  // explain: A B (text input) or FILE ID_A ID_B (--input jsonl); -f json.
  std::vector<std::string> explain_args;
  std::string index_action;  // index: info or check
  std::string index_file;    // index: FILE
  std::string work;          // stage commands: the work folder
  uint32_t task = 0;         // stage sign, bucket, filter: --task (or SLURM_ARRAY_TASK_ID)
  uint32_t tasks = 0;        // --tasks (or SLURM_ARRAY_TASK_COUNT)

  bool operator==(const CliOptions&) const = default;
};

struct ParsedArgs {
  CliOptions options;
  std::optional<ExitCode> exit_now;  // set for --help, --version and usage errors
  // Options that are accepted but have no effect (--keep in pairs mode...),
  // one line each without the "neardup: " prefix; main logs them as warnings.
  std::vector<std::string> warnings;
};

// The options and their help come from the option table
// (neardup/option_table.h); `neardup scan --help` lists them by its groups.
// `neardup stage sign|bucket|verify|report|filter WORK` take scan's options too;
// --task and --tasks (sign, bucket, filter) default to the environment's
// SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT, read here.
ParsedArgs ParseArgs(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace neardup::cli
