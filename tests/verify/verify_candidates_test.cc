// VerifyCandidates() (verify/verify_candidates.h): --verify signature and
// exact, pairs checked while their documents are read.
#include "verify/verify_candidates.h"

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

#include "lsh/candidates.h"
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

TEST(VerifyTest, SignatureModeAcceptsTheCandidatesAsFound) {
  Fixture f;
  const SignedCorpus s = f.Signed(1);
  CopyGroups g = CopyGroups::Build(s.table);
  f.options.threshold = 0.7;
  Candidates c = Found(s.table, g, f.options, ChooseBanding(0.7, 128), Workers{});
  const std::vector<Candidate> found = c.pairs.ToVector();
  const MinHasher minhasher(f.options.num_perm, f.options.seed);
  const Verification rule = VerificationOf(f.options);
  const Workers w;
  RereadProgress reread;
  Result<Verified> verified =
      VerifyCandidates({f.options, rule, minhasher, FileSystem::Default(), w, reread}, s, &g, std::move(c));
  ASSERT_TRUE(verified.ok());
  const Verified& v = *verified;
  const std::vector<Candidate> accepted = v.pairs.ToVector();
  ASSERT_EQ(accepted.size(), 1u);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(accepted[0].estimate, found[0].estimate);
  EXPECT_TRUE(v.Similar(f.Id(s, "a.txt"), f.Id(s, "b.txt")));
  EXPECT_TRUE(v.Similar(f.Id(s, "a.txt"), f.Id(s, "c.txt")));
  EXPECT_FALSE(v.Similar(f.Id(s, "a.txt"), f.Id(s, "d.txt")));
}

TEST(VerifyTest, ExactModeMeasuresJaccardAndLeavesOutAFileChangedSinceSigning) {
  Fixture f;
  f.options.verify = VerifyMode::kExact;
  f.options.threshold = 0.7;
  const SignedCorpus s = f.Signed(2, true);
  CopyGroups g = CopyGroups::Build(s.table);
  Candidates c = Found(s.table, g, f.options, ChooseBanding(0.7, 128), Workers{});
  ASSERT_EQ(c.pairs.ToVector().size(), 1u);
  // b.txt changes after signing (new size): it is left out of its group.
  WriteFile(f.dir / "b.txt", "changed now");
  const MinHasher minhasher(f.options.num_perm, f.options.seed);
  const Verification rule = VerificationOf(f.options);
  const Workers w{.threads = 2, .tick = {}, .cancel = nullptr};
  RereadProgress reread;
  Result<Verified> verified =
      VerifyCandidates({f.options, rule, minhasher, FileSystem::Default(), w, reread}, s, &g, std::move(c));
  ASSERT_TRUE(verified.ok());
  // The documents of the candidate pair's groups were read again, and counted.
  EXPECT_GE(reread.total.load(), 2u);
  EXPECT_EQ(reread.done.load(), reread.total.load());
  const Verified& v = *verified;
  ASSERT_EQ(v.left_out.size(), 1u);
  EXPECT_EQ(v.left_out[0].first, f.Id(s, "b.txt"));
  EXPECT_EQ(g.rep_of(f.Id(s, "b.txt")), CopyGroups::kNone);
  const std::vector<Candidate> accepted = v.pairs.ToVector();
  ASSERT_EQ(accepted.size(), 1u);
  EXPECT_GT(accepted[0].jaccard, 0.7);
  EXPECT_LT(accepted[0].jaccard, 1.0);
}

