#include "lsh/banding.h"

#include <gtest/gtest.h>

namespace neardup {
namespace {

// MMDS Figure 3.8 (b = 20, r = 5), as printed in the book (3 decimals).
TEST(BandingTest, SCurveMatchesTheBookTable) {
  const double s[] = {0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8};
  const double book[] = {0.006, 0.047, 0.186, 0.470, 0.802, 0.975, 0.9996};
  for (int i = 0; i < 7; ++i) {
    EXPECT_NEAR(CandidateProbability(s[i], 20, 5), book[i], 0.0006) << "s=" << s[i];
  }
  EXPECT_NEAR(ApproximateThreshold(20, 5), 0.5493, 1e-4);
}

TEST(BandingTest, ChosenBandingMeetsTheRecallRuleWithLeastFalseArea) {
  for (double t : {0.5, 0.7, 0.8, 0.9, 0.95}) {
    for (int n : {64, 128, 256}) {
      const Banding b = ChooseBanding(t, n);
      ASSERT_LE(b.bands * b.rows, n);
      EXPECT_GE(CandidateProbability(t, b.bands, b.rows), kTargetRecall) << t << " " << n;
      const double area = FalseCandidateArea(t, b.bands, b.rows);
      for (int r = 1; r <= n; ++r) {
        for (int bb = 1; bb * r <= n; ++bb) {
          if (CandidateProbability(t, bb, r) < kTargetRecall) continue;
          EXPECT_GE(FalseCandidateArea(t, bb, r), area - 1e-12) << "b=" << bb << " r=" << r;
        }
      }
    }
  }
}

TEST(BandingTest, DefaultThresholdGivesSixteenBandsOfSixRows) {
  const Banding b = ChooseBanding(0.8, 128);
  EXPECT_EQ(b.bands, 16);
  EXPECT_EQ(b.rows, 6);
  EXPECT_GE(CandidateProbability(0.8, b.bands, b.rows), 0.99);
  // Below the threshold the curve falls fast: few false candidates at 0.5.
  EXPECT_LT(CandidateProbability(0.5, b.bands, b.rows), 0.3);
}

TEST(BandingTest, UnreachableTargetFallsBackToTheBestCurve) {
  const Banding b = ChooseBanding(0.1, 4);
  EXPECT_EQ(b.rows, 1);
  EXPECT_EQ(b.bands, 4);
}

}  // namespace
}  // namespace neardup
