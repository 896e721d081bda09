// Containment candidates (lsh/containment_candidates.h): a document inside
// one several times its size becomes a candidate, whatever the strata they
// fall in and the thread count; unrelated and too-short ones do not.
#include "lsh/containment_candidates.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "sign/minhash.h"
#include "sign/sign.h"
#include "test_util.h"
#include "walk/file_system.h"
#include "walk/walk.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::TempDir;
using testing::WriteFile;

SignedCorpus SignCounted(const Options& options, int threads) {
  Result<WalkedCorpus> walked = WalkCorpus(options);
  EXPECT_TRUE(walked.ok());
  const MinHasher minhasher(options.num_perm, options.seed);
  Workers w{.threads = threads, .tick = {}, .cancel = nullptr};
  SignProgress counts;
  SignContext ctx{options, minhasher, FileSystem::Default(), w, false, counts};
  ctx.count_shingles = true;
  return Sign(ctx, std::move(walked->files));
}

std::vector<std::pair<std::string, std::string>> Names(const SignedCorpus& s, const Candidates& c) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Candidate& p : c.pairs) out.emplace_back(s.table.docs[p.a].name, s.table.docs[p.b].name);
  return out;
}

TEST(ContainmentCandidatesTest, ExcerptsAtEveryRatioUpToTheCapAreCandidates) {
  TempDir dir;
  Options options;
  options.paths = {dir.path()};
  options.relation = Relation::kContains;
  const std::vector<std::string> quote = RandomWords(200, 7, 100000);
  // Containers 1.5, 3, 6 and 7.5 times the quote's size: strata 0 to 3 apart.
  int n = 0;
  for (const double ratio : {1.5, 3.0, 6.0, 7.5}) {
    std::vector<std::string> host = RandomWords(static_cast<size_t>(200 * (ratio - 1)), 100 + n, 100000);
    host.insert(host.begin() + static_cast<long>(host.size() / 3), quote.begin(), quote.end());
    WriteFile(dir / ("host" + std::to_string(n++)), Join(host));
  }
  WriteFile(dir / "quote", Join(quote));
  WriteFile(dir / "other", Join(RandomWords(800, 99, 100000)));
  WriteFile(dir / "short", Join(std::vector<std::string>(quote.begin(), quote.begin() + 30)));  // under 50 shingles
  const std::vector<std::pair<std::string, std::string>> expected = {{dir / "host0", dir / "quote"},
                                                                     {dir / "host1", dir / "quote"},
                                                                     {dir / "host2", dir / "quote"},
                                                                     {dir / "host3", dir / "quote"}};
  std::vector<std::pair<std::string, std::string>> first;
  for (const int threads : {1, 2}) {
    const SignedCorpus s = SignCounted(options, threads);
    const CopyGroups groups = CopyGroups::Build(s.table);
    Result<Candidates> found =
        FindContainmentCandidates(s.table, groups, options, Workers{.threads = threads, .tick = {}, .cancel = nullptr});
    ASSERT_TRUE(found.ok()) << found.status().message();
    // The quote's four pairs; hosts, which share the quote, may be
    // candidates too (host0 is two thirds quote, within --exact's margin of
    // host1); never the unrelated document or the one under --min-contained.
    const auto names = Names(s, *found);
    for (const auto& pair : expected) {
      EXPECT_NE(std::find(names.begin(), names.end(), pair), names.end()) << pair.first << " threads " << threads;
    }
    for (const auto& [a, b] : names) {
      EXPECT_TRUE(a != dir / "other" && b != dir / "other" && a != dir / "short" && b != dir / "short")
          << a << " " << b;
    }
    if (threads == 2) {
      EXPECT_EQ(names, first) << "the thread count changed the candidates";
    }
    first = names;
  }
}

// The shares of the passes (stage bucket's) are disjoint, and together the
// whole: their candidates and visited counts add up to one run's.
TEST(ContainmentCandidatesTest, SharesOfThePassesAddUpToTheWhole) {
  TempDir dir;
  Options options;
  options.paths = {dir.path()};
  options.relation = Relation::kContains;
  for (int q = 0; q < 6; ++q) {
    const std::vector<std::string> quote = RandomWords(60 + 40 * static_cast<size_t>(q), 20 + q, 100000);
    WriteFile(dir / ("quote" + std::to_string(q)), Join(quote));
    for (int h = 0; h < 3; ++h) {
      std::vector<std::string> host =
          RandomWords(quote.size() * static_cast<size_t>(1 + 2 * h), 200 + 10 * q + h, 100000);
      host.insert(host.begin() + static_cast<long>(host.size() / 2), quote.begin(), quote.end());
      WriteFile(dir / ("host" + std::to_string(q) + "_" + std::to_string(h)), Join(host));
    }
  }
  const SignedCorpus s = SignCounted(options, 1);
  const CopyGroups groups = CopyGroups::Build(s.table);
  const Workers workers{.threads = 1, .tick = {}, .cancel = nullptr};
  Result<Candidates> whole = FindContainmentCandidates(s.table, groups, options, workers);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  const auto want = Names(s, *whole);
  ASSERT_GE(want.size(), 18u);  // every quote in each of its hosts
  for (const uint32_t tasks : {2u, 3u, 7u}) {
    std::vector<std::pair<std::string, std::string>> got;
    uint64_t visited = 0;
    for (uint32_t task = 0; task < tasks; ++task) {
      Result<Candidates> part = FindContainmentCandidates(s.table, groups, options, workers, {task, tasks});
      ASSERT_TRUE(part.ok()) << part.status().message();
      visited += part->visited;
      const auto names = Names(s, *part);
      got.insert(got.end(), names.begin(), names.end());
    }
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want) << tasks << " tasks";
    EXPECT_EQ(visited, whole->visited) << tasks << " tasks";
  }
}

TEST(ContainmentCandidatesTest, TheFloorFollowsTheRatioAndTheGuard) {
  Options o;
  // Ratio 4: C = 0.8 means J = 0.8 / 4.2; with --exact, 4 standard errors less.
  const double j = 0.8 / 4.2;
  o.verify = VerifyMode::kSignature;
  EXPECT_DOUBLE_EQ(ContainmentFloor(o, 100, 400), j);
  o.verify = VerifyMode::kExact;
  EXPECT_NEAR(ContainmentFloor(o, 100, 400), j - 4 * std::sqrt(j * (1 - j) / 128), 1e-12);
  EXPECT_GT(ContainmentFloor(o, 100, 110), 1.0);  // ratio under --min-ratio
  EXPECT_GT(ContainmentFloor(o, 100, 900), 1.0);  // over --max-ratio
  EXPECT_GT(ContainmentFloor(o, 40, 200), 1.0);   // under --min-contained
}

}  // namespace
}  // namespace neardup