// Pairs mode needs no shingle set after verification (keep_sets false): the
// pairs of two documents alone in their groups are then checked while the
// documents are read, and their sets are given back. Ten families of a text
// and three edits of it (every 15th, 25th and 40th word: Jaccard 0.35 to
// 0.8, several pairs a document), one family whose text is also copied (a group of
// two, whose pairs are checked after the reads as before), and one edit
// changed after signing: the same pairs, Jaccard values and left-out
// document as when every set is kept, with 1, 2 and 3 threads; the sets kept
// are only those of the copy group's family. Past the budget, all are kept.
TEST(VerifyTest, PairsOfLoneDocumentsAreCheckedWhileReadAndTheirSetsGivenBack) {
  TempDir dir;
  Options o;
  o.paths = {dir.path()};
  o.verify = VerifyMode::kExact;
  o.threshold = 0.4;
  o.exact_margin = 0;
  for (int f = 0; f < 11; ++f) {
    const auto words = RandomWords(300, 100 + static_cast<uint32_t>(f));
    const std::string family = "f" + std::to_string(f);
    WriteFile(dir / (family + "-0.txt"), Join(words));
    for (const size_t every : {15, 25, 40})
      WriteFile(dir / (family + "-e" + std::to_string(every) + ".txt"), Edited(words, every));
    if (f == 10) WriteFile(dir / (family + "-copy.txt"), Join(words));
  }
  const MinHasher minhasher(o.num_perm, o.seed);
  const Workers sign_workers{.threads = 2, .tick = {}, .cancel = nullptr};
  SignProgress counts;
  Result<WalkedCorpus> walked = WalkCorpus(o);
  ASSERT_TRUE(walked.ok());
  const SignedCorpus s =
      Sign({o, minhasher, FileSystem::Default(), sign_workers, false, counts}, std::move(walked->files));
  WriteFile(dir / "f4-e25.txt", "changed after signing");
  auto id = [&](const std::string& name) {
    for (DocId i = 0; i < s.table.docs.size(); ++i) {
      if (s.table.docs[i].name == dir / name) return i;
    }
    ADD_FAILURE() << name;
    return DocId{0};
  };
  const Verification rule = VerificationOf(o);
  const Banding banding{.bands = 64, .rows = 2};
  struct Outcome {
    std::vector<Candidate> pairs;
    std::vector<DocId> left_out;
    std::set<DocId> sets;
  };
  auto verify = [&](bool keep_sets, int threads) {
    const Workers w{.threads = threads, .tick = {}, .cancel = nullptr};
    CopyGroups g = CopyGroups::Build(s.table);
    Result<Candidates> c = FindCandidates(s.table, g, o, banding, w);
    EXPECT_TRUE(c.ok());
    RereadProgress reread;
    VerifyContext ctx{o, rule, minhasher, FileSystem::Default(), w, reread};
    ctx.keep_sets = keep_sets;
    Result<Verified> v = VerifyCandidates(ctx, s, &g, std::move(*c));
    EXPECT_TRUE(v.ok()) << v.status().message();
    Outcome out;
    if (!v.ok()) return out;
    out.pairs = v->pairs.ToVector();
    for (const auto& [doc, why] : v->left_out) out.left_out.push_back(doc);
    for (const auto& [doc, set] : v->sets()) {
      EXPECT_FALSE(set.empty());
      out.sets.insert(doc);
    }
    return out;
  };
  const Outcome kept = verify(true, 2);
  EXPECT_GE(kept.pairs.size(), 30u);
  EXPECT_EQ(kept.left_out, std::vector<DocId>{id("f4-e25.txt")});
  const DocId copy_rep = std::min(id("f10-0.txt"), id("f10-copy.txt"));
  for (const Candidate& p : kept.pairs) {
    EXPECT_NE(p.a, id("f4-e25.txt"));
    EXPECT_NE(p.b, id("f4-e25.txt"));
  }
  auto family_of = [&](DocId d) {
    return std::filesystem::path(s.table.docs[d].name).filename().string().substr(0, 3);
  };
  for (const int threads : {1, 2, 3}) {
    const Outcome streamed = verify(false, threads);
    ASSERT_EQ(streamed.pairs.size(), kept.pairs.size()) << threads;
    for (size_t k = 0; k < kept.pairs.size(); ++k) {
      EXPECT_EQ(streamed.pairs[k].a, kept.pairs[k].a);
      EXPECT_EQ(streamed.pairs[k].b, kept.pairs[k].b);
      EXPECT_EQ(streamed.pairs[k].jaccard, kept.pairs[k].jaccard);
      EXPECT_EQ(streamed.pairs[k].estimate, kept.pairs[k].estimate);
    }
    EXPECT_EQ(streamed.left_out, kept.left_out) << threads;
    EXPECT_TRUE(streamed.sets.count(copy_rep)) << threads;
    for (const DocId d : streamed.sets) {
      EXPECT_TRUE(kept.sets.count(d)) << d << " with " << threads;
      EXPECT_EQ(family_of(d), "f10") << d << " with " << threads;  // the copy group's family
    }
    EXPECT_GE(kept.sets.size(), streamed.sets.size() + 25) << threads;
  }
  // Past a quarter of the pair budget at 32 bytes a pair (here 8 pairs),
  // nothing is streamed: every set is kept, and the pairs are the same.
  o.pair_memory = 4 * 32 * 8;
  const Outcome over = verify(false, 2);
  EXPECT_EQ(over.sets, kept.sets);
  ASSERT_EQ(over.pairs.size(), kept.pairs.size());
  for (size_t k = 0; k < kept.pairs.size(); ++k) EXPECT_EQ(over.pairs[k].jaccard, kept.pairs[k].jaccard);
}

}  // namespace
}  // namespace neardup
