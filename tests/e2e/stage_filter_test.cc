// End to end: `neardup stage filter` writes, over N tasks, the folder that
// `neardup scan --kept-dir` writes with the same options, byte for byte; it
// refuses what scan refuses, a missing or damaged list, and writes no file
// whose input changed since it was signed.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "compress_util.h"
#include "e2e/kept_modes.h"
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
using testing::With;
using testing::WriteFile;

const std::string kBin = ::neardup::testing::NeardupBinary();
namespace fs = std::filesystem;
using Args = std::vector<std::string>;

// JSONL files (`ext`: "", ".gz") with near copies across and within files,
// repeated and missing ids, a line that is not a document and a last line
// without a newline; or (`ext` "text") a folder of text files like it.
void MakeCorpus(const TempDir& dir, const std::string& ext) {
  for (int f = 0; f < 5; ++f) {
    std::string text;
    for (int line = 0; line < 10; ++line) {
      const int i = f * 10 + line;
      auto words = RandomWords(200, static_cast<uint64_t>(i % 4 == 0 ? 7 + i % 3 : 1000 + i));
      words[static_cast<size_t>(i) % words.size()] = std::string("x").append(std::to_string(i));
      if (ext == "text") {
        std::string rel = "in/d";
        rel.append(std::to_string(f)).append("/t").append(std::to_string(line)).append(".txt");
        WriteFile(dir / rel, Join(words));
        continue;
      }
      if (f == 2 && line == 5) text += "{not json\n";
      const std::string id = i % 7 == 0 ? "shared" : "doc" + std::to_string(i);
      text.append(R"({"id": ")").append(id).append(R"(", "text": ")").append(Join(words)).append("\"}");
      if (line < 9 || f != 4) text.append("\n");
    }
    if (ext == "text") continue;
    std::string rel = f < 2 ? "in/a/p" : "in/b/p";
    rel.append(std::to_string(f)).append(".jsonl").append(ext);
    WriteFile(dir / rel, ext == ".gz" ? testing::Gzip(text) : text);
  }
}

// Every file below `root`, by its path below it, with its bytes.
std::map<std::string, std::string> Tree(const std::string& root) { return testing::FileTree(root); }

// Sign (N tasks), bucket (2), report, as stage_local.sh runs them; the
// report's result.
RunResult SignBucketReport(const TempDir& dir, const std::string& work, int n, const Args& options) {
  for (int i = 0; i < n; ++i) {
    Args a = {"--task", std::to_string(i), "--tasks", std::to_string(n)};
    a.insert(a.end(), options.begin(), options.end());
    a.insert(a.end(), {work, dir / "in"});
    EXPECT_EQ(RunNeardup(With({"stage", "sign"}, a), dir.path()).exit_code, 0);
  }
  for (int j = 0; j < 2; ++j) {
    Args a = {"--task", std::to_string(j), "--tasks", "2"};
    a.insert(a.end(), options.begin(), options.end());
    a.push_back(work);
    EXPECT_EQ(RunNeardup(With({"stage", "bucket"}, a), dir.path()).exit_code, 0);
  }
  for (int k = 0; k < 2; ++k) {
    Args a = {"--task", std::to_string(k), "--tasks", "2"};
    a.insert(a.end(), options.begin(), options.end());
    a.push_back(work);
    EXPECT_EQ(RunNeardup(With({"stage", "verify"}, a), dir.path()).exit_code, 0);
  }
  Args a = options;
  a.push_back(work);
  return RunNeardup(With({"stage", "report"}, a), dir.path());
}

RunResult Filter(const TempDir& dir, const std::string& work, int task, int n, const Args& options,
                 const std::string& kept) {
  Args a = {"--task", std::to_string(task), "--tasks", std::to_string(n), "--kept-dir", kept};
  a.insert(a.end(), options.begin(), options.end());
  a.push_back(work);
  return RunNeardup(With({"stage", "filter"}, a), dir.path());
}

// scan --kept-dir's folder, checked to have left documents out.
std::map<std::string, std::string> ScanFolder(const TempDir& dir, const Args& options, const std::string& kept) {
  Args argv = {"scan", "--kept-dir", kept};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back(dir / "in");
  const RunResult r = RunNeardup(argv, dir.path());
  EXPECT_LE(r.exit_code, 2) << r.err;
  std::map<std::string, std::string> tree = Tree(kept);
  EXPECT_FALSE(tree.empty());
  return tree;
}

