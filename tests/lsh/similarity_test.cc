#include "lsh/similarity.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "base/hash_sort.h"

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

TEST(OverlapTest, JaccardAndBothContainmentsFromOneCount) {
  const std::vector<uint64_t> a{1, 2, 3, 4};
  const std::vector<uint64_t> b{3, 4, 5};
  const Overlap o = OverlapOf(a, b);
  EXPECT_EQ(o.shared, 2u);
  EXPECT_EQ(o.size_a, 4u);
  EXPECT_EQ(o.size_b, 3u);
  EXPECT_DOUBLE_EQ(o.Jaccard(), 2.0 / 5.0);
  EXPECT_DOUBLE_EQ(o.ContainmentOfA(), 2.0 / 4.0);
  EXPECT_DOUBLE_EQ(o.ContainmentOfB(), 2.0 / 3.0);
  // A set inside another: contained wholly, while its Jaccard is the ratio.
  const std::vector<uint64_t> inner{2, 3};
  const Overlap in = OverlapOf(inner, a);
  EXPECT_DOUBLE_EQ(in.ContainmentOfA(), 1.0);
  EXPECT_DOUBLE_EQ(in.ContainmentOfB(), 0.5);
  EXPECT_DOUBLE_EQ(in.Jaccard(), 0.5);
  const Overlap none = OverlapOf(std::vector<uint64_t>{}, std::vector<uint64_t>{});
  EXPECT_DOUBLE_EQ(none.Jaccard(), 0.0);
  EXPECT_DOUBLE_EQ(none.ContainmentOfA(), 0.0);
  EXPECT_DOUBLE_EQ(OverlapOf(a, std::vector<uint64_t>{}).ContainmentOfA(), 0.0);
}

// From an exact Jaccard and the sizes, SharedFromJaccard gives back the
// intersection that was counted (to rounding), on random sets of very
// different sizes.
TEST(OverlapTest, SharedFromAnExactJaccardIsTheCount) {
  std::mt19937_64 rng(44);
  for (int trial = 0; trial < 200; ++trial) {
    const uint64_t pool = 10 + rng() % 20000;
    std::vector<uint64_t> a, b;
    for (uint64_t x = 0; x < pool; ++x) {
      if (rng() % 3 == 0) a.push_back(x);
      if (rng() % (1 + trial % 7) == 0) b.push_back(x);
    }
    const Overlap o = OverlapOf(a, b);
    EXPECT_NEAR(SharedFromJaccard(o.Jaccard(), o.size_a, o.size_b), static_cast<double>(o.shared), 1e-6);
  }
  EXPECT_DOUBLE_EQ(SharedFromJaccard(1.0, 10, 40), 10.0);  // never more than the smaller set
  EXPECT_DOUBLE_EQ(SharedFromJaccard(0.0, 10, 40), 0.0);
}

// A document of 1,000 shingles inside one of 4,000 (C = 1, J = 0.25): the
// containment estimated from the MinHash agreement (256 permutations, seed
// 44) is within 0.15 of 1, three standard errors of the Jaccard carried
// through |A ∩ B| = J(|A|+|B|)/(1+J).
TEST(OverlapTest, ContainmentFromAMinHashEstimateIsNearTheExactOne) {
  std::mt19937_64 rng(44);
  std::vector<uint64_t> big(4000);
  for (uint64_t& x : big) x = rng();
  std::vector<uint64_t> small(big.begin() + 1500, big.begin() + 2500);
  std::sort(big.begin(), big.end());
  std::sort(small.begin(), small.end());
  const MinHasher mh(256, 44);
  std::vector<uint32_t> sa(256), sb(256);
  mh.Init(sa.data());
  mh.Update(small.data(), small.size(), sa.data());
  mh.Init(sb.data());
  mh.Update(big.data(), big.size(), sb.data());
  const double j = SignatureAgreement(sa.data(), sb.data(), 256);
  EXPECT_NEAR(j, 0.25, 3 * std::sqrt(0.25 * 0.75 / 256));
  const double c = SharedFromJaccard(j, small.size(), big.size()) / static_cast<double>(small.size());
  EXPECT_NEAR(c, 1.0, 0.15);
  EXPECT_DOUBLE_EQ(OverlapOf(small, big).ContainmentOfA(), 1.0);
}

