// End to end: the pending marks of `scan --index --new` (docs/index.md, "--new
// delivers at least once"). A new file's documents stay new for --new until
// a --new run of the index's job (its PATHs and the options that decide what
// it reports) delivered them, that is wrote its whole output into a regular
// file. No other run clears them: a plain --index run, a --new run over a
// subfolder or with a higher -t, and a --new run whose output went into a
// pipe (which its reader may never read) or a device.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "e2e/run_neardup.h"
#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::ReadFile;
using testing::RunNeardup;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::With;
using testing::WriteFile;

const std::string kBin = ::neardup::testing::NeardupBinary();

std::string Text(uint64_t seed) { return Join(RandomWords(300, seed)); }

// Text(seed) with every `step`th word replaced: a near duplicate.
std::string Edited(uint64_t seed, size_t step) {
  auto w = RandomWords(300, seed);
  for (size_t i = 3; i < w.size(); i += step) w[i] = std::string("x").append(std::to_string(i));
  return Join(w);
}

// The pairs of a jsonl report, each "a\nb" with a < b.
std::set<std::string> PairsOf(const std::string& jsonl) {
  std::set<std::string> out;
  for (const std::string& line : testing::Lines(jsonl)) {
    const nlohmann::json p = nlohmann::json::parse(line, nullptr, false);
    if (!p.is_object()) continue;
    const std::string a = p["a"], b = p["b"];
    out.insert(a < b ? a + "\n" + b : b + "\n" + a);
  }
  return out;
}

// The pairs of a plain scan (no index) of `path` that involve `file`.
std::set<std::string> PairsWith(const TempDir& dir, const std::string& path, const std::string& file) {
  std::set<std::string> out;
  for (const std::string& p : PairsOf(RunNeardup({"scan", "-q", path}, dir.path()).out)) {
    if (p.starts_with(file + "\n") || p.ends_with("\n" + file)) out.insert(p);
  }
  return out;
}

// A corpus in dir/c with a subfolder c/sub, pairs in both and across them;
// then a --new run of the job (`--new -o FILE dir/c`) that delivers it all.
void MakeCorpusAndDeliverIt(const TempDir& dir) {
  for (int i = 0; i < 6; ++i)
    WriteFile(dir / std::string("c/old").append(std::to_string(i)), Text(100 + static_cast<uint64_t>(i)));
  WriteFile(dir / "c/sub/copy0", Text(100));
  WriteFile(dir / "c/sub/own", Text(200));
  const RunResult first =
      RunNeardup({"scan", "-q", "--index", dir / "ix.db", "--new", "-o", dir / "out.jsonl", dir / "c"}, dir.path());
  ASSERT_EQ(first.exit_code, 0) << first.err;
}

// The job's run: --new over dir/c, its output into a regular file. Returns
// its pairs, and its exit status in `exit_code`.
std::set<std::string> JobRun(const TempDir& dir, int* exit_code) {
  const RunResult r =
      RunNeardup({"scan", "-q", "--index", dir / "ix.db", "--new", "-o", dir / "out.jsonl", dir / "c"}, dir.path());
  *exit_code = r.exit_code;
  EXPECT_LE(r.exit_code, 1) << r.err;
  return PairsOf(ReadFile(dir / "out.jsonl"));
}

