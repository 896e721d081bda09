// Exit codes of the neardup binary (grep's and ripgrep's convention).
#pragma once

namespace neardup::cli {

enum class ExitCode : int {
  kFound = 0,        // at least one pair, cluster or removable document reported
  kNothing = 1,      // nothing reported
  kError = 2,        // usage error, unreadable input (after writing the rest), fatal error
  kInterrupted = 130,  // SIGINT (128 + 2); SIGTERM gives 143
};

}  // namespace neardup::cli
