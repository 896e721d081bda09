// FoldDiff: long unchanged stretches are shortened to their context, the
// rest of a diff is kept as it is.
#include "neardup/word_diff.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;

DiffRun Same(uint64_t words) { return {DiffRun::Kind::kSame, Join(RandomWords(words, 3)), words}; }

TEST(FoldDiffTest, ShortRunsAndChangesAreKeptAsTheyAre) {
  const std::vector<DiffRun> runs = {Same(5),
                                     {DiffRun::Kind::kRemoved, "x y", 2},
                                     {DiffRun::Kind::kAdded, "z", 1},
                                     Same(12 + 12 + kMinSkipped - 1),
                                     {DiffRun::Kind::kAdded, "w", 1}};
  const std::vector<FoldedRun> folded = FoldDiff(runs);
  ASSERT_EQ(folded.size(), runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(folded[i].text, runs[i].text);
    EXPECT_EQ(folded[i].words, runs[i].words);
    EXPECT_EQ(static_cast<int>(folded[i].kind), static_cast<int>(runs[i].kind));
  }
}

TEST(FoldDiffTest, LongUnchangedStretchKeepsItsContextAroundTheCount) {
  const DiffRun middle = Same(100);
  const std::vector<DiffRun> runs = {{DiffRun::Kind::kRemoved, "a", 1}, middle, {DiffRun::Kind::kAdded, "b", 1}};
  const std::vector<FoldedRun> folded = FoldDiff(runs);
  ASSERT_EQ(folded.size(), 5u);
  const std::vector<std::string> words = RandomWords(100, 3);
  EXPECT_EQ(folded[1].kind, FoldedRun::Kind::kSame);
  EXPECT_EQ(folded[1].text, Join({words.begin(), words.begin() + kContextWords}));
  EXPECT_EQ(folded[2].kind, FoldedRun::Kind::kSkipped);
  EXPECT_EQ(folded[2].words, 100 - 2 * kContextWords);
  EXPECT_TRUE(folded[2].text.empty());
  EXPECT_EQ(folded[3].kind, FoldedRun::Kind::kSame);
  EXPECT_EQ(folded[3].text, Join({words.end() - kContextWords, words.end()}));
}

TEST(FoldDiffTest, StretchesAtTheEndsKeepContextOnTheChangedSideOnly) {
  const std::vector<DiffRun> runs = {Same(50), {DiffRun::Kind::kAdded, "b", 1}, Same(50)};
  const std::vector<FoldedRun> folded = FoldDiff(runs);
  ASSERT_EQ(folded.size(), 5u);
  EXPECT_EQ(folded[0].kind, FoldedRun::Kind::kSkipped);
  EXPECT_EQ(folded[0].words, 50 - kContextWords);
  EXPECT_EQ(folded[1].words, kContextWords);
  EXPECT_EQ(folded[2].kind, FoldedRun::Kind::kAdded);
  EXPECT_EQ(folded[3].words, kContextWords);
  EXPECT_EQ(folded[4].kind, FoldedRun::Kind::kSkipped);
  EXPECT_EQ(folded[4].words, 50 - kContextWords);
  EXPECT_TRUE(FoldDiff({}).empty());
}

}  // namespace
}  // namespace neardup
