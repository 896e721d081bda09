// The containment candidates of a bucket task (containment_share.h): the
// same in any memory budget (the documents in memory or in a temporary file;
// the band keys bucketed in memory a group of bands at a time, a band's
// sorted in temporary files, or all of them), and the shares of M tasks add
// up to the whole, visited counts included.
#include "distributed/containment_share.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "neardup/stages.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::TempDir;
using testing::WriteFile;

// Containers of 300 to 1,000 words, each with excerpts of a half to a sixth
// of its words placed inside other words, some excerpts twice (copies: one
// representative), and unrelated texts; signed by two sign tasks into
// dir/work.
Options SignedContainment(const TempDir& dir) {
  size_t n = 0;
  auto write = [&](const std::vector<std::string>& words) {
    WriteFile(dir / ("in/t" + std::to_string(1000 + n++) + ".txt"), Join(words));
  };
  for (size_t c = 0; c < 30; ++c) {
    const auto words = RandomWords(300 + 25 * c, 40 + c);
    write(words);
    const size_t length = words.size() / (2 + c % 5);
    std::vector<std::string> excerpt(words.begin() + 7, words.begin() + 7 + static_cast<ptrdiff_t>(length));
    auto framed = RandomWords(20, 700 + c);
    framed.insert(framed.end(), excerpt.begin(), excerpt.end());
    write(framed);
    if (c % 4 == 0) write(framed);
  }
  for (size_t u = 0; u < 20; ++u) write(RandomWords(200 + 30 * u, 900 + u));
  Options o;
  o.relation = Relation::kContains;
  o.paths = {dir / "in"};
  for (uint32_t t = 0; t < 2; ++t) {
    Result<TaskRun> signed_ = RunSignTask(o, dir / "work", {.task = t, .tasks = 2}, {});
    EXPECT_TRUE(signed_.ok()) << signed_.status().message();
  }
  return o;
}

ContainedShare ShareOf(const Options& o, const std::string& work, StageTask t, ContainedShareMemory memory = {}) {
  Result<std::unique_ptr<Run>> run = Run::Decide(o, {});
  EXPECT_TRUE(run.ok()) << run.status().message();
  if (memory.documents == 0) memory = ContainedShareMemory::Of(o);
  Result<ContainedShare> share = FindContainedShare(**run, WorkFolder(work), 2, t, memory);
  EXPECT_TRUE(share.ok()) << share.status().message();
  return share.ok() ? *share : ContainedShare();
}

TEST(ContainedShareTest, AnyBudgetAndAnyNumberOfTasksGiveTheSameCandidates) {
  TempDir dir;
  Options o = SignedContainment(dir);
  const ContainedShare whole = ShareOf(o, dir / "work", {});
  // Most excerpts are found (each is at least a sixth of its container, within the ratio cap of 8).
  EXPECT_GE(whole.pairs.size(), size_t{20});
  EXPECT_GE(whole.visited, whole.pairs.size());
  EXPECT_TRUE(std::is_sorted(whole.pairs.begin(), whole.pairs.end()));
  EXPECT_EQ(std::adjacent_find(whole.pairs.begin(), whole.pairs.end()), whole.pairs.end());

  // The documents in a temporary file (a record is 544 bytes); keys of 4 KiB
  // (a group of bands holds 64 keys a worker) and of 1 KiB (16 keys: a band
  // of more has its keys sorted in temporary files); both, where every key
  // goes to temporary files.
  const ContainedShareMemory budgets[] = {{.documents = 1024, .keys = 1 << 26},
                                          {.documents = 1 << 26, .keys = 4096},
                                          {.documents = 1 << 26, .keys = 1024},
                                          {.documents = 1024, .keys = 4096}};
  for (const ContainedShareMemory& memory : budgets) {
    const ContainedShare other = ShareOf(o, dir / "work", {}, memory);
    EXPECT_EQ(other.pairs, whole.pairs) << memory.documents << " " << memory.keys;
    EXPECT_EQ(other.visited, whole.visited) << memory.documents << " " << memory.keys;
  }

  for (const uint32_t m : {2u, 3u, 7u}) {
    std::vector<ContainedPair> all;
    uint64_t visited = 0;
    for (uint32_t t = 0; t < m; ++t) {
      const ContainedShare part = ShareOf(o, dir / "work", {.task = t, .tasks = m}, budgets[m % 4]);
      all.insert(all.end(), part.pairs.begin(), part.pairs.end());
      visited += part.visited;
    }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(all, whole.pairs) << m << " tasks";
    EXPECT_EQ(visited, whole.visited) << m << " tasks";
  }
}

}  // namespace
}  // namespace neardup
