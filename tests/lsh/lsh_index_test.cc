#include "lsh/lsh_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>
#include <vector>

#include "base/hash.h"
#include "sign/minhash.h"

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

// What ForEachCandidate reports, in order: {0, a, b} for a pair, {1, ids...}
// for a large bucket.
using Events = std::vector<std::vector<uint32_t>>;

// Signatures of n rows of bands x rows values, made to share bands a lot: a
// row's band is copied from an earlier row (1 in 4), or, for up to 300 rows,
// drawn from the 2^rows values over {0, 1} (buckets of dozens), or random.
std::vector<uint32_t> SharingSignatures(size_t n, Banding banding, uint64_t seed) {
  const size_t perm = static_cast<size_t>(banding.bands * banding.rows);
  const auto rows = static_cast<size_t>(banding.rows);
  std::vector<uint32_t> sigs(n * perm);
  uint64_t rng = seed;
  for (size_t i = 0; i < n; ++i) {
    for (size_t off = 0; off < perm; off += rows) {
      uint32_t* band = sigs.data() + i * perm + off;
      const uint64_t pick = SplitMix(&rng) % 4;
      if (pick == 0 && i > 0) {
        std::copy_n(sigs.data() + (SplitMix(&rng) % i) * perm + off, rows, band);
      } else {
        for (size_t r = 0; r < rows; ++r) {
          band[r] = static_cast<uint32_t>(i % 7 == 0 && i < 7 * 300 ? SplitMix(&rng) % 2 : SplitMix(&rng));
        }
      }
    }
  }
  return sigs;
}

bool BandsEqual(const uint32_t* sigs, size_t perm, uint32_t a, uint32_t b, size_t off, size_t rows) {
  return std::equal(sigs + a * perm + off, sigs + a * perm + off + rows, sigs + b * perm + off);
}

// ForEachCandidate written plainly: per band, the (hash, id) entries sorted by
// std::sort, runs of equal hashes as buckets, a pair kept in the first band
// whose rows it really shares.
Events ReferenceEvents(const std::vector<uint32_t>& sigs, const std::vector<uint32_t>& ids, Banding banding,
                       size_t large_bucket) {
  const size_t rows = static_cast<size_t>(banding.rows);
  const size_t perm = static_cast<size_t>(banding.bands) * rows;
  Events out;
  for (size_t band = 0; band < static_cast<size_t>(banding.bands); ++band) {
    std::vector<std::pair<uint64_t, uint32_t>> entries;
    for (uint32_t id : ids) entries.push_back({HashBytes(&sigs[id * perm + band * rows], rows * 4, band), id});
    std::sort(entries.begin(), entries.end());
    for (size_t lo = 0, hi = 0; lo < entries.size(); lo = hi) {
      while (hi < entries.size() && entries[hi].first == entries[lo].first) ++hi;
      if (hi - lo > large_bucket) {
        out.push_back({1});
        for (size_t k = lo; k < hi; ++k) out.back().push_back(entries[k].second);
        continue;
      }
      for (size_t x = lo; x < hi; ++x) {
        for (size_t y = x + 1; y < hi; ++y) {
          const uint32_t a = entries[x].second, b = entries[y].second;
          bool first = BandsEqual(sigs.data(), perm, a, b, band * rows, rows);
          for (size_t e = 0; e < band && first; ++e) first = !BandsEqual(sigs.data(), perm, a, b, e * rows, rows);
          if (first) out.push_back({0, a, b});
        }
      }
    }
  }
  return out;
}

Events IndexEvents(const std::vector<uint32_t>& sigs, const std::vector<uint32_t>& ids, Banding banding,
                   size_t large_bucket, int threads, uint64_t* visited) {
  LshIndex index(sigs.data(), banding.bands * banding.rows, ids, banding);
  std::mutex mu;
  Events out;
  *visited = index.ForEachCandidate(
      threads,
      [&](int, uint32_t a, uint32_t b) {
        std::lock_guard<std::mutex> lock(mu);
        out.push_back({0, a, b});
      },
      large_bucket,
      [&](int, std::span<const uint32_t> members) {
        std::lock_guard<std::mutex> lock(mu);
        out.push_back({1});
        out.back().insert(out.back().end(), members.begin(), members.end());
      });
  return out;
}

// The grouping of equal band hashes matches a plain std::sort, event for
// event and in the same order on one thread, at sizes around the switch to
// radix partitioning (256) and past its 16-bit cap (2^19), with every row
// indexed in order, or half of them shuffled.
TEST(LshIndexTest, MatchesThePlainSortReference) {
  const Banding banding{3, 2};
  constexpr size_t kLarge = 20;
  for (size_t n : {0, 1, 2, 3, 255, 256, 257, 1000, 4097, 1 << 17, (1 << 19) + 1}) {
    const auto sigs = SharingSignatures(n, banding, n + 1);
    std::vector<uint32_t> all(n), half;
    for (size_t i = 0; i < n; ++i) all[i] = static_cast<uint32_t>(i);
    uint64_t rng = n;
    for (size_t i = 0; i < n; i += 2) half.push_back(static_cast<uint32_t>(i));
    for (size_t i = half.size(); i > 1; --i) std::swap(half[i - 1], half[SplitMix(&rng) % i]);
    for (const auto* ids : {&all, &half}) {
      const Events want = ReferenceEvents(sigs, *ids, banding, kLarge);
      uint64_t visited = 0;
      EXPECT_EQ(IndexEvents(sigs, *ids, banding, kLarge, 1, &visited), want) << "n=" << n;
      const auto pairs = std::count_if(want.begin(), want.end(), [](const auto& e) { return e[0] == 0; });
      if (n >= 1000) {  // the data exercise both kinds of bucket
        EXPECT_GT(pairs, 100) << "n=" << n;
        EXPECT_LT(pairs, static_cast<ptrdiff_t>(want.size())) << "n=" << n;
      }
      EXPECT_EQ(visited, static_cast<uint64_t>(pairs)) << "n=" << n;
      Events two = IndexEvents(sigs, *ids, banding, kLarge, 2, &visited);
      Events sorted_want = want;
      std::sort(two.begin(), two.end());
      std::sort(sorted_want.begin(), sorted_want.end());
      EXPECT_EQ(two, sorted_want) << "n=" << n;
    }
  }
}

}  // namespace
}  // namespace neardup
