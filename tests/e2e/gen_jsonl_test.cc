// End to end: build/gen_jsonl (tests/bench/gen_jsonl.cc), the corpus of
// scripts/bench.sh's "stages at scale" section, keeps its promises: the
// stated near-duplicate groups are what `neardup scan` finds at the default
// threshold, and a smaller corpus with the same seed and groups is the
// start of a larger one (the same duplicates, the extra documents unique).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::ReadFile;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;

const std::string kBin = ::neardup::testing::NeardupBinary();
const std::string kGen = ::neardup::testing::GenJsonlBinary();
using Args = std::vector<std::string>;

RunResult Generate(const TempDir& dir, const std::string& out, const Args& extra) {
  Args argv = {kGen, "--out", dir / out, "--seed", "7", "--dup-groups", "40", "--copies", "3"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return RunProcess(argv, dir.path());
}

TEST(GenJsonlTest, TheGroupsAreFoundAndASmallerCorpusIsTheStartOfALargerOne) {
  TempDir dir;
  ASSERT_EQ(Generate(dir, "small", {"--docs", "2000", "-j", "1"}).exit_code, 0);
  ASSERT_EQ(Generate(dir, "large", {"--docs", "8000", "--files", "3", "-j", "2"}).exit_code, 0);
  const std::string small = ReadFile(dir / "small/part-00000.jsonl");
  const std::string large = ReadFile(dir / "large/part-00000.jsonl") + ReadFile(dir / "large/part-00001.jsonl") +
                            ReadFile(dir / "large/part-00002.jsonl");
  EXPECT_EQ(std::count(small.begin(), small.end(), '\n'), 2000);
  EXPECT_EQ(std::count(large.begin(), large.end(), '\n'), 8000);
  EXPECT_EQ(large.substr(0, small.size()), small);
  // 40 groups of 4: 6 pairs each, and the same in both corpora.
  Args scan = {kBin, "scan", "--input", "jsonl", "-f", "tsv", "-q"};
  const RunResult found_small = RunProcess(
      [&] {
        Args a = scan;
        a.push_back(dir / "small");
        return a;
      }(),
      dir.path());
  const RunResult found_large = RunProcess(
      [&] {
        Args a = scan;
        a.push_back(dir / "large");
        return a;
      }(),
      dir.path());
  ASSERT_EQ(found_small.exit_code, 0) << found_small.err;
  EXPECT_EQ(std::count(found_small.out.begin(), found_small.out.end(), '\n'), 40 * 6);
  auto names = [](const std::string& tsv) {  // the pairs' ids, without scores
    std::string out;
    for (size_t at = 0; at < tsv.size();) {
      const size_t end = tsv.find('\n', at);
      const std::string line = tsv.substr(at, end - at);
      out += line.substr(0, line.rfind('\t')) + "\n";
      at = end + 1;
    }
    return out;
  };
  EXPECT_EQ(names(found_large.out), names(found_small.out));
}

TEST(GenJsonlTest, RefusesGroupsThatDoNotFit) {
  TempDir dir;
  // 40 groups of 4, one document in 10: 1591 documents at least.
  const RunResult r = Generate(dir, "c", {"--docs", "1590"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("do not fit"), std::string::npos) << r.err;
  EXPECT_EQ(Generate(dir, "d", {"--docs", "1591"}).exit_code, 0);
}

}  // namespace
}  // namespace neardup
