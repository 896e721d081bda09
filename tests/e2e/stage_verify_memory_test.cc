// End to end: a verify task streams the bucket outputs, so its memory is its
// share of the pairs, their documents' rows and a buffer, not the largest
// bucket output it reads.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "e2e/run_neardup.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunOptions;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

using Args = std::vector<std::string>;

RunResult RunStage(const TempDir& dir, const std::string& stage, int task, int tasks, const Args& tail,
                   long* max_rss_kb = nullptr) {
  Args argv = {"stage",   stage,
               "--task",  std::to_string(task),
               "--tasks", std::to_string(tasks),
               "--input", "jsonl",
               "--bands", "4",
               "--rows",  "32",
               "-q",      dir / "work"};
  argv.insert(argv.end(), tail.begin(), tail.end());
  return RunNeardup(argv, dir.path(), RunOptions().MaxRss(max_rss_kb));
}

// 1500 documents of the same 300 words, each with a word of its own: every
// band puts most of them in one bucket, so the bucket output holds about
// 3.6 million candidate pairs (87 MB). Task 0 of 64 takes 1/64 of them; it
// read the output whole and decoded it (190 MB at its peak), and now stays
// under 48 MB.
TEST(StageVerifyMemoryTest, AVerifyTaskStreamsABucketOutputLargerThanItsBound) {
  TempDir dir;
  const std::string base = Join(RandomWords(300, 5, 50000));
  std::string jsonl;
  for (int i = 0; i < 1500; ++i) {
    jsonl += R"({"id": "d)" + std::to_string(i) + R"(", "text": ")" + base + " own" + std::to_string(i) + "\"}\n";
  }
  WriteFile(dir / "corpus/c.jsonl", jsonl);
  ASSERT_EQ(RunStage(dir, "sign", 0, 1, {dir / "corpus"}).exit_code, 0);
  ASSERT_EQ(RunStage(dir, "bucket", 0, 1, {}).exit_code, 0);
  constexpr long kBoundKb = 48 * 1024;
  const auto pairs_bytes = std::filesystem::file_size(dir / "work/bucket/0.pairs");
  ASSERT_GT(pairs_bytes, uintmax_t{kBoundKb} * 1024) << "the bucket output is not larger than the bound";
  long rss_kb = 0;
  const RunResult verify = RunStage(dir, "verify", 0, 64, {}, &rss_kb);
  ASSERT_EQ(verify.exit_code, 0) << verify.err;
  std::fprintf(stderr, "bucket output %ju bytes, verify peak RSS %ld KiB\n", pairs_bytes, rss_kb);
#if !defined(__SANITIZE_ADDRESS__)
  EXPECT_LT(rss_kb, kBoundKb) << "verify peak RSS " << rss_kb / 1024 << " MB";
#endif
}

}  // namespace
}  // namespace neardup
