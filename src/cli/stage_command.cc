#include "cli/stage_command.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/output.h"
#include "neardup/quote.h"
#include "neardup/stages.h"

namespace neardup::cli {

namespace {

ExitCode Finish(const char* stage, const CliOptions& cli, const Result<TaskRun>& ran) {
  if (!ran.ok()) {
    spdlog::error("{}", ran.status().message());
    return ExitCode::kError;
  }
  spdlog::info("{} task {} of {}: {}", stage, cli.task, cli.tasks,
               *ran == TaskRun::kAlreadyDone ? "done before, nothing to do" : "done");
  return ExitCode::kFound;
}

ExitCode RunSign(const CliOptions& cli) {
  Options options = cli.scan;
  if (Status s = ReadPathLists(cli, &options.listed_paths); !s.ok()) {
    spdlog::error("{}", s.message());
    return ExitCode::kError;
  }
  std::vector<std::string> skipped;  // named with -v, by task 0
  const Result<TaskRun> ran = RunSignTask(options, cli.work, {.task = cli.task, .tasks = cli.tasks}, {}, &skipped);
  for (const std::string& s : skipped) spdlog::info("skipped {}", s);
  return Finish("sign", cli, ran);
}

ExitCode RunBucket(const CliOptions& cli) {
  return Finish("bucket", cli, RunBucketTask(cli.scan, cli.work, {.task = cli.task, .tasks = cli.tasks}, {}));
}

// With --exact, -v says how many pairs and documents the task verified.
ExitCode RunVerify(const CliOptions& cli) {
  VerifyTally tally;
  const Result<TaskRun> ran = RunVerifyTask(cli.scan, cli.work, {.task = cli.task, .tasks = cli.tasks}, {}, &tally);
  if (ran.ok() && *ran == TaskRun::kRan && tally.candidates + tally.ruled_out + tally.reread > 0) {
    spdlog::info("verify task {} of {}: {}, {} ruled out by their bitmaps, {} read again", cli.task, cli.tasks,
                 Counted(tally.candidates, "candidate pair"), tally.ruled_out, Counted(tally.reread, "document"));
  }
  return Finish("verify", cli, ran);
}

ExitCode RunReport(const CliOptions& cli) {
  if (Status s = CheckOutputTarget(cli.scan, cli.output); !s.ok()) {
    spdlog::error("{}", s.message());
    return ExitCode::kError;
  }
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

// Each file not written is a warning; any makes the exit status 2.
ExitCode RunFilter(const CliOptions& cli) {
  Result<FilterOutcome> ran = RunFilterTask(cli.scan, cli.work, {.task = cli.task, .tasks = cli.tasks}, {});
  if (!ran.ok()) {
    spdlog::error("{}", ran.status().message());
    return ExitCode::kError;
  }
  for (const Status& problem : ran->problems) spdlog::warn("{}", problem.message());
  if (!ran->problems.empty() && cli.verbosity < 0) {
    // -q shows no warning: still one line says why the exit status is 2.
    const size_t more = ran->problems.size() - 1;
    spdlog::error("{}{}", ran->problems.front().message(),
                  more > 0 ? " (and " + Counted(more, "more problem") + ": drop -q to see them)" : std::string());
  }
  if (!cli.scan.kept_dir.empty()) {
    const KeptStats& k = ran->stats;
    spdlog::info("filter task {} of {}: {}, {} written to {} ({} dropped, {} not written)", cli.task, cli.tasks,
                 Counted(k.files, "file"), Counted(k.documents, "document"), ShellQuoted(cli.scan.kept_dir), k.dropped,
                 Counted(k.failed, "file"));
  }
  if (!cli.scan.annotate_dir.empty()) {
    const KeptStats& a = ran->annotated;
    spdlog::info("filter task {} of {}: {}, {} annotated in {} ({} not written)", cli.task, cli.tasks,
                 Counted(a.files, "file"), Counted(a.documents, "document"), ShellQuoted(cli.scan.annotate_dir),
                 Counted(a.failed, "file"));
  }
  return ran->problems.empty() ? ExitCode::kFound : ExitCode::kError;
}

}  // namespace

ExitCode RunStage(const CliOptions& cli) {
  switch (cli.command) {
    case Command::kStageSign:
      return RunSign(cli);
    case Command::kStageBucket:
      return RunBucket(cli);
    case Command::kStageVerify:
      return RunVerify(cli);
    case Command::kStageFilter:
      return RunFilter(cli);
    default:
      return RunReport(cli);
  }
}

}  // namespace neardup::cli
