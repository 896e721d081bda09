// neardup: parse -> set up logging -> run -> exit code.
#include <spdlog/spdlog.h>

#include <exception>
#include <iostream>
#include <new>

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/explain_command.h"
#include "cli/logging.h"
#include "cli/signals.h"
#include "cli/stage_command.h"
#include "cli/std_fds.h"

int main(int argc, char** argv) {
  using neardup::cli::ExitCode;
  // Before anything opens a file: a closed 0, 1 or 2 must not be reused.
  if (!neardup::cli::EnsureStandardFds()) return static_cast<int>(ExitCode::kError);
  neardup::cli::InstallSignalHandlers();
  neardup::cli::SetUpLogging(0);
  try {
    neardup::cli::ParsedArgs args = neardup::cli::ParseArgs(argc, argv, std::cout, std::cerr);
    if (args.exit_now) {
      std::cout.flush();
      return static_cast<int>(*args.exit_now);
    }
    neardup::cli::SetUpLogging(args.options.verbosity);
    for (const std::string& warning : args.warnings) spdlog::warn("{}", warning);
    ExitCode code = ExitCode::kFound;
    switch (args.options.command) {
      case neardup::cli::Command::kScan:
        return static_cast<int>(neardup::cli::RunScan(args.options));
      case neardup::cli::Command::kParams:
        code = neardup::cli::RunParams(args.options.scan, std::cout);
        break;
      case neardup::cli::Command::kExplain:
        code = neardup::cli::RunExplain(args.options, std::cout);
        break;
      case neardup::cli::Command::kIndex:
        code = args.options.index_action == "info" ? neardup::cli::RunIndexInfo(args.options.index_file, std::cout)
                                                   : neardup::cli::RunIndexCheck(args.options.index_file, std::cout);
        break;
      case neardup::cli::Command::kCompletions:
        code = neardup::cli::RunCompletions(args.options.shell, std::cout);
        break;
      case neardup::cli::Command::kManPage:
        code = neardup::cli::RunManPage(std::cout);
        break;
      case neardup::cli::Command::kStage:  // never parsed: stage requires sign, bucket, verify, report or filter
      case neardup::cli::Command::kStageSign:
      case neardup::cli::Command::kStageBucket:
      case neardup::cli::Command::kStageVerify:
      case neardup::cli::Command::kStageReport:
      case neardup::cli::Command::kStageFilter:
        return static_cast<int>(neardup::cli::RunStage(args.options));
    }
    std::cout.flush();
    return static_cast<int>(code);
  } catch (const std::bad_alloc&) {
    spdlog::error("out of memory");
  } catch (const std::exception& e) {
    spdlog::error("internal error: {}", e.what());
  }
  return static_cast<int>(ExitCode::kError);
}
