// The --exact margin: how often a pair at the threshold is dropped before
// its exact check, by simulation against the binomial law of the estimate.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "lsh/similarity.h"
#include "neardup/scan.h"
#include "sign/minhash.h"
#include "test_util.h"
#include "walk/file_system.h"

namespace neardup {
namespace {

// P(X < floor * n) for X ~ Binomial(n, p): the share of pairs of Jaccard p
// whose estimate falls below `floor` (MinHash positions agree independently
// with probability J, for an ideal family).
double BinomialBelow(int n, double p, double floor) {
  double total = 0;
  for (int k = 0; k < n; ++k) {
    if (!(static_cast<double>(k) / n < floor - 1e-12)) break;
    total += std::exp(std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1) + k * std::log(p) +
                      (n - k) * std::log(1 - p));
  }
  return total;
}

// Share of `trials` pairs with Jaccard exactly 0.5 (100 shared shingles, 50
// of each alone) whose estimate lies below `floor`.
double DroppedShare(const MinHasher& mh, int trials, double floor, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int n = mh.num_perm();
  std::vector<uint32_t> sa(static_cast<size_t>(n)), sb(static_cast<size_t>(n));
  int dropped = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<uint64_t> a, b;
    for (int i = 0; i < 100; ++i) {
      const uint64_t x = rng();
      a.push_back(x);
      b.push_back(x);
    }
    for (int i = 0; i < 50; ++i) a.push_back(rng());
    for (int i = 0; i < 50; ++i) b.push_back(rng());
    mh.Init(sa.data());
    mh.Update(a.data(), a.size(), sa.data());
    mh.Init(sb.data());
    mh.Update(b.data(), b.size(), sb.data());
    if (!MeetsThreshold(SignatureAgreement(sa.data(), sb.data(), n), floor)) ++dropped;
  }
  return static_cast<double>(dropped) / trials;
}

TEST(ExactMarginTest, FloorIsTheThresholdLessMarginStandardErrors) {
  Options o;
  o.verify = VerifyMode::kExact;
  o.threshold = 0.5;
  o.num_perm = 128;
  EXPECT_NEAR(CandidateFloor(o), 0.5 - 4 * std::sqrt(0.25 / 128), 1e-12);  // 0.3232
  o.exact_margin = 0;
  EXPECT_EQ(CandidateFloor(o), 0);
  o.verify = VerifyMode::kSignature;
  EXPECT_EQ(CandidateFloor(o), 0.5);
  o.verify = VerifyMode::kNone;
  EXPECT_EQ(CandidateFloor(o), 0);
}

// At a margin of 1 the drop rate is large enough to measure: it must match
// the binomial tail within 4 standard errors of the simulation (seed 7).
TEST(ExactMarginTest, DropRateAtOneSigmaMatchesTheBinomialTail) {
  const MinHasher mh(128, 1);
  Options o;
  o.verify = VerifyMode::kExact;
  o.threshold = 0.5;
  o.exact_margin = 1;
  const double floor = CandidateFloor(o);
  const double expected = BinomialBelow(128, 0.5, floor);
  const int trials = 4000;
  const double seen = DroppedShare(mh, trials, floor, 7);
  const double se = std::sqrt(expected * (1 - expected) / trials);
  EXPECT_NEAR(seen, expected, 4 * se) << "expected " << expected;
}

// At the default margin of 4 the binomial tail is 2.5e-5: 20,000 pairs at
// the threshold lose about 0.5 of a pair; more than 4 (P < 2e-4 under the
// law) fails the test.
TEST(ExactMarginTest, DefaultMarginLosesAlmostNoPairAtTheThreshold) {
  const MinHasher mh(128, 1);
  Options o;
  o.verify = VerifyMode::kExact;
  o.threshold = 0.5;
  const double floor = CandidateFloor(o);
  EXPECT_LT(BinomialBelow(128, 0.5, floor), 1e-4);
  const double seen = DroppedShare(mh, 20000, floor, 8);
  EXPECT_LE(seen * 20000, 4.0);
}

// The real file system, counting opens. Files are opened on the worker
// threads, so the count is atomic.
class CountingFs : public FileSystem {
 public:
  Result<std::unique_ptr<ByteReader>> Open(const std::string& path) override {
    ++opens;
    return FileSystem::Default().Open(path);
  }
  Result<FileStat> Stat(const std::string& path) override { return FileSystem::Default().Stat(path); }
  std::atomic<int> opens{0};
};

