#include "lsh/similarity.h"

#include <gtest/gtest.h>

#include <vector>

namespace neardup {
namespace {

TEST(ExactJaccardTest, HandCheckedSets) {
  const std::vector<uint64_t> a{1, 2, 3, 4};
  const std::vector<uint64_t> b{3, 4, 5};
  EXPECT_DOUBLE_EQ(ExactJaccard(a, b), 2.0 / 5.0);
  EXPECT_DOUBLE_EQ(ExactJaccard(a, a), 1.0);
  EXPECT_DOUBLE_EQ(ExactJaccard(a, std::vector<uint64_t>{7, 8}), 0.0);
  EXPECT_DOUBLE_EQ(ExactJaccard(std::vector<uint64_t>{}, std::vector<uint64_t>{}), 0.0);
  EXPECT_DOUBLE_EQ(ExactJaccard(a, std::vector<uint64_t>{}), 0.0);
}

TEST(ExactJaccardTest, MeetsThresholdToleratesRatioRounding) {
  EXPECT_TRUE(MeetsThreshold(102.0 / 128.0, 0.796875));
  EXPECT_TRUE(MeetsThreshold(0.8, 0.8));
  EXPECT_FALSE(MeetsThreshold(0.79, 0.8));
}

}  // namespace
}  // namespace neardup
