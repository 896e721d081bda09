#include "sign/minhash.h"

#include <gtest/gtest.h>

#include <cmath>

namespace neardup {
namespace {

uint64_t SplitMix(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Two sets over a union of `n` random elements, `common` of them shared:
// J = common / n exactly.
void MakePair(size_t n, size_t common, uint64_t* rng, std::vector<uint64_t>* a, std::vector<uint64_t>* b) {
  a->clear();
  b->clear();
  for (size_t i = 0; i < n; ++i) {
    const uint64_t x = SplitMix(rng);
    if (i < common) {
      a->push_back(x);
      b->push_back(x);
    } else if (i % 2 == 0) {
      a->push_back(x);
    } else {
      b->push_back(x);
    }
  }
}

TEST(MinHasherTest, IdenticalShingleSetsGiveIdenticalSignatures) {
  const MinHasher mh(128, 1);
  uint64_t rng = 5;
  std::vector<uint64_t> a, b;
  MakePair(500, 500, &rng, &a, &b);
  std::reverse(b.begin(), b.end());  // order does not matter
  b.push_back(b[0]);                 // nor repeats
  EXPECT_EQ(mh.Sign(a), mh.Sign(b));
}

TEST(MinHasherTest, SameSeedSameSignatureOtherSeedOther) {
  uint64_t rng = 11;
  std::vector<uint64_t> a, b;
  MakePair(300, 300, &rng, &a, &b);
  EXPECT_EQ(MinHasher(128, 1).Sign(a), MinHasher(128, 1).Sign(a));
  const auto s1 = MinHasher(128, 1).Sign(a);
  const auto s2 = MinHasher(128, 2).Sign(a);
  EXPECT_LT(SignatureAgreement(s1.data(), s2.data(), 128), 0.05);
}

TEST(MinHasherTest, UpdateInBatchesEqualsOneSign) {
  const MinHasher mh(100, 3);  // not a multiple of the 16 lanes
  uint64_t rng = 17;
  std::vector<uint64_t> a, b;
  MakePair(1000, 1000, &rng, &a, &b);
  std::vector<uint32_t> sig(100);
  mh.Init(sig.data());
  for (size_t i = 0; i < a.size(); i += 77) {
    mh.Update(a.data() + i, std::min<size_t>(77, a.size() - i), sig.data());
  }
  EXPECT_EQ(sig, mh.Sign(a));
}

// Over many random pairs of known Jaccard J, the estimate is unbiased and its
// mean absolute error is what a binomial of num_perm trials predicts:
// sigma = sqrt(J(1-J)/num_perm), E|error| = sigma * sqrt(2/pi).
// Tolerance: 15% over the prediction for the mean absolute error, and a
// bias under 4 standard errors of the mean. Fixed seed: deterministic.
TEST(MinHasherTest, EstimateErrorMatchesBinomialPrediction) {
  constexpr int kPerm = 128;
  constexpr int kTrials = 400;
  const MinHasher mh(kPerm, 42);
  uint64_t rng = 2024;
  std::vector<uint64_t> a, b;
  for (double j : {0.1, 0.3, 0.5, 0.7, 0.8, 0.9}) {
    double sum_abs = 0, sum = 0;
    for (int t = 0; t < kTrials; ++t) {
      const size_t n = 400 + static_cast<size_t>(t % 7) * 100;
      MakePair(n, static_cast<size_t>(std::lround(j * static_cast<double>(n))), &rng, &a, &b);
      const auto sa = mh.Sign(a);
      const auto sb = mh.Sign(b);
      const double est = SignatureAgreement(sa.data(), sb.data(), kPerm);
      sum_abs += std::fabs(est - j);
      sum += est - j;
    }
    const double sigma = std::sqrt(j * (1 - j) / kPerm);
    const double mae = sum_abs / kTrials;
    EXPECT_LT(mae, 1.15 * sigma * std::sqrt(2.0 / M_PI)) << "J=" << j;
    EXPECT_LT(std::fabs(sum / kTrials), 4 * sigma / std::sqrt(double{kTrials})) << "J=" << j;
  }
}

TEST(MinHasherTest, DisjointSetsRarelyAgree) {
  const MinHasher mh(256, 9);
  uint64_t rng = 99;
  std::vector<uint64_t> a, b;
  MakePair(2000, 0, &rng, &a, &b);
  const auto sa = mh.Sign(a);
  const auto sb = mh.Sign(b);
  EXPECT_LE(SignatureAgreement(sa.data(), sb.data(), 256), 2.0 / 256);
}

}  // namespace
}  // namespace neardup
