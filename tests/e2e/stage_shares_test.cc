// End to end: with --input jsonl, N sign tasks share the inputs' bytes, not
// their files (byte_shares.h): one large JSONL file is shared evenly, cut at
// newlines, its documents keeping their true line numbers; and what the
// stages give over such shares (the report in every mode, with --exact,
// --against and ids repeated across ranges; stage filter's folder) is
// scan's, byte for byte.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "distributed/byte_shares.h"
#include "distributed/stage_sign.h"
#include "distributed/work_folder.h"
#include "e2e/run_neardup.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunResult;
using testing::TempDir;
using testing::With;
using testing::WriteFile;

using Args = std::vector<std::string>;

// One JSONL file of `lines` documents of 30 to 49 words (so that documents
// per byte are about even along the file): near copies of earlier lines
// all along it, ids that repeat far apart (a range apart for most N), lines
// without an id, and one line that is not JSON.
std::string BigJsonl(int lines) {
  std::string text;
  for (int i = 0; i < lines; ++i) {
    if (i == lines / 2 + 7) {
      text += "{not json\n";
      continue;
    }
    const int source = i % 9 == 0 && i > 100 ? i / 3 : i;  // a near copy of line i/3
    auto words = RandomWords(30 + static_cast<size_t>(source % 20), static_cast<uint64_t>(source) + 11);
    if (source != i) words[static_cast<size_t>(i) % words.size()] = "changed";
    std::string id;
    if (i % 5 != 0) id = "doc" + std::to_string(i % (lines - 400));  // the last 400 take the first ids again
    text.append("{");
    if (!id.empty()) text.append(R"("id": ")").append(id).append(R"(", )");
    text.append(R"("text": ")").append(Join(words)).append("\"}\n");
  }
  return text;
}