TEST(NewMarksTest, RunsOfOtherPathsOrOptionsLeaveTheMarksToTheIndexsJob) {
  TempDir dir;
  MakeCorpusAndDeliverIt(dir);
  // A new file in the subfolder, like a file outside it (old0) at J ~ 0.9,
  // and like one inside it (own) exactly.
  const std::string fresh = dir / "c/sub/fresh";
  WriteFile(fresh, Edited(100, 50));
  WriteFile(dir / "c/sub/fresh-copy", Text(200));
  const std::set<std::string> want = PairsWith(dir, dir / "c", fresh);
  ASSERT_GE(want.size(), 2u);  // old0 and copy0, outside and inside the subfolder

  // Runs that deliver other sets of pairs, each into a regular file.
  const std::string ix = dir / "ix.db", elsewhere = dir / "elsewhere.jsonl";
  const std::vector<std::vector<std::string>> others = {
      {"--index", ix, dir / "c/sub"},                                       // plain, a subfolder (signs fresh)
      {"--index", ix, "-t", "0.95", dir / "c"},                             // plain, a higher -t
      {"--index", ix, "--new", dir / "c/sub"},                              // --new, a subfolder
      {"--index", ix, "--new", "-t", "0.95", dir / "c"},                    // --new, a higher -t
      {"--index", ix, "--new", "--verify", "signature", dir / "c"},         // --new, another verification
      {"--index", ix, "--new", "--bands", "16", "--rows", "8", dir / "c"},  // --new, another banding
      {"--index", ix, "--new", "--mode", "clusters", dir / "c"},            // --new, another mode
  };
  for (std::vector<std::string> args : others) {
    args.insert(args.begin(), {"-o", elsewhere});
    const RunResult r = RunNeardup(With({"scan", "-q"}, args), dir.path());
    EXPECT_LE(r.exit_code, 1) << args.back() << ": " << r.err;
  }
  // A --new run of other options says so, once, on stderr.
  const RunResult told =
      RunNeardup({"scan", "--index", ix, "--new", "-t", "0.95", "-o", elsewhere, dir / "c"}, dir.path());
  EXPECT_NE(told.err.find("neardup: --new: this run's paths or options are not those of the index's --new runs (" +
                          (dir / "c") +
                          " -t 0.8 --verify exact --mode pairs): it leaves the pending marks to them; "
                          "give it its own --index FILE\n"),
            std::string::npos)
      << told.err;

  // The job's next run delivers every pair of the new file, then nothing.
  int exit_code = -1;
  const std::set<std::string> got = JobRun(dir, &exit_code);
  EXPECT_EQ(exit_code, 0);
  for (const std::string& p : want) EXPECT_EQ(got.count(p), 1u) << "never delivered: " << p;
  EXPECT_TRUE(JobRun(dir, &exit_code).empty());
  EXPECT_EQ(exit_code, 1);

  // Spelled another way, the job is the same.
  WriteFile(dir / "c/later", Edited(101, 50));
  const RunResult spelled =
      RunNeardup({"scan", "-q", "--index", ix, "--new", "-o", elsewhere, dir.path() + "//c/sub/../"}, dir.path());
  EXPECT_EQ(spelled.exit_code, 0) << spelled.err;
  EXPECT_TRUE(JobRun(dir, &exit_code).empty());
  EXPECT_EQ(exit_code, 1);
}

