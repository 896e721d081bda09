#include "cli/stage_command.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "cli/commands.h"
#include "cli/output.h"
#include "neardup/stages.h"

namespace neardup::cli {

namespace {

ExitCode Finish(const char* stage, const CliOptions& cli, const Status& s, bool already_done) {
  if (!s.ok()) {
    spdlog::error("{}", s.message());
    return ExitCode::kError;
  }
  spdlog::info("{} task {} of {}: {}", stage, cli.task, cli.tasks,
               already_done ? "done before, nothing to do" : "done");
  return ExitCode::kFound;
}

ExitCode RunSign(const CliOptions& cli) {
  Options options = cli.scan;
  if (Status s = ReadPathLists(cli, &options.listed_paths); !s.ok()) {
    spdlog::error("{}", s.message());
    return ExitCode::kError;
  }
  bool done = false;
  const Status s = RunSignTask(options, cli.work, {.task = cli.task, .tasks = cli.tasks}, {}, &done);
  return Finish("sign", cli, s, done);
}

ExitCode RunBucket(const CliOptions& cli) {
  bool done = false;
  const Status s = RunBucketTask(cli.scan, cli.work, {.task = cli.task, .tasks = cli.tasks}, &done);
  return Finish("bucket", cli, s, done);
}

ExitCode RunReport(const CliOptions& cli) {
  Result<std::unique_ptr<Output>> out = Output::Open(cli.output);
  if (!out.ok()) {
    spdlog::error("{}", out.status().message());
    return ExitCode::kError;
  }
  const auto start = std::chrono::steady_clock::now();
  Result<Report> result = RunReportTask(cli.scan, cli.work, {});
  if (result.ok()) {
    result->stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return WriteResults(cli, cli.scan, result, **out);
}

}  // namespace

ExitCode RunStage(const CliOptions& cli) {
  switch (cli.command) {
    case Command::kStageSign: return RunSign(cli);
    case Command::kStageBucket: return RunBucket(cli);
    default: return RunReport(cli);
  }
}

}  // namespace neardup::cli
