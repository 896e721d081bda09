// End to end: a `neardup stage filter` task run again, after a kill at any
// moment or after it finished, leaves exactly the folder one clean run
// leaves (paths, bytes, modes), for hard links, copies and filtered JSONL
// files alike; and a kill never loses a file a finished run had placed.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "e2e/run_neardup.h"
#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

const std::string kBin = ::neardup::testing::NeardupBinary();
namespace fs = std::filesystem;
using Args = std::vector<std::string>;

constexpr int kTasks = 3;

// Text files (every third one a copy of another, some near copies) in two
// folders, and JSONL files with copied lines; enough of them that placing
// takes a few milliseconds.
void MakeCorpus(const TempDir& dir) {
  for (int i = 0; i < 150; ++i) {
    auto words = RandomWords(60, static_cast<uint64_t>(i % 3 == 0 ? 5000 + i / 6 : 1000 + i));
    const std::string rel = std::string(i % 2 == 0 ? "text/a/t" : "text/b/t") + std::to_string(i) + ".txt";
    WriteFile(dir / rel, Join(words));
    if (i % 5 == 0) fs::permissions(dir / rel, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  }
  for (int f = 0; f < 12; ++f) {
    std::string text;
    for (int line = 0; line < 8; ++line) {
      const int i = f * 8 + line;
      auto words = RandomWords(50, static_cast<uint64_t>(i % 4 == 0 ? 77 : 3000 + i));
      text.append(R"({"id": "d)")
          .append(std::to_string(i))
          .append(R"(", "text": ")")
          .append(Join(words))
          .append("\"}\n");
    }
    WriteFile(dir / ("jsonl/p" + std::to_string(f) + ".jsonl"), text);
  }
}

// Every entry below `root` (hidden ones too): its type and permission bits,
// and a regular file's bytes.
std::map<std::string, std::string> Entries(const std::string& root) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0) continue;
    std::string value = std::to_string(st.st_mode);
    if (S_ISREG(st.st_mode)) value.append(" ").append(testing::ReadFile(it->path().string()));
    out[fs::relative(it->path(), root).string()] = value;
  }
  return out;
}

Args FilterArgs(int task, const Args& options, const std::string& kept, const std::string& work) {
  Args a = {kBin,         "stage", "filter", "--task", std::to_string(task), "--tasks", std::to_string(kTasks),
            "--kept-dir", kept};
  a.insert(a.end(), options.begin(), options.end());
  a.push_back(work);
  return a;
}

// Sign, bucket, verify and report over `input` with `options`.
void RunStagesBeforeFilter(const TempDir& dir, const std::string& work, const std::string& input, const Args& options) {
  for (const char* stage : {"sign", "bucket", "verify"}) {
    for (int t = 0; t < kTasks; ++t) {
      Args a = {"stage", stage, "--task", std::to_string(t), "--tasks", std::to_string(kTasks)};
      a.insert(a.end(), options.begin(), options.end());
      a.push_back(work);
      if (std::string(stage) == "sign") a.push_back(input);
      const RunResult r = RunNeardup(a, dir.path());
      ASSERT_EQ(r.exit_code, 0) << stage << r.err;
    }
  }
  Args a = {"stage", "report"};
  a.insert(a.end(), options.begin(), options.end());
  a.push_back(work);
  const RunResult r = RunNeardup(a, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

// Starts every filter task at once (their output thrown away), kills them
// all after `delay`, and waits for them.
void StartAndKill(const std::vector<Args>& tasks, std::chrono::microseconds delay) {
  std::vector<pid_t> pids;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  for (Args argv : tasks) {
    std::vector<char*> args;
    for (std::string& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ), 0);
    pids.push_back(pid);
  }
  posix_spawn_file_actions_destroy(&actions);
  std::this_thread::sleep_for(delay);
  for (const pid_t pid : pids) ::kill(pid, SIGKILL);
  for (const pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
}

struct Case {
  std::string input;  // "text" or "jsonl", the folder read
  Args options;       // the stages'
  Args filter;        // the filter tasks' besides
};

TEST(StageFilterRerunTest, KilledAtRandomMomentsAndRunAgainLeavesTheCleanFolder) {
  const std::vector<Case> cases = {
      {"text", {"--mode", "duplicates"}, {}},
      {"text", {"--mode", "duplicates"}, {"--kept-copy"}},
      {"jsonl", {"--input", "jsonl"}, {}},
  };
  std::mt19937 random(42);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input + " " + Join(c.filter));
    TempDir dir;
    MakeCorpus(dir);
    const std::string work = dir / "work";
    RunStagesBeforeFilter(dir, work, dir / c.input, c.options);
    Args options = c.options;
    options.insert(options.end(), c.filter.begin(), c.filter.end());
    // A clean run, timed.
    const std::string clean_dir = dir / "clean";
    const auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < kTasks; ++t) {
      const RunResult r = RunProcess(FilterArgs(t, options, clean_dir, work), dir.path());
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    const auto took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    const auto clean = Entries(clean_dir);
    ASSERT_GT(clean.size(), 10u);
    const std::string kept = dir / "kept";
    std::vector<Args> tasks;
    for (int t = 0; t < kTasks; ++t) tasks.push_back(FilterArgs(t, options, kept, work));
    std::uniform_int_distribution<int64_t> moment(0, took.count() / kTasks + 2000);
    for (int round = 0; round < 20; ++round) {
      SCOPED_TRACE("round " + std::to_string(round));
      StartAndKill(tasks, std::chrono::microseconds(moment(random)));
      if (round > 0) {  // DIR was whole: the kill lost no file, and changed none
        const auto after_kill = Entries(kept);
        for (const auto& [path, value] : clean) {
          auto it = after_kill.find(path);
          ASSERT_TRUE(it != after_kill.end()) << path << " lost";
          EXPECT_EQ(it->second, value) << path;
        }
      }
      for (int t = 0; t < kTasks; ++t) {
        const RunResult r = RunProcess(tasks[static_cast<size_t>(t)], dir.path());
        ASSERT_EQ(r.exit_code, 0) << r.err;
      }
      ASSERT_EQ(Entries(kept), clean);
    }
  }
}

