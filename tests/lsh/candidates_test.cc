// FindCandidates() (lsh/candidates.h): LSH, the bitmaps' bound (at once, or
// after banding: RuleOutByBitmaps), large buckets.
#include "lsh/candidates.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "lsh/copy_groups.h"
#include "neardup/scan.h"
#include "report/build_report.h"
#include "report/cluster.h"
#include "sign/minhash.h"
#include "sign/sign.h"
#include "sign/sign_internal.h"
#include "sign_fixture.h"
#include "test_util.h"
#include "text/jsonl.h"
#include "verify/verify_candidates.h"
#include "walk/walk.h"

namespace neardup {
namespace {

using testing::Edited;
using testing::Found;
using testing::Join;
using testing::RandomWords;
using testing::TempDir;
using testing::WriteFile;
using Fixture = testing::Fixture;

TEST(CandidatesTest, FindsTheEditedCopyOnlyAndTheSameForEveryThreadCount) {
  Fixture f;
  const SignedCorpus s = f.Signed(1);
  const CopyGroups g = CopyGroups::Build(s.table);
  f.options.threshold = 0.7;
  const Banding banding = ChooseBanding(f.options.threshold, f.options.num_perm);
  const Candidates one = Found(s.table, g, f.options, banding, Workers{.threads = 1, .tick = {}, .cancel = nullptr});
  const std::vector<Candidate> p = one.pairs.ToVector();
  ASSERT_EQ(p.size(), 1u);
  const DocId rep_ab = g.rep_of(f.Id(s, "a.txt"));
  EXPECT_EQ(std::set<DocId>({p[0].a, p[0].b}), std::set<DocId>({rep_ab, f.Id(s, "c.txt")}));
  EXPECT_LT(p[0].a, p[0].b);
  EXPECT_GT(p[0].estimate, 0.7);
  EXPECT_EQ(p[0].jaccard, -1);
  const Candidates three = Found(s.table, g, f.options, banding, Workers{.threads = 3, .tick = {}, .cancel = nullptr});
  ASSERT_EQ(three.pairs.ToVector().size(), 1u);
  EXPECT_EQ(three.visited, one.visited);
}

// --exact-all at -t 0.5 with 128 bands of one row: p and q (every 10th word
// changed: Jaccard 1/3) and r and s (every 20th: 0.6) share MinHash values,
// so both pairs are candidates without bitmaps. With the bitmaps Sign()
// builds for --exact, p and q cannot reach 0.5 and are not kept; r and s
// are, as with every thread count.
TEST(CandidatesTest, PairsTheBitmapsRuleOutAreNotKept) {
  Fixture f;
  auto words = RandomWords(2000, 41);
  WriteFile(f.dir / "p.txt", Join(words));
  for (size_t i = 0; i < words.size(); i += 10) words[i] = testing::Numbered("x", static_cast<long long>(i));
  WriteFile(f.dir / "q.txt", Join(words));
  words = RandomWords(2000, 42);
  WriteFile(f.dir / "r.txt", Join(words));
  for (size_t i = 0; i < words.size(); i += 20) words[i] = testing::Numbered("y", static_cast<long long>(i));
  WriteFile(f.dir / "s.txt", Join(words));
  f.options.verify = VerifyMode::kExact;
  f.options.threshold = 0.5;
  f.options.exact_margin = 0;
  const Banding banding{.bands = 128, .rows = 1};
  const SignedCorpus s = f.Signed(2);
  ASSERT_EQ(s.bitmaps.size(), s.table.docs.size());
  const CopyGroups g = CopyGroups::Build(s.table);
  const DocId p = f.Id(s, "p.txt"), q = f.Id(s, "q.txt"), r = f.Id(s, "r.txt"), t = f.Id(s, "s.txt");
  auto has = [](const std::vector<Candidate>& pairs, DocId x, DocId y) {
    return std::any_of(pairs.begin(), pairs.end(),
                       [&](const Candidate& c) { return (c.a == x && c.b == y) || (c.a == y && c.b == x); });
  };
  const Workers two{.threads = 2, .tick = {}, .cancel = nullptr};
  const std::vector<Candidate> all = Found(s.table, g, f.options, banding, two).pairs.ToVector();
  EXPECT_TRUE(has(all, p, q));
  EXPECT_TRUE(has(all, r, t));
  for (const int threads : {1, 2, 3}) {
    const Workers w{.threads = threads, .tick = {}, .cancel = nullptr};
    Result<Candidates> bounded = FindCandidates(s.table, g, f.options, banding, w, s.bitmaps);
    ASSERT_TRUE(bounded.ok()) << bounded.status().message();
    const std::vector<Candidate> kept = bounded->pairs.ToVector();
    EXPECT_FALSE(has(kept, p, q)) << threads;
    EXPECT_TRUE(has(kept, r, t)) << threads;
    EXPECT_LT(kept.size(), all.size()) << threads;
    EXPECT_EQ(bounded->visited, Found(s.table, g, f.options, banding, w).visited) << threads;
  }
  // The bitmaps given after banding (RuleOutByBitmaps, as an --index run
  // reads them) keep what FindCandidates() keeps with them at once.
  Result<Candidates> after =
      RuleOutByBitmaps(Found(s.table, g, f.options, banding, two), f.options, s.bitmaps, s.table.docs.size());
  ASSERT_TRUE(after.ok()) << after.status().message();
  Result<Candidates> at_once = FindCandidates(s.table, g, f.options, banding, two, s.bitmaps);
  ASSERT_TRUE(at_once.ok());
  const std::vector<Candidate> kept_after = after->pairs.ToVector(), kept_at_once = at_once->pairs.ToVector();
  EXPECT_FALSE(has(kept_after, p, q));
  EXPECT_TRUE(has(kept_after, r, t));
  ASSERT_EQ(kept_after.size(), kept_at_once.size());
  for (size_t k = 0; k < kept_after.size(); ++k) {
    EXPECT_EQ(kept_after[k].a, kept_at_once[k].a);
    EXPECT_EQ(kept_after[k].b, kept_at_once[k].b);
  }
  EXPECT_EQ(after->visited, at_once->visited);
}

// 300 documents that agree in every band: in pairs mode all 44,850 pairs are
// candidates; in cluster mode the bucket goes to leaders and stays linear.
TEST(CandidatesTest, LargeBucketsGoToLeadersInClusterModes) {
  const int n = 300;
  SignatureTable table(16);
  for (int i = 0; i < n; ++i) {
    DocRecord r;
    r.kind = DocKind::kOk;
    r.content = {static_cast<uint64_t>(i), 0};
    const DocId id = table.Add(r);
    for (int k = 0; k < 16; ++k) table.MutableSignature(id)[k] = k < 15 ? 7u : static_cast<uint32_t>(i);
  }
  const CopyGroups g = CopyGroups::Build(table);
  Options o;
  o.num_perm = 16;
  o.threshold = 0.9;
  const Banding banding{1, 8};
  const Workers w{.threads = 2, .tick = {}, .cancel = nullptr};
  o.mode = Mode::kPairs;
  EXPECT_EQ(Found(table, g, o, banding, w).pairs.ToVector().size(), static_cast<size_t>(n * (n - 1) / 2));
  o.mode = Mode::kClusters;
  const Candidates led = Found(table, g, o, banding, w);
  EXPECT_EQ(led.pairs.ToVector().size(), static_cast<size_t>(n - 1));  // 15/16 agree: all join the first leader
  for (const Candidate& c : led.pairs) EXPECT_EQ(c.a, 0u);
}

}  // namespace
}  // namespace neardup
