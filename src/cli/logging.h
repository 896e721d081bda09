// Logging for the front end: spdlog on stderr only, "neardup: message".
#pragma once

#include <string>

namespace neardup::cli {

// Replaces spdlog's default logger (which writes to stdout) with one on
// stderr. Call first thing in main. verbosity: -1 errors only, 0 warnings,
// 1 info, 2 debug.
void SetUpLogging(int verbosity);

}  // namespace neardup::cli