TEST(ExactJaccardTest, MeetsThresholdToleratesRatioRounding) {
  EXPECT_TRUE(MeetsThreshold(102.0 / 128.0, 0.796875));
  EXPECT_TRUE(MeetsThreshold(0.8, 0.8));
  EXPECT_FALSE(MeetsThreshold(0.79, 0.8));
}

// The one rule a candidate pair is accepted by, as LSH and the stage verify
// tasks ask it: an estimate at the floor passes, one 1e-9 below it does not
// (far wider than the rounding MeetsThreshold allows).
TEST(CandidateRuleTest, AcceptsAnEstimateAtTheFloorAndNotBelowIt) {
  Options o;
  o.verify = VerifyMode::kSignature;
  o.threshold = 0.8;
  const CandidateRule rule = CandidateRule::Of(o);
  EXPECT_EQ(rule.floor, 0.8);
  EXPECT_TRUE(rule.Accepts(0.8));
  EXPECT_TRUE(rule.Accepts(0.8 - 1e-13));  // the rounding of a ratio of integers
  EXPECT_FALSE(rule.Accepts(0.8 - 1e-9));
  o.verify = VerifyMode::kNone;
  EXPECT_TRUE(CandidateRule::Of(o).Accepts(0.0));  // every candidate
  o.verify = VerifyMode::kExact;
  EXPECT_EQ(CandidateRule::Of(o).floor, CandidateFloor(o));
  EXPECT_FALSE(CandidateRule::Of(o).Accepts(CandidateFloor(o) - 1e-9));
}

// The bitmap of `set`, sized as for a text of 6 bytes a member.
SetBitmap BitmapOf(const std::vector<uint64_t>& set) {
  SetBitmapBuilder b;
  b.Begin(set.size() * 6);
  b.Add(set);
  return b.Finish(set.size() * 6);
}

// With --exact below -t 1 and a bitmap per document, a pair whose bitmaps
// bound its Jaccard below the threshold is not a candidate, whatever its
// estimate; the same pair is one without bitmaps, in signature mode, or
// when the bitmaps are not one per document.
TEST(CandidateRuleTest, ThePairTheBitmapsRuleOutIsNoCandidate) {
  std::vector<uint64_t> a, b;
  for (uint64_t k = 0; k < 800; ++k) a.push_back(k * 0x9e3779b97f4a7c15ULL);
  for (uint64_t k = 0; k < 800; ++k) b.push_back((k + 5000) * 0xbf58476d1ce4e5b9ULL);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  const std::vector<SetBitmap> bitmaps{BitmapOf(a), BitmapOf(a), BitmapOf(b)};
  std::vector<uint64_t> scratch;
  ASSERT_TRUE(RulesOut(bitmaps[0], bitmaps[2], 0.5, &scratch));
  ASSERT_FALSE(RulesOut(bitmaps[0], bitmaps[1], 0.5, &scratch));
  Options o;
  o.verify = VerifyMode::kExact;
  o.threshold = 0.5;
  const CandidateRule rule = CandidateRule::Of(o, bitmaps, 3);
  EXPECT_FALSE(rule.Accepts(0.9, 0, 2, &scratch));
  EXPECT_TRUE(rule.Accepts(0.9, 0, 1, &scratch));
  EXPECT_FALSE(rule.Accepts(rule.floor - 1e-9, 0, 1, &scratch));
  EXPECT_TRUE(CandidateRule::Of(o).Accepts(0.9, 0, 2, &scratch));
  EXPECT_TRUE(CandidateRule::Of(o, bitmaps, 4).Accepts(0.9, 0, 2, &scratch));
  o.threshold = 1.0;
  EXPECT_TRUE(CandidateRule::Of(o, bitmaps, 3).Accepts(1.0, 0, 2, &scratch));
  o.threshold = 0.5;
  o.verify = VerifyMode::kSignature;
  EXPECT_TRUE(CandidateRule::Of(o, bitmaps, 3).Accepts(0.9, 0, 2, &scratch));
}

