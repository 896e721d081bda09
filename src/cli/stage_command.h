// The stage commands: `neardup stage sign|bucket|verify|report|filter WORK`, one task of
// a stage over a shared work folder (see neardup/stages.h and the README's
// "Running on a cluster").
//
// sign, bucket and verify exit 0 when their task is done (also when it was done
// before: a no-op), 2 on an error; report writes what scan writes, with the
// same exit status, and exits 2 when tasks are missing (listed by number);
// filter exits 0 when every file of its shard was written, 2 when one was
// not (each a warning) or on an error.
#pragma once

#include "cli/cli_options.h"
#include "cli/exit_code.h"

namespace neardup::cli {

// REQUIRES: options.command is kStageSign, kStageBucket, kStageVerify, kStageReport or
// kStageFilter.
ExitCode RunStage(const CliOptions& options);

}  // namespace neardup::cli