// A filter task run twice over a finished folder, and a whole second round
// of tasks, changes nothing in it; nor does a run after the inputs' change
// times changed (chmod back and forth).
TEST(StageFilterRerunTest, RunTwiceLeavesTheSameFolder) {
  for (const bool copy : {false, true}) {
    SCOPED_TRACE(copy ? "--kept-copy" : "hard links");
    TempDir dir;
    MakeCorpus(dir);
    const std::string work = dir / "work";
    const Args stages = {"--mode", "duplicates"};
    RunStagesBeforeFilter(dir, work, dir / "text", stages);
    Args options = stages;
    if (copy) options.push_back("--kept-copy");
    const std::string kept = dir / "kept";
    for (int t = 0; t < kTasks; ++t) ASSERT_EQ(RunProcess(FilterArgs(t, options, kept, work), dir.path()).exit_code, 0);
    const auto first = Entries(kept);
    for (const auto& entry : fs::recursive_directory_iterator(dir / "text")) {
      if (!entry.is_regular_file()) continue;
      const fs::perms p = entry.status().permissions();
      fs::permissions(entry.path(), p | fs::perms::others_read);
      fs::permissions(entry.path(), p);
    }
    for (int again = 0; again < 2; ++again) {
      for (int t = kTasks - 1; t >= 0; --t) {
        const RunResult r = RunProcess(FilterArgs(t, options, kept, work), dir.path());
        ASSERT_EQ(r.exit_code, 0) << r.err;
      }
      EXPECT_EQ(Entries(kept), first);
    }
  }
}

// A file whose bytes changed after a run placed it is not written by a run
// again, and what the first run placed for it is gone: the folder is the
// one a clean run leaves now (which refuses the file, exit 2).
TEST(StageFilterRerunTest, FileChangedBeforeARunAgainIsNotLeftInTheFolder) {
  for (const bool copy : {false, true}) {
    SCOPED_TRACE(copy ? "--kept-copy" : "hard links");
    TempDir dir;
    MakeCorpus(dir);
    const std::string work = dir / "work";
    const Args stages = {"--mode", "duplicates"};
    RunStagesBeforeFilter(dir, work, dir / "text", stages);
    Args options = stages;
    if (copy) options.push_back("--kept-copy");
    const std::string kept = dir / "kept";
    for (int t = 0; t < kTasks; ++t) ASSERT_EQ(RunProcess(FilterArgs(t, options, kept, work), dir.path()).exit_code, 0);
    auto expected = Entries(kept);
    const std::string rel = "b/t1.txt";  // a unique text, kept
    const std::string input = dir / ("text/" + rel);
    ASSERT_EQ(expected.count(rel), 1u);
    expected.erase(rel);
    std::string text = testing::ReadFile(input);
    text[0] = text[0] == 'x' ? 'y' : 'x';
    WriteFile(input, text);
    int refused = 0;
    for (int t = 0; t < kTasks; ++t) {
      const RunResult r = RunProcess(FilterArgs(t, options, kept, work), dir.path());
      if (r.exit_code == 2) {
        ++refused;
        EXPECT_NE(r.err.find(input + ": changed"), std::string::npos) << r.err;
      } else {
        EXPECT_EQ(r.exit_code, 0) << r.err;
      }
    }
    EXPECT_EQ(refused, 1);
    EXPECT_EQ(Entries(kept), expected);
  }
}

}  // namespace
}  // namespace neardup