// Starts `argv` with stdout into a pipe; returns its pid and the pipe's
// reading end in *read_end (stderr to `err`).
pid_t SpawnIntoPipe(std::vector<std::string> argv, const std::string& err, int* read_end) {
  int fds[2] = {-1, -1};
  if (::pipe(fds) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  *read_end = fds[0];
  return pid;
}

TEST(NewMarksTest, AnOutputIntoAPipeOrADeviceIsNotDelivered) {
  TempDir dir;
  MakeCorpusAndDeliverIt(dir);
  for (int i = 0; i < 4; ++i)
    WriteFile(dir / std::string("c/fresh").append(std::to_string(i)), Edited(102, 90 + 5 * static_cast<size_t>(i)));
  std::set<std::string> want;
  for (int i = 0; i < 4; ++i) {
    for (const std::string& p : PairsWith(dir, dir / "c", dir / std::string("c/fresh").append(std::to_string(i))))
      want.insert(p);
  }
  ASSERT_GE(want.size(), 5u);
  const std::string ix = dir / "ix.db";

  // Into a pipe whose reader reads one line, after the run has ended: the
  // whole output fit in the pipe's buffer, and nearly all of it is lost.
  int read_end = -1;
  const pid_t pid = SpawnIntoPipe({kBin, "scan", "--index", ix, "--new", dir / "c"}, dir / "err.txt", &read_end);
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  char line[64];
  EXPECT_GT(::read(read_end, line, sizeof line), 0);
  ::close(read_end);
  EXPECT_NE(ReadFile(dir / "err.txt")
                .find("neardup: --new: the output went to a pipe, a terminal or a device, not to a regular file: no "
                      "one can say it was read, so the next --new run reports these documents again (give -o FILE, "
                      "or redirect stdout to a file, to deliver them)\n"),
            std::string::npos)
      << ReadFile(dir / "err.txt");
  RunResult info = RunNeardup({"index", "info", ix}, dir.path());
  EXPECT_NE(info.out.find("exit 0, not delivered"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("\n  --new: 4 files pending; marks are cleared only by a --new run over " + (dir / "c") +
                          " -t 0.8 --verify exact --mode pairs (and the same other options) that reported nothing, or "
                          "whose output went whole into a regular file (-o FILE, or stdout redirected to one), not "
                          "into a pipe or a terminal\n"),
            std::string::npos)
      << info.out;

  // Into a device: not delivered either.
  EXPECT_EQ(RunNeardup({"scan", "-q", "--index", ix, "--new", "-o", "/dev/null", dir / "c"}, dir.path()).exit_code, 0);

  // Into a regular file (stdout redirected to one: RunProcess's): delivered,
  // every pair; then nothing is pending.
  const RunResult next = RunNeardup({"scan", "-q", "--index", ix, "--new", dir / "c"}, dir.path());
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_EQ(PairsOf(next.out), want);
  const RunResult after = RunNeardup({"scan", "-q", "--index", ix, "--new", dir / "c"}, dir.path());
  EXPECT_EQ(after.exit_code, 1) << after.err;
  EXPECT_EQ(after.out, "");
  info = RunNeardup({"index", "info", ix}, dir.path());
  EXPECT_NE(info.out.find("\n  --new: 0 files pending;"), std::string::npos) << info.out;

  // A run that reports nothing delivers wherever its output goes: its reader
  // can miss nothing, so a new file like no other is no longer pending after
  // a run into a pipe, which says nothing about it.
  WriteFile(dir / "c/unlike", Text(300));
  const pid_t quiet = SpawnIntoPipe({kBin, "scan", "--index", ix, "--new", dir / "c"}, dir / "err.txt", &read_end);
  ASSERT_GT(quiet, 0);
  ASSERT_EQ(::waitpid(quiet, &status, 0), quiet);
  ::close(read_end);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_EQ(ReadFile(dir / "err.txt").find("--new: the output went"), std::string::npos) << ReadFile(dir / "err.txt");
  info = RunNeardup({"index", "info", ix}, dir.path());
  EXPECT_NE(info.out.find("\n  --new: 0 files pending;"), std::string::npos) << info.out;
}

// N from "neardup: N documents read again to verify" (-v); 0 when absent.
long ReadAgain(const std::string& err) {
  const size_t at = err.find(" read again to verify");
  if (at == std::string::npos) return 0;
  const size_t from = err.rfind("neardup: ", at);
  return from == std::string::npos ? -1 : std::stol(err.substr(from + 9));
}

// Pairs mode reads again only what it can report (#46): the nightly --new
// run over an unchanged corpus reads no document again, though its pairs and
// copies are still candidates; with one new near copy it reads that copy and
// the documents it pairs with, and reports what a plain scan reports of it.
// --against reads only the groups a reference document is in.
TEST(NewMarksTest, ARunReadsAgainOnlyWhatItCanReport) {
  TempDir dir;
  MakeCorpusAndDeliverIt(dir);
  WriteFile(dir / "c/near0", Edited(100, 100));
  int code = 0;
  JobRun(dir, &code);  // delivers c/near0's pairs too
  const std::vector<std::string> job = {"scan",  "-v", "--index",         dir / "ix.db",
                                        "--new", "-o", dir / "out.jsonl", dir / "c"};
  const RunResult unchanged = RunNeardup(job, dir.path());
  EXPECT_EQ(unchanged.exit_code, 1) << unchanged.err;
  EXPECT_EQ(ReadFile(dir / "out.jsonl"), "");
  EXPECT_NE(unchanged.err.find("1 exact copy; 1 candidate pair, 0 pairs reported"), std::string::npos) << unchanged.err;
  EXPECT_EQ(ReadAgain(unchanged.err), 0) << unchanged.err;

  WriteFile(dir / "c/near5", Edited(105, 100));
  const RunResult one_new = RunNeardup(job, dir.path());
  EXPECT_EQ(one_new.exit_code, 0) << one_new.err;
  const std::set<std::string> want = PairsWith(dir, dir / "c", dir / "c/near5");
  ASSERT_EQ(want.size(), 1u);
  EXPECT_EQ(PairsOf(ReadFile(dir / "out.jsonl")), want);
  EXPECT_EQ(ReadAgain(one_new.err), 2) << one_new.err;  // c/near5 and c/old5

  // Without --index: a plain scan reads every pair and group again (5
  // documents: c/old0 and its copy, c/near0, c/near5 and c/old5); against
  // c/near5 only its pair (2).
  const RunResult plain = RunNeardup({"scan", "-v", dir / "c"}, dir.path());
  EXPECT_EQ(ReadAgain(plain.err), 5) << plain.err;
  const RunResult against = RunNeardup({"scan", "-v", "--against", dir / "c/near5", dir / "c"}, dir.path());
  EXPECT_EQ(against.exit_code, 0) << against.err;
  EXPECT_EQ(PairsOf(against.out), want);
  EXPECT_EQ(ReadAgain(against.err), 2) << against.err;
}

}  // namespace
}  // namespace neardup