struct Case {
  std::string ext;
  Args options;
};

TEST(StageFilterTest, FolderIsScansForOneAndThreeTasks) {
  const std::vector<Case> cases = {
      {"", {"--input", "jsonl", "--mode", "duplicates"}},
      {"", {"--input", "jsonl", "--exact", "--keep", "longest", "--mode", "pairs"}},
      {".gz", {"--input", "jsonl", "--mode", "clusters", "--cluster-by", "connected"}},
      {"text", {"--mode", "duplicates", "--keep", "shortest"}},
      {"text", {"--exact", "--kept-copy"}},
  };
  for (const Case& c : cases) {
    TempDir dir;
    MakeCorpus(dir, c.ext);
    Args scan_options = c.options;
    Args stage_options;  // --kept-copy goes to filter only
    for (const std::string& o : c.options) {
      if (o != "--kept-copy") stage_options.push_back(o);
    }
    const auto want = ScanFolder(dir, scan_options, dir / "scan.kept");
    // Something was left out: a folder equal to the inputs would prove nothing.
    EXPECT_NE(want, Tree(dir / "in")) << c.ext;
    for (const int n : {1, 3}) {
      SCOPED_TRACE(c.ext + " " + Join(c.options) + " N=" + std::to_string(n));
      const std::string work = dir / ("work" + std::to_string(n));
      const std::string kept = dir / ("stage" + std::to_string(n) + ".kept");
      const RunResult report = SignBucketReport(dir, work, n, stage_options);
      EXPECT_LE(report.exit_code, 2) << report.err;
      for (int i = 0; i < n; ++i) {
        const RunResult r = Filter(dir, work, i, n, c.options, kept);
        EXPECT_EQ(r.exit_code, 0) << r.err;
      }
      EXPECT_EQ(Tree(kept), want);
      testing::ExpectNoWiderModes(kept, {dir / "in"}, true);
    }
  }
}

TEST(StageFilterTest, StageLocalScriptWritesScansFolder) {
  for (const std::string ext : {"", ".gz", "text"}) {
    SCOPED_TRACE(ext);
    TempDir dir;
    MakeCorpus(dir, ext);
    Args options = {"--mode", "duplicates", "--exact"};
    if (ext != "text") options.insert(options.end(), {"--input", "jsonl"});
    const auto want = ScanFolder(dir, options, dir / "scan.kept");
    Args argv = {"/usr/bin/env", "NEARDUP_BIN=" + kBin,
                 "bash",         std::string(::neardup::testing::SourceDir()) + "/scripts/stage_local.sh",
                 "-n",           "3",
                 "-m",           "2",
                 dir / "work"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--kept-dir", dir / "stage.kept", "--", dir / "in"});
    const RunResult r = RunProcess(argv, dir.path());
    EXPECT_LE(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.find("error"), std::string::npos) << r.err;
    EXPECT_EQ(Tree(dir / "stage.kept"), want);
    testing::ExpectNoWiderModes(dir / "stage.kept", {dir / "in"}, true);
    // Run again over the same WORK: DIR, begun by its filter tasks, is accepted and rewritten the same
    // (text files too: the change time their hard links changed is no change).
    const RunResult again = RunProcess(argv, dir.path());
    EXPECT_EQ(again.exit_code, r.exit_code) << again.err;
    EXPECT_EQ(Tree(dir / "stage.kept"), want);
  }
}

TEST(StageFilterTest, FileChangedSinceSignedIsNotWritten) {
  TempDir dir;
  MakeCorpus(dir, "");
  const Args options = {"--input", "jsonl", "--mode", "duplicates"};
  const auto want = ScanFolder(dir, options, dir / "scan.kept");
  const std::string work = dir / "work";
  SignBucketReport(dir, work, 3, options);
  // p4.jsonl is the last file: shard 2's. Its content changes, its size not.
  const std::string changed = dir / "in/b/p4.jsonl";
  std::string text = testing::ReadFile(changed);
  text[text.find("\"text\": \"") + 9] ^= 1;
  WriteFile(changed, text);
  for (int i = 0; i < 3; ++i) {
    const RunResult r = Filter(dir, work, i, 3, options, dir / "kept");
    EXPECT_EQ(r.exit_code, i == 2 ? 2 : 0) << i << r.err;
    if (i == 2) {
      EXPECT_NE(r.err.find(changed + ": changed"), std::string::npos) << r.err;
    }
  }
  std::map<std::string, std::string> got = Tree(dir / "kept");  // no temporary either
  auto expected = want;
  expected.erase("b/p4.jsonl");
  EXPECT_EQ(got, expected);
}

// Metadata is not content for a JSONL file the sign tasks split either: its
// change time changed (chmod) since it was signed, its ranges' bytes hash as
// each shard's sign task recorded, and the task of its first range writes it.
TEST(StageFilterTest, SplitFileWhoseChangeTimeChangedIsWritten) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 600; ++i) {  // over 3 * kMinSplitBytes: split among the 3 sign tasks
    auto words = RandomWords(100, static_cast<uint64_t>(i % 5 == 0 ? 3 : 400 + i));
    text.append(R"({"id": "d)").append(std::to_string(i)).append(R"(", "text": ")").append(Join(words)).append("\"}\n");
  }
  WriteFile(dir / "in/one.jsonl", text);
  const Args options = {"--input", "jsonl", "--mode", "duplicates"};
  const auto want = ScanFolder(dir, options, dir / "scan.kept");
  const std::string work = dir / "work";
  SignBucketReport(dir, work, 3, options);
  for (const char* table : {"/sign/0.table", "/sign/1.table", "/sign/2.table"}) {
    ASSERT_GT(fs::file_size(work + table), 10000u) << table;  // each shard holds a range of it
  }
  const fs::path input = dir / "in/one.jsonl";
  const fs::perms p = fs::status(input).permissions();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a ctime of its own
  fs::permissions(input, p ^ fs::perms::others_read);
  fs::permissions(input, p);
  for (int i = 0; i < 3; ++i) {
    const RunResult r = Filter(dir, work, i, 3, options, dir / "kept");
    EXPECT_EQ(r.exit_code, 0) << i << r.err;
  }
  EXPECT_EQ(Tree(dir / "kept"), want);
}

