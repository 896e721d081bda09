// The three standard file descriptors, made safe to rely on.
#pragma once

namespace neardup::cli {

// Opens /dev/null on each of fds 0, 1 and 2 that is closed (as coreutils
// does), so that a file neardup opens later never becomes "stderr" by
// accident: with `2>&-`, log lines would otherwise land in the -o file.
// Returns false if a closed fd could not be filled; the caller then exits
// with status 2 without writing anything. Call first thing in main.
bool EnsureStandardFds();

}  // namespace neardup::cli