// Sign (n tasks), bucket (2), verify (2), report over `work`; the report's
// result.
RunResult Stages(const TempDir& dir, const std::string& work, int n, const Args& options, const Args& paths) {
  for (int i = 0; i < n; ++i) {
    const RunResult r =
        RunNeardup(With(With({"stage", "sign", "--task", std::to_string(i), "--tasks", std::to_string(n)}, options),
                        With({work}, paths)),
                   dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  for (const std::string stage : {"bucket", "verify"}) {
    for (int j = 0; j < 2; ++j) {
      const RunResult r = RunNeardup(
          With(With({"stage", stage, "--task", std::to_string(j), "--tasks", "2"}, options), {work}), dir.path());
      EXPECT_EQ(r.exit_code, 0) << r.err;
    }
  }
  return RunNeardup(With(With({"stage", "report"}, options), {work}), dir.path());
}

// Each shard's document count, from its table.
std::vector<uint64_t> ShardDocs(const std::string& work, int n) {
  std::vector<uint64_t> out;
  const WorkFolder folder(work);
  for (int i = 0; i < n; ++i) {
    Result<uint64_t> docs = ShardDocCount(folder, static_cast<uint32_t>(i));
    EXPECT_TRUE(docs.ok()) << docs.status().message();
    out.push_back(docs.ok() ? *docs : 0);
  }
  return out;
}

// The lines of stderr that name a place (problems and renamings), without
// the summary line, whose timing differs.
std::string Problems(const std::string& err) {
  std::string out;
  size_t at = 0;
  while (at < err.size()) {
    size_t end = err.find('\n', at);
    if (end == std::string::npos) end = err.size();
    const std::string line = err.substr(at, end - at);
    if (line.find("c.jsonl:") != std::string::npos) out += line + "\n";
    at = end + 1;
  }
  return out;
}

TEST(StageSharesTest, OneFileIsSharedEvenlyByBytes) {
  TempDir dir;
  const int lines = 4000;
  WriteFile(dir / "c.jsonl", BigJsonl(lines));
  for (const int n : {1, 2, 3, 5}) {
    SCOPED_TRACE("N=" + std::to_string(n));
    const std::string work = dir / ("w" + std::to_string(n));
    for (int i = 0; i < n; ++i) {
      const RunResult r = RunNeardup({"stage", "sign", "--task", std::to_string(i), "--tasks", std::to_string(n),
                                      "--input", "jsonl", work, dir / "c.jsonl"},
                                     dir.path());
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    const std::vector<uint64_t> docs = ShardDocs(work, n);
    uint64_t sum = 0;
    for (size_t i = 0; i < docs.size(); ++i) {
      sum += docs[i];
      // A share is within 5% of an n-th of the documents (lines are of
      // even length along the file, so an n-th of the bytes is about that).
      EXPECT_NEAR(static_cast<double>(docs[i]), static_cast<double>(lines - 1) / n, 0.05 * lines / n) << i;
    }
    EXPECT_EQ(sum, static_cast<uint64_t>(lines - 1));  // every document once (one line is not JSON)
  }
}

TEST(StageSharesTest, ReportOverSharedFileIsScans) {
  TempDir dir;
  WriteFile(dir / "c.jsonl", BigJsonl(3000));
  // A reference file: its documents are copies of some in c.jsonl.
  std::string ref;
  for (int i = 200; i < 3000; i += 400) {
    ref.append(R"({"id": "r)").append(std::to_string(i)).append(R"(", "text": ")");
    ref.append(Join(RandomWords(30 + static_cast<size_t>(i % 20), static_cast<uint64_t>(i) + 11))).append("\"}\n");
  }
  WriteFile(dir / "ref.jsonl", ref);
  const std::vector<Args> cases = {
      {"--input", "jsonl"},
      {"--input", "jsonl", "--mode", "clusters"},
      {"--input", "jsonl", "--mode", "duplicates", "-f", "jsonl"},
      {"--input", "jsonl", "--mode", "duplicates", "--keep", "first", "-f", "csv"},
      {"--input", "jsonl", "--exact", "--mode", "clusters"},
      {"--input", "jsonl", "--against", dir / "ref.jsonl"},
  };
  int case_no = 0;
  for (const Args& options : cases) {
    const RunResult scan = RunNeardup(With(With({"scan"}, options), {dir / "c.jsonl"}), dir.path());
    ASSERT_LE(scan.exit_code, 2) << scan.err;
    ASSERT_GT(scan.out.size(), 100u) << Join(options);
    // Ids taken twice, across the file, are renamed FILE:LINE with true lines.
    ASSERT_NE(Problems(scan.err).find("c.jsonl:2602); each"), std::string::npos) << scan.err;
    for (const int n : {1, 2, 3, 5}) {
      SCOPED_TRACE(Join(options) + " N=" + std::to_string(n));
      const std::string work = dir / ("w" + std::to_string(case_no) + "." + std::to_string(n));
      const RunResult report = Stages(dir, work, n, options, {dir / "c.jsonl"});
      EXPECT_EQ(report.exit_code, scan.exit_code) << report.err;
      EXPECT_EQ(report.out, scan.out);
      EXPECT_EQ(Problems(report.err), Problems(scan.err));
    }
    ++case_no;
  }
}

// No bytes to share: an empty folder, or only empty files. Every cut falls
// at 0 (a sign task once crashed computing them: SIGSEGV), the tasks finish,
// and the report says what scan says.
TEST(StageSharesTest, NothingToShareIsSharedToo) {
  TempDir dir;
  std::filesystem::create_directories(dir / "none");
  WriteFile(dir / "blank/a.jsonl", "");
  WriteFile(dir / "blank/b.jsonl", "");
  for (const char* input : {"none", "blank"}) {
    for (const char* format : {"jsonl", "text"}) {
      const Args options = {"--input", format};
      const RunResult scan = RunNeardup(With(With({"scan"}, options), {dir / input}), dir.path());
      for (const int n : {1, 3}) {
        SCOPED_TRACE(std::string(input) + " --input " + format + " N=" + std::to_string(n));
        const std::string work = dir / (std::string("w.") + input + "." + format + "." + std::to_string(n));
        const RunResult report = Stages(dir, work, n, options, {dir / input});
        EXPECT_EQ(report.exit_code, scan.exit_code) << report.err;
        EXPECT_EQ(report.out, scan.out);
      }
    }
  }
}

TEST(StageSharesTest, FilterOverSharedFileWritesScansFolder) {
  TempDir dir;
  WriteFile(dir / "in/c.jsonl", BigJsonl(3000));
  WriteFile(dir / "in/small.jsonl", BigJsonl(40));  // whole: under the size a file is split from
  for (const Args& options : {Args{"--input", "jsonl", "--mode", "duplicates"},
                              Args{"--input", "jsonl", "--mode", "clusters", "--keep", "longest"}}) {
    const std::string tag = options.back();
    const RunResult scan =
        RunNeardup(With(With({"scan", "--kept-dir", dir / ("scan." + tag)}, options), {dir / "in"}), dir.path());
    ASSERT_LE(scan.exit_code, 2) << scan.err;
    const auto want = testing::FileTree(dir / ("scan." + tag));
    ASSERT_EQ(want.size(), 2u);
    ASSERT_NE(want.at("c.jsonl").size(), testing::FileTree(dir / "in").at("c.jsonl").size());
    for (const int n : {2, 3, 5}) {
      SCOPED_TRACE(tag + " N=" + std::to_string(n));
      const std::string work = dir / ("w." + tag + std::to_string(n));
      const std::string kept = dir / ("kept." + tag + std::to_string(n));
      EXPECT_LE(Stages(dir, work, n, options, {dir / "in"}).exit_code, 2);
      // The tasks in reverse order, and the first one twice (a retry).
      for (int i = n - 1; i >= -1; --i) {
        const RunResult r = RunNeardup(With({"stage", "filter", "--task", std::to_string(i < 0 ? 0 : i), "--tasks",
                                             std::to_string(n), "--kept-dir", kept},
                                            With(options, {work})),
                                       dir.path());
        EXPECT_EQ(r.exit_code, 0) << r.err;
      }
      EXPECT_EQ(testing::FileTree(kept), want);
    }
  }
}

// Cuts fall at newlines when a line spans the target byte, and a line
// longer than a whole share leaves a share empty; line numbers stay true.
TEST(StageSharesTest, CutsFallAtNewlinesAroundLongLines) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 300; ++i) {
    std::string words = Join(RandomWords(40, static_cast<uint64_t>(i % 150) + 3));  // lines 151.. copy 1..
    if (i == 120) words = Join(RandomWords(30000, 99));  // about 200 kB: longer than a share of 5
    if (i == 200) {
      text += "{broken\n";
      continue;
    }
    text.append(R"({"text": ")").append(words).append("\"}\n");
  }
  WriteFile(dir / "c.jsonl", text);
  ASSERT_GT(text.size(), kMinSplitBytes);
  const RunResult scan = RunNeardup({"scan", "--input", "jsonl", "--mode", "clusters", dir / "c.jsonl"}, dir.path());
  ASSERT_EQ(scan.exit_code, 2) << scan.err;  // the broken line
  ASSERT_NE(scan.err.find("c.jsonl:201: "), std::string::npos) << scan.err;
  for (const int n : {4, 5, 7}) {
    SCOPED_TRACE("N=" + std::to_string(n));
    const std::string work = dir / ("w" + std::to_string(n));
    const RunResult report = Stages(dir, work, n, {"--input", "jsonl", "--mode", "clusters"}, {dir / "c.jsonl"});
    EXPECT_EQ(report.exit_code, scan.exit_code);
    EXPECT_EQ(report.out, scan.out);
    EXPECT_EQ(Problems(report.err), Problems(scan.err));
    const std::vector<uint64_t> docs = ShardDocs(work, n);
    uint64_t sum = 0, empty = 0;
    for (const uint64_t d : docs) {
      sum += d;
      empty += d == 0 ? 1 : 0;
    }
    EXPECT_EQ(sum, 299u);
    EXPECT_GE(empty, 1u);                // the long line's share took the whole line; the next share found no cut in it
    EXPECT_GE(docs.size() - empty, 2u);  // but the lines after it are shared
  }
}

}  // namespace
}  // namespace neardup