// stage filter --annotate-dir writes the folder scan --annotate-dir writes,
// byte for byte, in every mode, beside --kept-dir or alone, for files whole
// in a shard and for one split among three (written by the task of its
// first range from every shard's marks); the first task that needs the
// marks writes them once, and a task run again leaves the same folder.
TEST(StageFilterTest, AnnotatedFolderIsScansForOneAndThreeTasks) {
  TempDir dir;
  MakeCorpus(dir, "");
  std::string text;
  for (int i = 0; i < 600; ++i) {  // over 3 * kMinSplitBytes: split among the 3 sign tasks
    auto words = RandomWords(100, static_cast<uint64_t>(i % 5 == 0 ? 3 + i % 2 : 400 + i));
    words[static_cast<size_t>(i) % words.size()] = std::string("e").append(std::to_string(i));
    text.append(R"({"id": "s)").append(std::to_string(i)).append(R"(", "text": ")").append(Join(words)).append("\"}\n");
  }
  WriteFile(dir / "in/c/split.jsonl", text);
  for (const std::string mode : {"pairs", "clusters", "duplicates"}) {
    const Args options = {"--input", "jsonl", "--mode", mode};
    // In duplicates mode, --kept-dir besides.
    const bool both = mode == "duplicates";
    Args scan = {"scan", "--annotate-dir", dir / ("scan-" + mode), "--annotate-prefix", "nd_"};
    if (both) scan.insert(scan.end(), {"--kept-dir", dir / "scan-kept"});
    scan.insert(scan.end(), options.begin(), options.end());
    scan.push_back(dir / "in");
    const RunResult scanned = RunNeardup(scan, dir.path());
    EXPECT_LE(scanned.exit_code, 2) << scanned.err;
    const auto want = Tree(dir / ("scan-" + mode));
    ASSERT_EQ(want.size(), 6u);
    EXPECT_NE(want.at("c/split.jsonl").find("\"nd_kept\":false"), std::string::npos);
    EXPECT_NE(want.at("c/split.jsonl").find("\"nd_duplicate_of\":\"s0\""), std::string::npos);
    for (const int n : {1, 3}) {
      SCOPED_TRACE(mode + " N=" + std::to_string(n));
      const std::string work = dir / ("work-" + mode + std::to_string(n));
      EXPECT_LE(SignBucketReport(dir, work, n, options).exit_code, 2);
      if (n == 3) {
        ASSERT_GT(fs::file_size(work + "/sign/2.table"), 10000u);  // a range of split.jsonl
      }
      const std::string annotated = dir / ("stage-" + mode + std::to_string(n));
      const std::string kept = dir / ("kept-" + mode + std::to_string(n));
      for (const int round : {0, 1}) {
        for (int i = n; i-- > 0;) {  // the last first: the task that writes the marks is not the split file's
          Args a = {"stage",           "filter",         "--task",  std::to_string(i),   "--tasks",
                    std::to_string(n), "--annotate-dir", annotated, "--annotate-prefix", "nd_"};
          if (both) a.insert(a.end(), {"--kept-dir", kept});
          a.insert(a.end(), options.begin(), options.end());
          a.push_back(work);
          const RunResult r = RunNeardup(a, dir.path());
          EXPECT_EQ(r.exit_code, 0) << round << " " << i << r.err;
        }
        EXPECT_EQ(Tree(annotated), want) << round;
        if (both) {
          EXPECT_EQ(Tree(kept), Tree(dir / "scan-kept")) << round;
        }
      }
      testing::ExpectNoWiderModes(annotated, {dir / "in"}, true);
      // A report run again leaves no marks of the earlier one.
      EXPECT_TRUE(fs::exists(work + "/report/0.marks"));
      Args report = {"stage", "report", "-o", dir / "again.out"};
      report.insert(report.end(), options.begin(), options.end());
      report.push_back(work);
      EXPECT_LE(RunNeardup(report, dir.path()).exit_code, 2);
      EXPECT_FALSE(fs::exists(work + "/report/0.marks"));
    }
  }
}

