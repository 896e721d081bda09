#include "report/cluster.h"

#include <gtest/gtest.h>

#include <set>

#include "base/union_find.h"

namespace neardup {
namespace {

std::vector<DocEntry> Docs(std::vector<std::string> names) {
  std::vector<DocEntry> docs;
  for (auto& n : names) {
    DocEntry e;
    e.name = n;
    docs.push_back(e);
  }
  return docs;
}

TEST(UnionFindTest, JoinsAndCountsSets) {
  UnionFind uf(6);
  EXPECT_TRUE(uf.Union(0, 1));
  EXPECT_TRUE(uf.Union(2, 3));
  EXPECT_TRUE(uf.Union(1, 3));
  EXPECT_FALSE(uf.Union(0, 2));
  EXPECT_EQ(uf.Find(0), uf.Find(3));
  EXPECT_NE(uf.Find(0), uf.Find(4));
  EXPECT_EQ(uf.SetSize(2), 4u);
  EXPECT_EQ(uf.SetSize(5), 1u);
}

TEST(ChooseKeepTest, RulesPickByPathSizeAndTimeWithPathTies) {
  auto docs = Docs({"c.txt", "a.txt", "b.txt", "d.txt"});
  docs[0].size = 300; docs[0].mtime_ns = 5;
  docs[1].size = 100; docs[1].mtime_ns = 9;
  docs[2].size = 300; docs[2].mtime_ns = 1;
  docs[3].size = 100; docs[3].mtime_ns = 9;
  const std::vector<DocId> all{0, 1, 2, 3};
  EXPECT_EQ(ChooseKeep(docs, all, KeepRule::kFirst), 0u);     // c.txt: first in input order
  EXPECT_EQ(ChooseKeep(docs, all, KeepRule::kLongest), 2u);   // b.txt beats c.txt on the tie
  EXPECT_EQ(ChooseKeep(docs, all, KeepRule::kShortest), 1u);  // a.txt beats d.txt
  EXPECT_EQ(ChooseKeep(docs, all, KeepRule::kNewest), 1u);    // a.txt beats d.txt
  EXPECT_EQ(ChooseKeep(docs, all, KeepRule::kOldest), 2u);
}

// --keep first: the earliest input (PATH argument as given) wins, then the
// smaller DocId (walk order, line order), whatever the names: FILE:10 is not
// kept over FILE:9, nor id "10" over "9".
TEST(ChooseKeepTest, FirstIsInputOrderNotByteOrder) {
  auto docs = Docs({"f.jsonl:9", "f.jsonl:10", "b/x.txt", "a/y.txt"});
  EXPECT_EQ(ChooseKeep(docs, std::vector<DocId>{0, 1}, KeepRule::kFirst), 0u);
  docs[2].root = 0;  // b/ given first
  docs[3].root = 1;
  EXPECT_EQ(ChooseKeep(docs, std::vector<DocId>{3, 2}, KeepRule::kFirst), 2u);
}

TEST(ChooseKeepTest, ReferenceDocumentIsAlwaysKept) {
  auto docs = Docs({"a.txt", "z.txt"});
  docs[1].reference = true;
  const std::vector<DocId> all{0, 1};
  EXPECT_EQ(ChooseKeep(docs, all, KeepRule::kFirst), 1u);
}

// The chain A~B, B~C with A not like C.
TEST(BuildClustersTest, ChainIsOneClusterWhenConnected) {
  const auto docs = Docs({"a", "b", "c", "x", "y"});
  const std::vector<DocPair> edges{{0, 1}, {1, 2}, {3, 4}};
  const auto clusters = BuildClusters(docs, edges, KeepRule::kFirst, ClusterBy::kConnected, nullptr);
  ASSERT_EQ(clusters.size(), 2u);
  EXPECT_EQ(clusters[0].keep, 0u);
  EXPECT_EQ(clusters[0].members, (std::vector<DocId>{0, 1, 2}));
  EXPECT_EQ(clusters[1].id, 1u);
  EXPECT_EQ(clusters[1].members, (std::vector<DocId>{3, 4}));
}

TEST(BuildClustersTest, ChainSplitsWhenEveryMemberMustMatchTheKeptOne) {
  const auto docs = Docs({"a", "b", "c"});
  const std::set<std::pair<DocId, DocId>> similar{{0, 1}, {1, 0}, {1, 2}, {2, 1}};
  const std::vector<DocPair> edges{{0, 1}, {1, 2}};
  const auto clusters = BuildClusters(docs, edges, KeepRule::kFirst, ClusterBy::kKeep,
                                      [&](DocId k, DocId m) { return similar.count({k, m}) > 0; });
  // a keeps b; c is left alone (not like a), so it forms no cluster.
  ASSERT_EQ(clusters.size(), 1u);
  EXPECT_EQ(clusters[0].members, (std::vector<DocId>{0, 1}));
  // Keeping the longest instead puts b first; then a and c both match b.
  auto docs2 = docs;
  docs2[1].size = 10;
  const auto by_b = BuildClusters(docs2, edges, KeepRule::kLongest, ClusterBy::kKeep,
                                  [&](DocId k, DocId m) { return similar.count({k, m}) > 0; });
  ASSERT_EQ(by_b.size(), 1u);
  EXPECT_EQ(by_b[0].keep, 1u);
  EXPECT_EQ(by_b[0].members, (std::vector<DocId>{0, 1, 2}));
}

TEST(BuildClustersTest, ReferenceOnlyClustersAreDroppedAndReferencesNeverRemovable) {
  auto docs = Docs({"new1", "ref1", "ref2", "ref3"});
  docs[1].reference = docs[2].reference = docs[3].reference = true;
  const std::vector<DocPair> edges{{0, 1}, {2, 3}};
  const auto clusters = BuildClusters(docs, edges, KeepRule::kFirst, ClusterBy::kConnected, nullptr);
  ASSERT_EQ(clusters.size(), 1u);
  EXPECT_EQ(clusters[0].keep, 1u);  // the reference copy is kept
  EXPECT_EQ(Removable(docs, clusters), (std::vector<Removal>{{.doc = 0, .kept = 1, .estimate = 0, .jaccard = -1}}));
}

TEST(BuildClustersTest, ClustersSortedByKeptName) {
  const auto docs = Docs({"m", "n", "b", "c"});
  const std::vector<DocPair> edges{{0, 1}, {2, 3}};
  const auto clusters = BuildClusters(docs, edges, KeepRule::kFirst, ClusterBy::kConnected, nullptr);
  ASSERT_EQ(clusters.size(), 2u);
  EXPECT_EQ(docs[clusters[0].keep].name, "b");
  EXPECT_EQ(docs[clusters[1].keep].name, "m");
}

}  // namespace
}  // namespace neardup
