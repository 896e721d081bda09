#include "sign/bitmap_gate.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace neardup {
namespace {

constexpr int kBands = 35, kRows = 3, kPerm = kBands * kRows;
constexpr double kFloor = 0.37, kThreshold = 0.5;  // -t 0.5's candidate floor at 128 permutations, about

BitmapGate::Params GateParams(uint64_t docs) {
  return {.bands = kBands, .rows = kRows, .floor = kFloor, .threshold = kThreshold, .bytes = docs * 1000};
}

// Signatures that keep each value of one template with probability `keep`,
// the others drawn at random: two of them agree in about keep^2 of their
// values (0 for keep 0: independent documents).
std::vector<uint32_t> Signature(const std::vector<uint32_t>& templ, double keep, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> coin(0, 1);
  std::vector<uint32_t> s(templ.size());
  for (size_t k = 0; k < s.size(); ++k) s[k] = coin(rng) < keep ? templ[k] : static_cast<uint32_t>(rng());
  return s;
}

// Shows `n` documents of 1000 bytes to the gate.
void ShowDocuments(BitmapGate& gate, size_t n, double keep, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> templ(kPerm);
  for (uint32_t& v : templ) v = static_cast<uint32_t>(rng());
  for (size_t d = 0; d < n; ++d) gate.Signed(Signature(templ, keep, rng), 1000);
}

constexpr size_t kDecided = BitmapGate::kReservoir + BitmapGate::kSample;

// Documents that share a template (mail headers, boilerplate) agree in
// about 0.66^2 = 0.44 of their values: nearly every pair shares a band and
// lies between the floor and the threshold. The bitmaps stay.
TEST(BitmapGateTest, KeepsTheBitmapsWhereManyPairsLieBelowTheThreshold) {
  BitmapGate gate(GateParams(100000));
  ShowDocuments(gate, kDecided, 0.66, 1);
  EXPECT_TRUE(gate.Wanted());
  EXPECT_GT(gate.Estimate(), 1000.0);  // of the 100,000 documents, thousands of partners each
}

// Independent documents share no band: no bitmap can pay, and the
// documents signed after the decision get none.
TEST(BitmapGateTest, StopsTheBitmapsWhereNoPairLiesBelowTheThreshold) {
  BitmapGate gate(GateParams(100000));
  ShowDocuments(gate, kDecided - 1, 0.0, 2);
  EXPECT_TRUE(gate.Wanted());  // not decided yet
  EXPECT_EQ(gate.Estimate(), -1.0);
  ShowDocuments(gate, 1, 0.0, 3);
  EXPECT_FALSE(gate.Wanted());
  EXPECT_EQ(gate.Estimate(), 0.0);
}

// Pairs at or above the threshold (near copies, agreeing in 0.95^2 = 0.9
// of their values) are read again whatever the bitmaps say: they do not
// count.
TEST(BitmapGateTest, NearCopiesAboveTheThresholdDoNotCount) {
  BitmapGate gate(GateParams(100000));
  ShowDocuments(gate, kDecided, 0.95, 4);
  EXPECT_FALSE(gate.Wanted());
  EXPECT_EQ(gate.Estimate(), 0.0);
}

// The estimate scales with the run's size: a few partners among the sample
// of a small run are many per document in a large one.
TEST(BitmapGateTest, TheEstimateScalesWithTheRunsDocuments) {
  std::mt19937_64 rng(5);
  std::vector<uint32_t> templ(kPerm);
  for (uint32_t& v : templ) v = static_cast<uint32_t>(rng());
  BitmapGate small(GateParams(kDecided)), large(GateParams(100 * kDecided));
  // One template document in every 128, the rest independent.
  for (size_t d = 0; d < kDecided; ++d) {
    const std::vector<uint32_t> s = Signature(templ, d % 128 == 0 ? 0.66 : 0.0, rng);
    small.Signed(s, 1000);
    large.Signed(s, 1000);
  }
  ASSERT_GT(small.Estimate(), 0.0);
  EXPECT_NEAR(large.Estimate(), 100 * small.Estimate(), 1e-6 * large.Estimate());
  EXPECT_FALSE(small.Wanted());
  EXPECT_TRUE(large.Wanted());
}

// A run smaller than the reservoir and the sample never decides: every
// document gets its bitmap.
TEST(BitmapGateTest, ASmallRunKeepsEveryBitmap) {
  BitmapGate gate(GateParams(1000));
  ShowDocuments(gate, 1000, 0.0, 6);
  EXPECT_TRUE(gate.Wanted());
  EXPECT_EQ(gate.Estimate(), -1.0);
}

}  // namespace
}  // namespace neardup