// A report in pairs mode leaves its lists for the first filter task to
// complete: a task given other options (--keep) does not complete them with
// its own, but is refused as after a report of another mode; the task with
// the report's options then writes scan's folder.
TEST(StageFilterTest, ListsLeftByAPairsReportAreCompletedOnlyWithItsOptions) {
  TempDir dir;
  MakeCorpus(dir, "");
  const Args options = {"--input", "jsonl"};
  const std::string work = dir / "work";
  SignBucketReport(dir, work, 2, options);
  Args keep = options;
  keep.insert(keep.end(), {"--keep", "longest"});
  for (int i = 0; i < 2; ++i) {
    const RunResult r = Filter(dir, work, i, 2, keep, dir / "kept");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("made with other options"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir / "kept"));
  for (int i = 0; i < 2; ++i) EXPECT_EQ(Filter(dir, work, i, 2, options, dir / "kept").exit_code, 0);
  EXPECT_EQ(Tree(dir / "kept"), ScanFolder(dir, options, dir / "scan.kept"));
}

TEST(StageFilterTest, MissingOrDamagedListOrShardIsAnError) {
  TempDir dir;
  MakeCorpus(dir, "");
  const Args options = {"--input", "jsonl"};
  const std::string work = dir / "work";
  SignBucketReport(dir, work, 2, options);
  // The list is missing: exit 2, naming it, before DIR is made.
  fs::rename(work + "/report/1.dropped", dir / "saved");
  RunResult r = Filter(dir, work, 1, 2, options, dir / "kept");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(work + "/report/1.dropped: missing: run `neardup stage report`"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "kept"));
  fs::rename(dir / "saved", work + "/report/1.dropped");
  // Damaged: one byte flipped.
  std::string bytes = testing::ReadFile(work + "/report/1.dropped");
  bytes[bytes.size() / 2] ^= 0x40;
  WriteFile(work + "/report/1.dropped", bytes);
  r = Filter(dir, work, 1, 2, options, dir / "kept");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("1.dropped: dropped list: damaged"), std::string::npos) << r.err;
  // The shard's meta is missing.
  fs::remove(work + "/sign/0.meta");
  r = Filter(dir, work, 0, 2, options, dir / "kept");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(work + "/sign/0.meta: cannot open"), std::string::npos) << r.err;
  // Another task count than the sign tasks'.
  r = Filter(dir, work, 0, 3, options, dir / "kept");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("holds 2 shards: run 2 filter tasks"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "kept"));
}

