// Logging for the front end: spdlog on stderr only, "neardup: message",
// each line at most kMaxLogLine bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace neardup::cli {

// The longest line neardup writes on stderr, "neardup: " included: a
// message that long (a list, a path of thousands of bytes) loses its middle.
inline constexpr size_t kMaxLogLine = 400;

// Replaces spdlog's default logger (which writes to stdout) with one on
// stderr. Call first thing in main. verbosity: -1 errors only, 0 warnings,
// 1 info, 2 debug.
void SetUpLogging(int verbosity);

// `line` if it has at most `max` bytes; else its start and its end, joined
// by " ... ", `max` bytes in all (the end usually says what to do). Cuts
// between UTF-8 sequences. REQUIRES: max >= 16.
std::string CapLine(std::string_view line, size_t max);

}  // namespace neardup::cli
