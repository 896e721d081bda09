// The two commands of the front end: scan and params.
#pragma once

#include <ostream>

#include "cli/cli_options.h"
#include "cli/exit_code.h"

namespace neardup::cli {

// Runs a scan and writes its output; logs problems and the summary on stderr.
ExitCode RunScan(const CliOptions& options);

// Prints the banding, its approximate threshold and the S-curve table.
ExitCode RunParams(const Options& options, std::ostream& out);

}  // namespace neardup::cli
