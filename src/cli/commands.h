// The commands of the front end: scan, params, explain, index info|check, completions and
// manpage (the stage commands are in stage_command.h).
#pragma once

#include <ostream>
#include <string>

#include "cli/cli_options.h"
#include "cli/exit_code.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "neardup/report.h"

namespace neardup::cli {

// Runs a scan and writes its output; logs problems and the summary on stderr.
ExitCode RunScan(const CliOptions& options);

// `neardup index info FILE`: parameters, documents, file size, last runs.
ExitCode RunIndexInfo(const std::string& file, std::ostream& out);

// `neardup index check FILE`: exit 0 when sound; else each problem on stderr, 2.
ExitCode RunIndexCheck(const std::string& file, std::ostream& out);

// Appends the paths of the --files-from and --files0-from lists of `cli` to
// *out. InvalidArgument or IoError for a list that cannot be read.
Status ReadPathLists(const CliOptions& cli, std::vector<std::string>* out);

// The end of a scan or of a stage report: logs the problems and notices,
// writes the report to `out` in cli.format, commits it, prints the summary
// and returns the exit status (an error result is logged, kError). The
// summary's time is the whole run's, from the start of the process to the
// output written. `progress`, when given, shows the writing.
// With --index, an output delivered (whole in a regular file, or empty) does
// not return: the process ends here, through std::exit with the exit status,
// after the run's exit is recorded in the index with signals blocked, so
// that no signal can make the index count as delivered an output whose exit
// status says it failed. With `result_key` (ResultKeyOf, index.h; `out`
// capturing since before the run), the output of a run without problems is
// kept in the index under it, before the exit is recorded; a report that
// gives a kept result again (Report::index.given_again) writes its bytes.
ExitCode WriteResults(const CliOptions& cli, const Options& options, const Result<Report>& result, Output& out,
                      ProgressLine* progress = nullptr, const std::string& result_key = {});

// Prints the banding, its approximate threshold and the S-curve table.
ExitCode RunParams(const Options& options, std::ostream& out);

// Prints the completion script for `shell` (bash, zsh or fish; ParseArgs
// accepts no other).
ExitCode RunCompletions(const std::string& shell, std::ostream& out);

// Prints the man page (roff).
ExitCode RunManPage(std::ostream& out);

}  // namespace neardup::cli
