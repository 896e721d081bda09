// The commands of the front end: scan, params, completions and manpage.
#pragma once

#include <ostream>
#include <string>

#include "cli/cli_options.h"
#include "cli/exit_code.h"

namespace neardup::cli {

// Runs a scan and writes its output; logs problems and the summary on stderr.
ExitCode RunScan(const CliOptions& options);

// Prints the banding, its approximate threshold and the S-curve table.
ExitCode RunParams(const Options& options, std::ostream& out);

// Prints the completion script for `shell` (bash, zsh or fish; ParseArgs
// accepts no other).
ExitCode RunCompletions(const std::string& shell, std::ostream& out);

// Prints the man page (roff).
ExitCode RunManPage(std::ostream& out);

}  // namespace neardup::cli