TEST(StageFilterTest, SharedFolderRulesAndOtherOptionsAreRefused) {
  TempDir dir;
  MakeCorpus(dir, "");
  const Args options = {"--input", "jsonl"};
  const std::string work = dir / "work";
  SignBucketReport(dir, work, 2, options);
  // A non-empty folder no filter task began.
  WriteFile(dir / "full/x", "x");
  RunResult r = Filter(dir, work, 0, 2, options, dir / "full");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is not empty and no filter task over"), std::string::npos) << r.err;
  EXPECT_EQ(Tree(dir / "full").size(), 1u);
  // DIR inside a PATH, as scan refuses it.
  r = Filter(dir, work, 0, 2, options, dir / "in/kept");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is inside the input"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "in/kept"));
  // Options other than the report's.
  Args keep = options;
  keep.insert(keep.end(), {"--keep", "longest"});
  r = Filter(dir, work, 0, 2, keep, dir / "kept");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("made with other options"), std::string::npos) << r.err;
  // Task 0 writes, task 1 joins the folder no longer empty, task 0 again replaces its own files.
  ASSERT_EQ(Filter(dir, work, 0, 2, options, dir / "kept").exit_code, 0);
  const auto first = Tree(dir / "kept");
  ASSERT_FALSE(first.empty());
  r = Filter(dir, work, 1, 2, options, dir / "kept");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto both = Tree(dir / "kept");
  EXPECT_GT(both.size(), first.size());
  r = Filter(dir, work, 0, 2, options, dir / "kept");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Tree(dir / "kept"), both);
  EXPECT_EQ(both, ScanFolder(dir, options, dir / "scan.kept"));
  testing::ExpectNoWiderModes(dir / "kept", {dir / "in"}, true);
}

// Two input files whose paths below their PATHs are the same (a/x1.txt and
// b/x1.txt given as PATHs a and b) would go to one place below DIR, from two
// shards: the report sees it, and every filter task refuses before it
// writes anything, naming both files and the place.
TEST(StageFilterTest, SamePlaceFromTwoShardsIsRefusedBeforeAnyWrite) {
  for (const int n : {1, 2}) {
    SCOPED_TRACE(n);
    TempDir dir;
    for (const char* folder : {"a", "b"}) {
      for (int i = 0; i < 3; ++i) {
        const uint64_t seed = (std::string(folder) == "a" ? 100 : 200) + static_cast<uint64_t>(i);
        WriteFile(dir / ("in/" + std::string(folder) + "/x" + std::to_string(i) + ".txt"), Join(RandomWords(80, seed)));
      }
    }
    const std::string work = dir / "work";
    for (int i = 0; i < n; ++i) {
      const RunResult r = RunNeardup({"stage", "sign", "--task", std::to_string(i), "--tasks", std::to_string(n), work,
                                      dir / "in/a", dir / "in/b"},
                                     dir.path());
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    for (const char* stage : {"bucket", "verify"}) {
      ASSERT_EQ(RunNeardup({"stage", stage, "--task", "0", "--tasks", "1", work}, dir.path()).exit_code, 0);
    }
    const RunResult report = RunNeardup({"stage", "report", work}, dir.path());
    EXPECT_EQ(report.exit_code, 1) << report.err;  // nothing alike: the report itself is unaffected
    for (int i = 0; i < n; ++i) {
      const RunResult r = Filter(dir, work, i, n, {}, dir / "kept");
      EXPECT_EQ(r.exit_code, 2);
      EXPECT_NE(r.err.find(std::string(dir / "in/a/x0.txt") + " and " + std::string(dir / "in/b/x0.txt") +
                           " both go to x0.txt below --kept-dir"),
                std::string::npos)
          << r.err;
      EXPECT_NE(r.err.find("PATHs whose files' paths below them differ"), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(dir / "kept"));
    // Their common parent folder as the PATH: distinct places, all written.
    const std::string parent_work = dir / "parent-work";
    ASSERT_EQ(
        RunNeardup({"stage", "sign", "--task", "0", "--tasks", "1", parent_work, dir / "in"}, dir.path()).exit_code, 0);
    for (const char* stage : {"bucket", "verify"}) {
      ASSERT_EQ(RunNeardup({"stage", stage, "--task", "0", "--tasks", "1", parent_work}, dir.path()).exit_code, 0);
    }
    EXPECT_EQ(RunNeardup({"stage", "report", parent_work}, dir.path()).exit_code, 1);
    const RunResult r = Filter(dir, parent_work, 0, 1, {}, dir / "kept");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(Tree(dir / "kept"), Tree(dir / "in"));
  }
}

}  // namespace
}  // namespace neardup
