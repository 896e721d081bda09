// BuildPairs()/BuildClustering() (report/build_report.h): pairs and clusters
// as values.
#include "report/build_report.h"

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

std::vector<DocEntry> EntriesOf(const SignatureTable& t) {
  std::vector<DocEntry> out;
  for (const DocRecord& r : t.docs) out.push_back({r.name, r.size, r.mtime_ns, r.reference});
  return out;
}

TEST(BuildReportTest, PairsExpandGroupsAndClustersListRemovableOnce) {
  Fixture f;
  f.options.threshold = 0.7;
  f.options.verify = VerifyMode::kSignature;
  const SignedCorpus s = f.Signed(1);
  CopyGroups g = CopyGroups::Build(s.table);
  const MinHasher minhasher(f.options.num_perm, f.options.seed);
  const Verification rule = VerificationOf(f.options);
  const Workers w;
  RereadProgress reread;
  Result<Verified> verified = VerifyCandidates({f.options, rule, minhasher, FileSystem::Default(), w, reread}, s, &g,
                                               Found(s.table, g, f.options, ChooseBanding(0.7, 128), w));
  ASSERT_TRUE(verified.ok());
  const Verified& v = *verified;
  const std::vector<DocEntry> docs = EntriesOf(s.table);
  Result<PairList> pairs = BuildPairs(g, v.pairs, f.options, docs);
  ASSERT_TRUE(pairs.ok());
  EXPECT_EQ(pairs->pairs.size(), 3u);  // a-b, a-c, b-c
  std::set<std::pair<std::string, std::string>> names;
  for (const auto& p : pairs->pairs) {
    EXPECT_LT(docs[p.a].name, docs[p.b].name);
    names.insert({docs[p.a].name, docs[p.b].name});
  }
  EXPECT_EQ(names.count({f.dir / "a.txt", f.dir / "b.txt"}), 1u);
  EXPECT_EQ(names.count({f.dir / "a.txt", f.dir / "c.txt"}), 1u);

  f.options.mode = Mode::kDuplicates;
  Result<Clustering> built = BuildClustering(g, v, f.options, docs);
  ASSERT_TRUE(built.ok());
  const Clustering& clusters = *built;
  ASSERT_EQ(clusters.clusters.size(), 1u);
  EXPECT_EQ(docs[clusters.clusters[0].keep].name, f.dir / "a.txt");
  ASSERT_EQ(clusters.removable.size(), 2u);
  for (const Removal& r : clusters.removable) {
    EXPECT_EQ(r.kept, clusters.clusters[0].keep);
    EXPECT_GE(r.estimate, 0.7);  // each removable document is like the kept one
    EXPECT_EQ(r.jaccard, -1);    // not computed with --verify signature
  }
}

// Clustering tells how far it is: every kLinkedEvery verified pairs linked.
// 3,000 light edits of one text: more than kLinkedEvery verified pairs.
TEST(BuildReportTest, ClusteringTellsThePairsLinked) {
  Fixture f;
  const auto words = RandomWords(300, 31);
  for (int i = 0; i < 3000; ++i) {
    std::vector<std::string> w = words;
    w[static_cast<size_t>(i % 300)] = "edit" + std::to_string(i);
    WriteFile(f.dir / ("near/" + std::to_string(i) + ".txt"), Join(w));
  }
  f.options.paths = {f.dir / "near"};
  f.options.mode = Mode::kClusters;
  const SignedCorpus s = f.Signed(2);
  CopyGroups g = CopyGroups::Build(s.table);
  const MinHasher minhasher(f.options.num_perm, f.options.seed);
  const Workers w;
  RereadProgress reread;
  Result<Verified> verified =
      VerifyCandidates({f.options, VerificationOf(f.options), minhasher, FileSystem::Default(), w, reread}, s, &g,
                       Found(s.table, g, f.options, ChooseBanding(0.8, 128), w));
  ASSERT_TRUE(verified.ok());
  uint64_t pairs = 0;
  for (const Candidate& c : verified->pairs) pairs += c.a != c.b ? 1 : 0;
  ASSERT_GE(pairs, kLinkedEvery) << "too few pairs for the test";
  std::vector<uint64_t> told;
  Result<Clustering> built =
      BuildClustering(g, *verified, f.options, EntriesOf(s.table), [&told](uint64_t n) { told.push_back(n); });
  ASSERT_TRUE(built.ok());
  ASSERT_EQ(built->clusters.size(), 1u);
  ASSERT_GE(told.size(), 1u);
  for (size_t i = 0; i < told.size(); ++i) EXPECT_EQ(told[i], (i + 1) * kLinkedEvery);
  EXPECT_LE(told.back(), pairs);
  EXPECT_GT(told.back() + kLinkedEvery, pairs);  // every kLinkedEvery, none left out
}

}  // namespace
}  // namespace neardup
