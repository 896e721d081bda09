// DistinctCounter (sign/distinct_count.h): the exact number of distinct
// hashes, whatever the repeats, the order and the table's growth.
#include "sign/distinct_count.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace neardup {
namespace {

uint64_t SortedUnique(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  return static_cast<uint64_t>(std::unique(v.begin(), v.end()) - v.begin());
}

TEST(DistinctCounterTest, CountsEachHashOnceWhateverItsRepeats) {
  DistinctCounter c;
  EXPECT_EQ(c.count(), 0u);
  const std::vector<uint64_t> hashes = {5, 9, 5, 0, 9, 0, 123456789, 5};
  c.Add(hashes);
  EXPECT_EQ(c.count(), 4u);  // 5, 9, 0 and 123456789
  c.Add(hashes);
  EXPECT_EQ(c.count(), 4u);
  c.Reset();
  EXPECT_EQ(c.count(), 0u);
  c.Add(std::vector<uint64_t>{7});
  EXPECT_EQ(c.count(), 1u);
}

// Random hashes drawn from small pools, so that many repeat, in chunks of
// odd sizes: the count is that of the sorted, deduplicated hashes, through
// many doublings of the table and for a short document after a long one.
TEST(DistinctCounterTest, EqualsTheSizeOfTheSortedUniqueSetThroughGrowth) {
  std::mt19937_64 rng(44);
  DistinctCounter c;
  for (const uint64_t pool : {3u, 1000u, 50000u, 700000u, 20u}) {
    std::vector<uint64_t> all;
    for (size_t i = 0; i < 2 * pool + 17; ++i) all.push_back(rng() % pool * 0x100000001B3ULL);
    c.Reset();
    for (size_t at = 0; at < all.size();) {
      const size_t n = std::min<size_t>(all.size() - at, 1 + rng() % 4000);
      c.Add(std::span<const uint64_t>(all.data() + at, n));
      at += n;
    }
    EXPECT_EQ(c.count(), SortedUnique(all)) << "pool " << pool;
  }
}

}  // namespace
}  // namespace neardup
