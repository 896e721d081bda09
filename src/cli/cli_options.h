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
#include "neardup/options.h"
#include "neardup/writers.h"

namespace neardup::cli {

enum class Command { kScan, kParams, kIndexInfo, kIndexCheck };

struct CliOptions {
  Command command = Command::kScan;
  Options scan;                                // the core's options
  OutputFormat format = OutputFormat::kJsonl;  // -f
  std::string output;                          // -o; empty = stdout
  int verbosity = 0;                           // -1 quiet, 0 warnings, 1 info, 2 debug
  std::optional<bool> progress;                // --progress / --no-progress
  char terminator = '\n';                      // -0: '\0' in duplicates mode
  std::vector<std::string> files_from;         // --files-from (one path a line)
  std::vector<std::string> files0_from;        // --files0-from (NUL-separated)
  std::string index_file;                      // index info|check FILE
};

struct ParsedArgs {
  CliOptions options;
  std::optional<ExitCode> exit_now;  // set for --help, --version and usage errors
  // Options that are accepted but have no effect (--keep in pairs mode...),
  // one line each without the "neardup: " prefix; main logs them as warnings.
  std::vector<std::string> warnings;
};

ParsedArgs ParseArgs(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// "10M" -> 10485760. Suffixes K, M, G, T (powers of 1024), optional "B"/"iB".
std::optional<unsigned long long> ParseSize(const std::string& text);

}  // namespace neardup::cli