// With 128 bands of one row every pair sharing a MinHash value is a
// candidate; a pair of Jaccard about 0.3 at -t 0.9 lies far below the floor,
// so --exact does not read it again. --exact-all (margin 0) checks every
// candidate: at -t 0.9 no bitmap is built to rule it out (kBitmapsBelow), so
// it reads both documents again; at -t 0.5 their bitmaps rule it out
// (PairsTheBitmapsRuleOut...) and nothing is read again.
TEST(ExactMarginTest, CandidatesFarBelowTheThresholdAreNotReadAgain) {
  testing::TempDir dir;
  auto words = testing::RandomWords(400, 31);
  testing::WriteFile(dir / "a.txt", testing::Join(words));
  for (size_t i = 0; i < words.size(); i += 10) words[i] = testing::Numbered("x", static_cast<long long>(i));
  testing::WriteFile(dir / "b.txt", testing::Join(words));
  Options o;
  o.paths = {dir.path()};
  o.verify = VerifyMode::kExact;
  o.threshold = 0.9;
  o.bands = 128;
  o.rows = 1;
  struct Case {
    double threshold, margin;
    int opens;  // 2 to sign; 4 when both are read again
  };
  for (const Case c : {Case{0.9, 4.0, 2}, Case{0.9, 0.0, 4}, Case{0.5, 0.0, 2}}) {
    CountingFs fs;
    RunContext ctx;
    ctx.fs = &fs;
    o.threshold = c.threshold;
    o.exact_margin = c.margin;
    Result<Report> r = FindDuplicates(o, ctx);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->stats.candidates, 1u);
    EXPECT_TRUE(r->pairs.empty());
    EXPECT_EQ(fs.opens.load(), c.opens) << "-t " << c.threshold << ", margin " << c.margin;
  }
}

// The real file system, counting the opens of each file (by name).
class OpensByName : public FileSystem {
 public:
  Result<std::unique_ptr<ByteReader>> Open(const std::string& path) override {
    {
      std::lock_guard<std::mutex> lock(mu);
      ++opens[std::filesystem::path(path).filename().string()];
    }
    return FileSystem::Default().Open(path);
  }
  Result<FileStat> Stat(const std::string& path) override { return FileSystem::Default().Stat(path); }
  std::mutex mu;
  std::map<std::string, int> opens;
};

// --exact-all at -t 0.5, every pair sharing a MinHash value a candidate:
// a and b (every 10th word changed: Jaccard 1/3) have shingle sets whose
// bitmaps cannot reach 0.5, so neither is read again; c and d (every 20th:
// 0.6) are read again and reported. The same pairs as when every candidate
// is read again and merged: a and b are no pair either way.
TEST(ExactMarginTest, PairsTheBitmapsRuleOutAreNotReadAgain) {
  testing::TempDir dir;
  auto words = testing::RandomWords(2000, 41);
  testing::WriteFile(dir / "a.txt", testing::Join(words));
  for (size_t i = 0; i < words.size(); i += 10) words[i] = testing::Numbered("x", static_cast<long long>(i));
  testing::WriteFile(dir / "b.txt", testing::Join(words));
  words = testing::RandomWords(2000, 42);
  testing::WriteFile(dir / "c.txt", testing::Join(words));
  for (size_t i = 0; i < words.size(); i += 20) words[i] = testing::Numbered("y", static_cast<long long>(i));
  testing::WriteFile(dir / "d.txt", testing::Join(words));
  Options o;
  o.paths = {dir.path()};
  o.verify = VerifyMode::kExact;
  o.threshold = 0.5;
  o.bands = 128;
  o.rows = 1;
  o.exact_margin = 0;
  OpensByName fs;
  RunContext ctx;
  ctx.fs = &fs;
  Result<Report> r = FindDuplicates(o, ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_GE(r->stats.candidates, 2u);
  ASSERT_EQ(r->pairs.size(), 1u);
  EXPECT_NEAR((*r->pairs.begin()).jaccard, 0.6, 0.02);
  EXPECT_EQ(fs.opens["a.txt"], 1);
  EXPECT_EQ(fs.opens["b.txt"], 1);
  EXPECT_EQ(fs.opens["c.txt"], 2);
  EXPECT_EQ(fs.opens["d.txt"], 2);
}

}  // namespace
}  // namespace neardup
