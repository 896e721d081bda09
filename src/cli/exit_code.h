// Exit codes of the neardup binary (grep's and ripgrep's convention).
//
// A run ended by signal N exits with 128 + N straight from the signal
// handler (signals.h), never through this enum.
#pragma once

namespace neardup::cli {

enum class ExitCode : int {
  kFound = 0,    // at least one pair, cluster or removable document reported
  kNothing = 1,  // nothing reported
  kError = 2,    // usage error, unreadable input (after writing the rest), fatal error
};

}  // namespace neardup::cli
