// Containment banding (lsh/containment_banding.h): the Jaccard a containment
// implies, the strata, and a banding per distance that finds a document
// contained at the threshold with probability at least 0.99 at every ratio
// up to the cap.
#include "lsh/containment_banding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "lsh/banding.h"
#include "lsh/similarity.h"

namespace neardup {
namespace {

// A of 100 shingles, B of 400 sharing 80 of them: C(A, B) = 0.8 at ratio 4,
// and the Jaccard counted is the one the formula gives.
TEST(ContainmentBandingTest, JaccardForContainmentIsTheCountedJaccard) {
  std::vector<uint64_t> a, b;
  for (uint64_t x = 0; x < 100; ++x) a.push_back(x);
  for (uint64_t x = 20; x < 420; ++x) b.push_back(x);
  const Overlap o = OverlapOf(a, b);
  ASSERT_DOUBLE_EQ(o.ContainmentOfA(), 0.8);
  EXPECT_DOUBLE_EQ(JaccardForContainment(0.8, 4.0), o.Jaccard());
  EXPECT_DOUBLE_EQ(JaccardForContainment(1.0, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(JaccardForContainment(0.8, 1.0), 0.8 / 1.2);
}

// Strata of half an octave: k holds [2^(k/2), 2^((k+1)/2)), the boundary
// 2^(e + 1/2) falling between two integers (1448 < 1024 sqrt 2 < 1449).
TEST(ContainmentBandingTest, StrataAreHalfOctaves) {
  EXPECT_EQ(StratumOf(0), 0);
  EXPECT_EQ(StratumOf(1), 0);
  EXPECT_EQ(StratumOf(2), 2);
  EXPECT_EQ(StratumOf(3), 3);  // 2.83 <= 3 < 4
  EXPECT_EQ(StratumOf(4), 4);
  EXPECT_EQ(StratumOf(5), 4);
  EXPECT_EQ(StratumOf(6), 5);
  EXPECT_EQ(StratumOf(1023), 19);
  EXPECT_EQ(StratumOf(1024), 20);
  EXPECT_EQ(StratumOf(1448), 20);
  EXPECT_EQ(StratumOf(1449), 21);
  EXPECT_EQ(StratumOf(uint64_t{3037000499}), 62);  // 2^31.5 = 3037000499.98
  EXPECT_EQ(StratumOf(uint64_t{3037000500}), 63);
  EXPECT_EQ(StratumOf(UINT64_MAX), 127);
  // Against floor(2 log2 n) away from the boundaries.
  for (uint64_t n = 2; n < 5'000'000; n = n * 17 / 16 + 1) {
    const double x = 2 * std::log2(static_cast<double>(n));
    if (std::abs(x - std::round(x)) > 1e-9) {
      EXPECT_EQ(StratumOf(n), static_cast<int>(std::floor(x))) << n;
    }
  }
}

// At -t 0.8 and a cap of 8: distances 0 to 7 (least ratios 1, 1, 1.41, 2,
// 2.83, 4, 5.66, 8), each banded for its largest ratio within the cap; every pair of sizes from 5 to 20,000
// shingles with a ratio up to 8, contained at exactly 0.8, becomes a
// candidate with probability at least 0.99 under the banding of its strata.
TEST(ContainmentBandingTest, EveryRatioUpToTheCapIsFoundAtTheThreshold) {
  for (const int num_perm : {128, 256}) {
    const std::vector<StrataBanding> bands = ContainmentBandings(0.8, 8.0, num_perm);
    ASSERT_EQ(bands.size(), 8u);
    for (const StrataBanding& s : bands) {
      EXPECT_EQ(s.banding.bands, ChooseBanding(s.jaccard, num_perm).bands);
      EXPECT_EQ(s.banding.rows, ChooseBanding(s.jaccard, num_perm).rows);
      EXPECT_LE(s.banding.bands * s.banding.rows, num_perm);
      EXPECT_GE(CandidateProbability(s.jaccard, s.banding.bands, s.banding.rows), kTargetRecall) << s.distance;
    }
    EXPECT_DOUBLE_EQ(bands[7].min_ratio, 8.0);
    EXPECT_DOUBLE_EQ(bands[1].max_ratio, 2.0);
    EXPECT_DOUBLE_EQ(bands[3].max_ratio, 4.0);  // ratios 2 to 4
    EXPECT_DOUBLE_EQ(bands[5].max_ratio, 8.0);  // ratios 4 to 8: 2^3 = 8
    EXPECT_DOUBLE_EQ(bands[6].max_ratio, 8.0);  // ratios 5.66 to 11.3, of which up to the cap
    EXPECT_DOUBLE_EQ(bands[7].max_ratio, 8.0);
    for (uint64_t small = 5; small <= 20000; small = small * 5 / 4 + 1) {
      for (uint64_t large = small; large <= 8 * small; large = large * 9 / 8 + 1) {
        const int d = StratumOf(large) - StratumOf(small);
        const double ratio = static_cast<double>(large) / static_cast<double>(small);
        ASSERT_LT(static_cast<size_t>(d), bands.size()) << small << " " << large;
        EXPECT_LE(ratio, bands[static_cast<size_t>(d)].max_ratio);
        EXPECT_GE(bands[static_cast<size_t>(d)].min_ratio, 0.0);
        EXPECT_GE(ContainmentCandidateProbability(bands, d, 0.8, ratio), kTargetRecall) << small << " " << large;
      }
    }
  }
}

// Beyond the cap nothing is banded: such a containment is out of reach.
TEST(ContainmentBandingTest, StrataBeyondTheCapAreOutOfReach) {
  const std::vector<StrataBanding> bands = ContainmentBandings(0.9, 2.0, 128);
  ASSERT_EQ(bands.size(), 4u);  // least ratios 1, 1, 1.41, 2
  EXPECT_DOUBLE_EQ(ContainmentCandidateProbability(bands, 4, 0.9, 3.0), 0.0);
  EXPECT_DOUBLE_EQ(ContainmentCandidateProbability(bands, -1, 0.9, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(bands[2].max_ratio, 2.0);  // banded up to the cap only
  EXPECT_DOUBLE_EQ(bands[3].max_ratio, 2.0);
  // A larger ratio needs the lower Jaccard, so the bands ask less.
  const std::vector<StrataBanding> wide = ContainmentBandings(0.9, 8.0, 128);
  EXPECT_LT(wide[2].jaccard, wide[0].jaccard);
  EXPECT_LE(wide[2].banding.rows, wide[0].banding.rows);
}

}  // namespace
}  // namespace neardup
