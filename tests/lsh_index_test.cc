#include "neardup/lsh_index.h"

#include <gtest/gtest.h>

#include <cmath>
#include <mutex>
#include <set>

#include "neardup/minhash.h"

namespace neardup {
namespace {

uint64_t SplitMix(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Signatures of `pairs` planted set pairs of Jaccard `s` each (rows 2i, 2i+1).
std::vector<uint32_t> PlantedSignatures(const MinHasher& mh, int pairs, double s, uint64_t seed) {
  std::vector<uint32_t> sigs;
  uint64_t rng = seed;
  for (int p = 0; p < pairs; ++p) {
    const size_t n = 500;
    const auto common = static_cast<size_t>(std::lround(s * n));
    std::vector<uint64_t> a, b;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t x = SplitMix(&rng);
      if (i < common) {
        a.push_back(x);
        b.push_back(x);
      } else {
        (i % 2 ? a : b).push_back(x);
      }
    }
    for (const auto& set : {a, b}) {
      const auto sig = mh.Sign(set);
      sigs.insert(sigs.end(), sig.begin(), sig.end());
    }
  }
  return sigs;
}

std::vector<uint32_t> Iota(uint32_t n) {
  std::vector<uint32_t> ids(n);
  for (uint32_t i = 0; i < n; ++i) ids[i] = i;
  return ids;
}

// The MMDS S-curve, observed: with b = 20, r = 5, the share of planted pairs
// of similarity s that become candidates is 1-(1-s^5)^20 within 4 binomial
// standard errors plus 0.01. Fixed seeds.
TEST(LshIndexTest, CandidateShareFollowsTheSCurve) {
  constexpr int kPairs = 400;
  const MinHasher mh(100, 7);
  for (double s : {0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}) {
    const auto sigs = PlantedSignatures(mh, kPairs, s, static_cast<uint64_t>(s * 1000));
    const auto ids = Iota(2 * kPairs);
    LshIndex index(sigs.data(), 100, ids, Banding{20, 5});
    std::mutex mu;
    int planted_found = 0;
    index.ForEachCandidate(2, [&](int, uint32_t a, uint32_t b) {
      if (a % 2 == 0 && b == a + 1) {
        std::lock_guard<std::mutex> lock(mu);
        ++planted_found;
      }
    });
    const double p = CandidateProbability(s, 20, 5);
    const double observed = static_cast<double>(planted_found) / kPairs;
    EXPECT_NEAR(observed, p, 4 * std::sqrt(p * (1 - p) / kPairs) + 0.01) << "s=" << s;
  }
}

TEST(LshIndexTest, PairSharingManyBandsIsVisitedOnce) {
  const MinHasher mh(64, 1);
  std::vector<uint64_t> set{1, 2, 3, 4, 5, 6, 7, 8};
  auto sig = mh.Sign(set);
  std::vector<uint32_t> sigs = sig;
  sigs.insert(sigs.end(), sig.begin(), sig.end());  // identical: shares all 16 bands
  sigs.insert(sigs.end(), sig.begin(), sig.end());
  const auto ids = Iota(3);
  LshIndex index(sigs.data(), 64, ids, Banding{16, 4});
  std::multiset<std::pair<uint32_t, uint32_t>> seen;
  std::mutex mu;
  const uint64_t n = index.ForEachCandidate(4, [&](int, uint32_t a, uint32_t b) {
    std::lock_guard<std::mutex> lock(mu);
    seen.insert({a, b});
  });
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(seen, (std::multiset<std::pair<uint32_t, uint32_t>>{{0, 1}, {0, 2}, {1, 2}}));
}

TEST(LshIndexTest, OnlyIndexedRowsTakePart) {
  const MinHasher mh(32, 1);
  const auto sig = mh.Sign({10, 20, 30});
  std::vector<uint32_t> sigs;
  for (int i = 0; i < 4; ++i) sigs.insert(sigs.end(), sig.begin(), sig.end());
  const std::vector<uint32_t> ids{1, 3};
  LshIndex index(sigs.data(), 32, ids, Banding{8, 4});
  std::vector<std::pair<uint32_t, uint32_t>> seen;
  index.ForEachCandidate(1, [&](int, uint32_t a, uint32_t b) { seen.push_back({a, b}); });
  EXPECT_EQ(seen, (std::vector<std::pair<uint32_t, uint32_t>>{{1, 3}}));
}

TEST(LshIndexTest, LargeBucketIsHandedOverWhole) {
  const MinHasher mh(16, 1);
  const auto sig = mh.Sign({1, 2, 3});
  std::vector<uint32_t> sigs;
  for (int i = 0; i < 50; ++i) sigs.insert(sigs.end(), sig.begin(), sig.end());
  const auto ids = Iota(50);
  LshIndex index(sigs.data(), 16, ids, Banding{4, 4});
  std::mutex mu;
  int pairs = 0;
  std::vector<size_t> buckets;
  index.ForEachCandidate(
      2, [&](int, uint32_t, uint32_t) { ++pairs; }, 10,
      [&](int, std::span<const uint32_t> members) {
        std::lock_guard<std::mutex> lock(mu);
        buckets.push_back(members.size());
        EXPECT_TRUE(std::is_sorted(members.begin(), members.end()));
      });
  EXPECT_EQ(pairs, 0);
  EXPECT_EQ(buckets, (std::vector<size_t>{50, 50, 50, 50}));
}

}  // namespace
}  // namespace neardup