// splitmix64: random sets from a fixed seed.
uint64_t Next(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Two sorted unique sets of about `size` random values, sharing about
// `share` of them.
std::pair<std::vector<uint64_t>, std::vector<uint64_t>> RandomPair(uint64_t* rng, size_t size_a, size_t size_b,
                                                                   double share) {
  std::vector<uint64_t> a, b;
  for (size_t i = 0; i < size_a; ++i) {
    const uint64_t v = Next(rng);
    a.push_back(v);
    if (static_cast<double>(Next(rng) % 1000) < share * 1000 && b.size() < size_b) b.push_back(v);
  }
  while (b.size() < size_b) b.push_back(Next(rng));
  for (auto* s : {&a, &b}) {
    std::sort(s->begin(), s->end());
    s->erase(std::unique(s->begin(), s->end()), s->end());
  }
  return {a, b};
}

TEST(JaccardIfReachesTest, AgreesWithExactJaccardOnRandomSets) {
  uint64_t rng = 42;
  int reached = 0, missed = 0;
  for (int round = 0; round < 3000; ++round) {
    const size_t na = Next(&rng) % 300, nb = Next(&rng) % 300;
    const double share = static_cast<double>(Next(&rng) % 1001) / 1000;
    const auto [a, b] = RandomPair(&rng, na, nb, share);
    const double exact = ExactJaccard(a, b);
    for (double t : {0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0, exact}) {
      const double got = JaccardIfReaches(a, b, t);
      ASSERT_EQ(MeetsThreshold(got, t), MeetsThreshold(exact, t)) << round << " t=" << t;
      if (MeetsThreshold(exact, t)) {
        ASSERT_EQ(got, exact) << round << " t=" << t;  // the very same value
        ++reached;
      } else {
        ++missed;
      }
    }
  }
  EXPECT_GT(reached, 3000);  // both sides were tried often
  EXPECT_GT(missed, 3000);
}

// Hashes crowded into part of the range (their top bits zero, or one set
// all below the other): the merge's ranges are not where uniform hashes
// would put them, and the search for their bounds must still find them.
TEST(JaccardIfReachesTest, AgreesWithExactJaccardOnSkewedSets) {
  uint64_t rng = 43;
  for (int round = 0; round < 600; ++round) {
    const size_t na = Next(&rng) % 2000, nb = Next(&rng) % 2000;
    const double share = static_cast<double>(Next(&rng) % 1001) / 1000;
    auto [a, b] = RandomPair(&rng, na, nb, share);
    const int squeeze = std::array<int, 4>{1, 2, 8, 40}[static_cast<size_t>(round % 4)];
    for (auto* s : {&a, &b}) {
      for (uint64_t& v : *s) v >>= squeeze;
      s->erase(std::unique(s->begin(), s->end()), s->end());
    }
    if (round % 8 == 1) {
      for (uint64_t& v : b) v |= uint64_t{1} << 63;  // b above every value of a
    }
    const double exact = ExactJaccard(a, b);
    for (double t : {0.1, 0.5, 0.8, exact}) {
      const double got = JaccardIfReaches(a, b, t);
      ASSERT_EQ(MeetsThreshold(got, t), MeetsThreshold(exact, t)) << round << " t=" << t;
      if (MeetsThreshold(exact, t)) {
        ASSERT_EQ(got, exact) << round << " t=" << t;
      }
    }
  }
}

TEST(JaccardIfReachesTest, EdgeCases) {
  const std::vector<uint64_t> none;
  const std::vector<uint64_t> a{1, 2, 3, 4};
  EXPECT_EQ(JaccardIfReaches(none, none, 0.5), 0.0);
  EXPECT_FALSE(MeetsThreshold(JaccardIfReaches(a, none, 0.5), 0.5));
  EXPECT_EQ(JaccardIfReaches(a, a, 1.0), 1.0);
  // 2 of 5: exactly the threshold 0.4 meets it; 0.41 does not.
  EXPECT_EQ(JaccardIfReaches(a, std::vector<uint64_t>{3, 4, 5}, 0.4), 0.4);
  EXPECT_FALSE(MeetsThreshold(JaccardIfReaches(a, std::vector<uint64_t>{3, 4, 5}, 0.41), 0.41));
  // Sizes too far apart stop at once: 1 of 4 cannot reach 0.5.
  EXPECT_FALSE(MeetsThreshold(JaccardIfReaches(a, std::vector<uint64_t>{2}, 0.5), 0.5));
  EXPECT_EQ(JaccardIfReaches(a, std::vector<uint64_t>{2}, 0.25), 0.25);
}

TEST(SortByHashTest, SortsPlainHashesAsStdSortDoes) {
  uint64_t rng = 7;
  std::vector<uint64_t> scratch;
  std::vector<uint32_t> ends;
  for (size_t n : {0, 1, 100, 255, 256, 1000, 5000, 100000}) {
    std::vector<uint64_t> v;
    for (size_t i = 0; i < n; ++i) v.push_back(i % 7 == 3 && i > 0 ? v[i / 2] : Next(&rng));  // with repeats
    std::vector<uint64_t> want = v;
    std::sort(want.begin(), want.end());
    internal::SortByHash(v, scratch, ends);
    EXPECT_EQ(v, want) << n;
  }
}

// Partitions of every size: all small (placed by rank), and with one or
// more of more than kRankWindow entries (values that share their top bits),
// which are sorted apart.
TEST(SortByHashTest, SortsSkewedHashesAsStdSortDoes) {
  uint64_t rng = 11;
  std::vector<uint64_t> scratch;
  std::vector<uint32_t> ends;
  for (size_t crowded : {0, 5, 33, 40, 300}) {
    for (size_t n : {64, 736, 5000}) {
      std::vector<uint64_t> v;
      for (size_t i = 0; i < n; ++i) v.push_back(i < crowded ? Next(&rng) >> 24 : Next(&rng));
      std::vector<uint64_t> want = v;
      std::sort(want.begin(), want.end());
      internal::SortByHash(v, scratch, ends);
      EXPECT_EQ(v, want) << n << " " << crowded;
    }
  }
}

// ForEachRunOfEqualHashes gives the runs of two or more equal hashes that a
// sort by (hash, id) and a scan give, in the same order, their entries in the
// same order: at sizes around the switch to radix partitions (256), with
// repeats near and far apart, with `crowded` entries sharing their top 24 bits
// (one partition of more than kInsertionSortMax, sorted whole), among them
// `shared` copies of one hash, and past the 16-bit cap on the radix bits.
struct HashedId {
  uint64_t hash;
  uint32_t id;
  bool operator<(const HashedId& o) const { return hash != o.hash ? hash < o.hash : id < o.id; }
  bool operator==(const HashedId& o) const { return hash == o.hash && id == o.id; }
};

TEST(SortByHashTest, RunsOfEqualHashesAreThoseOfTheSortedEntries) {
  uint64_t rng = 13;
  std::vector<HashedId> scratch;
  std::vector<uint32_t> ends;
  for (size_t n : {0, 1, 2, 255, 256, 257, 1000, 4097, 100000, (1 << 19) + 3}) {
    for (const auto& [crowded, shared] : std::vector<std::pair<size_t, size_t>>{{0, 0}, {40, 0}, {60, 20}}) {
      std::vector<HashedId> v;
      for (uint32_t i = 0; i < n; ++i) {
        uint64_t h = Next(&rng);
        if (i < crowded) h = (h >> 24) | (uint64_t{0x5a5a5a} << 40);  // one partition
        if (i < shared) h = uint64_t{0x5a5a5a} << 40;
        if (i % 5 == 4) h = v[i - 1 - Next(&rng) % 3].hash;  // a repeat close by
        if (i % 17 == 9) h = v[Next(&rng) % i].hash;         // a repeat anywhere before
        v.push_back({h, i});
      }
      std::vector<HashedId> sorted = v;
      std::sort(sorted.begin(), sorted.end());
      std::vector<std::vector<HashedId>> want;
      for (size_t lo = 0, hi = 0; lo < sorted.size(); lo = hi) {
        while (hi < sorted.size() && sorted[hi].hash == sorted[lo].hash) ++hi;
        if (hi - lo >= 2)
          want.emplace_back(sorted.begin() + static_cast<ptrdiff_t>(lo), sorted.begin() + static_cast<ptrdiff_t>(hi));
      }
      std::shuffle(v.begin(), v.end(), std::mt19937_64(n));
      std::vector<std::vector<HashedId>> got;
      internal::ForEachRunOfEqualHashes(
          v, scratch, ends, [&](const HashedId* first, size_t count) { got.emplace_back(first, first + count); });
      EXPECT_EQ(got, want) << "n=" << n << " crowded=" << crowded;
      if (n >= 1000) {
        EXPECT_GT(want.size(), n / 10) << "n=" << n;  // the data have runs
      }
    }
  }
}

// RankPartitions' versions place the values of partitioned hashes alike, and
// each partition of at most kRankWindow values lands sorted, repeats
// included; a larger one keeps its values within its range.
TEST(SortByHashTest, RankPartitionsVersionsPlaceAlike) {
  uint64_t rng = 13;
  for (int bits : {1, 4, 8, 11}) {
    for (size_t n : {size_t{1}, size_t{7}, size_t{64}, size_t{736}, size_t{5000}}) {
      const int shift = 64 - bits;
      std::vector<uint64_t> values;
      for (size_t i = 0; i < n; ++i) values.push_back(i % 5 == 4 ? values[i / 3] : Next(&rng));
      // Partitioned as SortByHash leaves them: by top bits, in their order.
      std::stable_sort(values.begin(), values.end(),
                       [&](uint64_t x, uint64_t y) { return (x >> shift) < (y >> shift); });
      std::vector<uint32_t> ends((size_t{1} << bits) + 1, 0);
      for (const uint64_t v : values) ++ends[(v >> shift) + 1];
      for (size_t p = 1; p < ends.size(); ++p) ends[p] += ends[p - 1];
      std::vector<uint64_t> parted = values;
      parted.resize(n + internal::kRankWindow, 0);
      constexpr uint64_t kUnwritten = 0x5eed5eed5eed5eedULL;
      std::vector<uint64_t> portable(n, kUnwritten), vector(n, kUnwritten);
      internal::RankPartitionsPortable(parted.data(), n, ends.data(), shift, portable.data());
      for (size_t p = 0; p + 1 < ends.size(); ++p) {
        std::vector<uint64_t> want(values.begin() + ends[p], values.begin() + ends[p + 1]);
        std::vector<uint64_t> got(portable.begin() + ends[p], portable.begin() + ends[p + 1]);
        std::sort(want.begin(), want.end());
        if (want.size() > internal::kRankWindow) {
          // Placed inside the range, some over others: sorted again later.
          for (const uint64_t v : got) EXPECT_TRUE(v == kUnwritten || v >> shift == p) << bits << " " << n;
        } else {
          EXPECT_EQ(got, want) << bits << " " << n << " " << p;
        }
      }
      if (internal::RankPartitionsAvx2Supported()) {
        std::vector<uint64_t> avx2(n, kUnwritten);
        internal::RankPartitionsAvx2(parted.data(), n, ends.data(), shift, avx2.data());
        EXPECT_EQ(avx2, portable) << bits << " " << n;
      }
      if (!internal::RankPartitionsAvx512Supported()) continue;
      internal::RankPartitionsAvx512(parted.data(), n, ends.data(), shift, vector.data());
      EXPECT_EQ(vector, portable) << bits << " " << n;
    }
  }
}

}  // namespace
}  // namespace neardup
