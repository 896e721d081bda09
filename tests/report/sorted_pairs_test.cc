#include "neardup/sorted_pairs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace neardup {
namespace {

// n pairs with distinct keys, added in a shuffled order (fixed seed).
std::vector<std::pair<uint64_t, ReportedPair>> ShuffledPairs(uint32_t n) {
  std::vector<std::pair<uint64_t, ReportedPair>> all;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t a = i / 97, b = i % 97 + 1000;
    all.push_back({uint64_t{a} << 32 | b, {a, b, i / double(n), -1}});
  }
  std::mt19937_64 rng(42);
  std::shuffle(all.begin(), all.end(), rng);
  return all;
}

void ExpectSortedByKey(const SortedPairs& pairs, uint32_t n) {
  uint32_t count = 0;
  uint64_t last = 0;
  for (const ReportedPair& p : pairs) {
    const uint64_t key = uint64_t{p.a} << 32 | p.b;
    if (count > 0) {
      EXPECT_LT(last, key);
    }
    last = key;
    ++count;
  }
  EXPECT_TRUE(pairs.status().ok());
  EXPECT_EQ(count, n);
}

TEST(SortedPairsTest, InMemoryPairsComeOutSortedByKey) {
  SortedPairs pairs;
  for (const auto& [key, p] : ShuffledPairs(5000)) ASSERT_TRUE(pairs.Add(key, p).ok());
  ASSERT_TRUE(pairs.Finish().ok());
  EXPECT_FALSE(pairs.spilled());
  EXPECT_EQ(pairs.size(), 5000u);
  ExpectSortedByKey(pairs, 5000);
}

TEST(SortedPairsTest, SpilledRunsMergeIntoTheSameOrder) {
  // A budget of 100 pairs: 200 runs, so the runs are also merged into one
  // (kMaxRuns) on the way.
  const uint32_t n = 20000;
  SortedPairs pairs(100 * 32);
  for (const auto& [key, p] : ShuffledPairs(n)) ASSERT_TRUE(pairs.Add(key, p).ok());
  ASSERT_TRUE(pairs.Finish().ok());
  EXPECT_TRUE(pairs.spilled());
  ExpectSortedByKey(pairs, n);
  // A second pass gives the same pairs with the same scores.
  const std::vector<ReportedPair> first = pairs.ToVector();
  const std::vector<ReportedPair> second = pairs.ToVector();
  ASSERT_EQ(first.size(), n);
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(first[i].a, second[i].a);
    EXPECT_EQ(first[i].b, second[i].b);
    EXPECT_EQ(first[i].estimate, second[i].estimate);
  }
}

TEST(SortedPairsTest, ScoresTravelWithTheirPairThroughTheFiles) {
  SortedPairs pairs(4 * 32);
  ASSERT_TRUE(pairs.Add(30, {3, 4, 0.25, 0.5}).ok());
  ASSERT_TRUE(pairs.Add(10, {1, 2, 0.75, -1}).ok());
  ASSERT_TRUE(pairs.Add(20, {2, 3, 0.875, 0.9}).ok());
  ASSERT_TRUE(pairs.Add(50, {5, 6, 1.0, 1.0}).ok());
  ASSERT_TRUE(pairs.Add(40, {4, 5, 0.5, 0.625}).ok());
  ASSERT_TRUE(pairs.Finish().ok());
  EXPECT_TRUE(pairs.spilled());
  const std::vector<ReportedPair> v = pairs.ToVector();
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v[0].a, 1u);
  EXPECT_EQ(v[0].jaccard, -1);
  EXPECT_EQ(v[1].estimate, 0.875);
  EXPECT_EQ(v[1].jaccard, 0.9);
  EXPECT_EQ(v[4].b, 6u);
}

TEST(SortedPairsTest, EmptyHasNoPairs) {
  SortedPairs pairs;
  ASSERT_TRUE(pairs.Finish().ok());
  EXPECT_TRUE(pairs.empty());
  EXPECT_TRUE(pairs.begin() == pairs.end());
}

TEST(SortedPairsTest, MovedPairsKeepTheirRuns) {
  SortedPairs pairs(10 * 32);
  for (const auto& [key, p] : ShuffledPairs(1000)) ASSERT_TRUE(pairs.Add(key, p).ok());
  ASSERT_TRUE(pairs.Finish().ok());
  SortedPairs moved = std::move(pairs);
  ExpectSortedByKey(moved, 1000);
}

}  // namespace
}  // namespace neardup
