#include "report/cluster.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>

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

// BuildClusters, whose result must be a value.
std::vector<Cluster> Clusters(const std::vector<DocEntry>& docs, std::span<const DocPair> edges, KeepRule rule,
                              ClusterBy by, const SimilarFn& similar) {
  Result<std::vector<Cluster>> out = BuildClusters(docs, edges, rule, by, similar);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? std::move(*out) : std::vector<Cluster>{};
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
  docs[0].size = 300;
  docs[0].mtime_ns = 5;
  docs[1].size = 100;
  docs[1].mtime_ns = 9;
  docs[2].size = 300;
  docs[2].mtime_ns = 1;
  docs[3].size = 100;
  docs[3].mtime_ns = 9;
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
  const auto clusters = Clusters(docs, edges, KeepRule::kFirst, ClusterBy::kConnected, nullptr);
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
  const auto clusters = Clusters(docs, edges, KeepRule::kFirst, ClusterBy::kKeep, [&](DocId k, DocId m) {
    return similar.count({k, m}) > 0;
  });
  // a keeps b; c is left alone (not like a), so it forms no cluster.
  ASSERT_EQ(clusters.size(), 1u);
  EXPECT_EQ(clusters[0].members, (std::vector<DocId>{0, 1}));
  // Keeping the longest instead puts b first; then a and c both match b.
  auto docs2 = docs;
  docs2[1].size = 10;
  const auto by_b = Clusters(docs2, edges, KeepRule::kLongest, ClusterBy::kKeep, [&](DocId k, DocId m) {
    return similar.count({k, m}) > 0;
  });
  ASSERT_EQ(by_b.size(), 1u);
  EXPECT_EQ(by_b[0].keep, 1u);
  EXPECT_EQ(by_b[0].members, (std::vector<DocId>{0, 1, 2}));
}

TEST(BuildClustersTest, ReferenceOnlyClustersAreDroppedAndReferencesNeverRemovable) {
  auto docs = Docs({"new1", "ref1", "ref2", "ref3"});
  docs[1].reference = docs[2].reference = docs[3].reference = true;
  const std::vector<DocPair> edges{{0, 1}, {2, 3}};
  const auto clusters = Clusters(docs, edges, KeepRule::kFirst, ClusterBy::kConnected, nullptr);
  ASSERT_EQ(clusters.size(), 1u);
  EXPECT_EQ(clusters[0].keep, 1u);  // the reference copy is kept
  EXPECT_EQ(Removable(docs, clusters), (std::vector<Removal>{{.doc = 0, .kept = 1, .estimate = 0, .jaccard = -1}}));
}

TEST(BuildClustersTest, ClustersSortedByKeptName) {
  const auto docs = Docs({"m", "n", "b", "c"});
  const std::vector<DocPair> edges{{0, 1}, {2, 3}};
  const auto clusters = Clusters(docs, edges, KeepRule::kFirst, ClusterBy::kConnected, nullptr);
  ASSERT_EQ(clusters.size(), 2u);
  EXPECT_EQ(docs[clusters[0].keep].name, "b");
  EXPECT_EQ(docs[clusters[1].keep].name, "m");
}

// The peel-off --cluster-by keep was first written as, kept as the reference
// the fast one must agree with: in each connected component, keep the best
// document left, take every document left that is similar to it, repeat. It
// asks `similar` of every pair of a component, quadratic in its size.
std::vector<Cluster> PeelOffClusters(const std::vector<DocEntry>& docs, const std::vector<DocPair>& edges,
                                     KeepRule rule, const SimilarFn& similar) {
  UnionFind components(docs.size());
  std::vector<uint8_t> linked(docs.size(), 0);
  for (const auto& [a, b] : edges) {
    components.Union(a, b);
    linked[a] = linked[b] = 1;
  }
  std::map<uint32_t, std::vector<DocId>> by_root;
  for (DocId d = 0; d < docs.size(); ++d) {
    if (linked[d] != 0) by_root[components.Find(d)].push_back(d);
  }
  auto by_name = [&](DocId x, DocId y) { return docs[x].name != docs[y].name ? docs[x].name < docs[y].name : x < y; };
  std::vector<Cluster> clusters;
  for (auto& [root, rest] : by_root) {
    while (rest.size() >= 2) {
      const DocId keep = ChooseKeep(docs, rest, rule);
      std::vector<DocId> members{keep};
      std::vector<DocId> left;
      for (DocId m : rest) {
        if (m == keep) continue;
        (similar(keep, m) ? members : left).push_back(m);
      }
      const bool any_new = std::any_of(members.begin(), members.end(), [&](DocId d) { return !docs[d].reference; });
      if (members.size() >= 2 && any_new) {
        std::sort(members.begin(), members.end(), by_name);
        clusters.push_back({.id = 0, .keep = keep, .members = members});
      }
      rest = std::move(left);
    }
  }
  std::sort(clusters.begin(), clusters.end(),
            [&](const Cluster& x, const Cluster& y) { return by_name(x.keep, y.keep); });
  for (size_t i = 0; i < clusters.size(); ++i) clusters[i].id = static_cast<uint32_t>(i);
  return clusters;
}

// A graph to cluster as a run gives it: groups of copies (each joined to its
// first member, as BuildClustering joins them), pairs between groups, and a
// judgement that is a function of the groups: copies are similar, two linked
// groups are similar or not, two groups never linked are never asked about.
struct Graph {
  std::vector<DocEntry> docs;
  std::vector<uint32_t> group;  // per document
  std::vector<DocPair> copies;  // member -> first member of its group
  std::vector<DocPair> pairs;   // between groups
  std::set<std::pair<uint32_t, uint32_t>> similar_groups;

  bool Similar(DocId x, DocId y) const {
    const uint32_t a = std::min(group[x], group[y]);
    const uint32_t b = std::max(group[x], group[y]);
    return a == b || similar_groups.count({a, b}) > 0;
  }
  std::vector<DocPair> AllEdges() const {
    std::vector<DocPair> all = copies;
    all.insert(all.end(), pairs.begin(), pairs.end());
    return all;
  }
};

// n documents with random names, sizes, times and reference marks, in
// groups of one to three copies; `link` decides which groups are paired.
template <typename LinkFn>
Graph MakeGraph(uint32_t n_groups, std::mt19937_64& rng, double p_similar, LinkFn link) {
  Graph g;
  std::vector<std::vector<DocId>> members(n_groups);
  for (uint32_t k = 0; k < n_groups; ++k) {
    const uint32_t copies = 1 + static_cast<uint32_t>(rng() % 4 == 0 ? 1 + rng() % 2 : 0);
    for (uint32_t c = 0; c < copies; ++c) {
      const auto d = static_cast<DocId>(g.docs.size());
      DocEntry e;
      e.name = "d" + std::to_string(rng() % (3 * n_groups + 3));  // equal names happen
      e.size = rng() % 5;
      e.mtime_ns = static_cast<int64_t>(rng() % 5);
      e.reference = rng() % 6 == 0;
      e.root = static_cast<uint32_t>(rng() % 2);
      g.docs.push_back(e);
      g.group.push_back(k);
      if (!members[k].empty()) g.copies.emplace_back(members[k][0], d);
      members[k].push_back(d);
    }
  }
  std::uniform_real_distribution<double> unit(0, 1);
  for (uint32_t a = 0; a < n_groups; ++a) {
    for (uint32_t b = a + 1; b < n_groups; ++b) {
      if (!link(a, b)) continue;
      // Any member of each group may stand for it in the pair.
      const DocId x = members[a][rng() % members[a].size()];
      const DocId y = members[b][rng() % members[b].size()];
      g.pairs.emplace_back(rng() % 2 == 0 ? DocPair{x, y} : DocPair{y, x});
      if (unit(rng) < p_similar) g.similar_groups.insert({a, b});
    }
  }
  return g;
}

// What BuildClusters gives when the copies are given as such.
std::vector<Cluster> FastClusters(const Graph& g, KeepRule rule) {
  ClusterLinks links(g.docs.size(), ClusterBy::kKeep, 1 << 10);  // small: sorted runs go to disk
  for (const auto& [a, b] : g.copies) links.Copies(a, b);
  for (const auto& [a, b] : g.pairs) EXPECT_TRUE(links.Link(a, b).ok());
  Result<std::vector<Cluster>> out =
      BuildClusters(g.docs, std::move(links), rule, [&g](DocId k, DocId m) { return g.Similar(k, m); });
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? std::move(*out) : std::vector<Cluster>{};
}

void ExpectSameClusters(const Graph& g, const std::string& shape) {
  for (KeepRule rule :
       {KeepRule::kFirst, KeepRule::kLongest, KeepRule::kShortest, KeepRule::kNewest, KeepRule::kOldest}) {
    const auto want = PeelOffClusters(g.docs, g.AllEdges(), rule, [&g](DocId k, DocId m) { return g.Similar(k, m); });
    const auto got = FastClusters(g, rule);
    ASSERT_EQ(got.size(), want.size()) << shape << " rule " << static_cast<int>(rule);
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].id, want[i].id) << shape;
      EXPECT_EQ(got[i].keep, want[i].keep) << shape << " cluster " << i;
      EXPECT_EQ(got[i].members, want[i].members) << shape << " cluster " << i;
    }
  }
}

TEST(BuildClustersTest, KeepAgreesWithPeelOffOnRandomGraphs) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 rng(seed);
    const uint32_t n = 2 + static_cast<uint32_t>(rng() % 40);
    const double p_link = 0.02 + 0.3 * static_cast<double>(rng() % 100) / 100;
    std::uniform_real_distribution<double> unit(0, 1);
    const Graph g = MakeGraph(n, rng, 0.6, [&](uint32_t, uint32_t) { return unit(rng) < p_link; });
    ExpectSameClusters(g, "random seed " + std::to_string(seed));
  }
}

TEST(BuildClustersTest, KeepAgreesWithPeelOffOnChainsStarsAndCliques) {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    std::mt19937_64 rng(seed);
    // A chain of versions, each like the next, sometimes like the one after.
    const Graph chain = MakeGraph(200, rng, 0.9, [](uint32_t a, uint32_t b) { return b - a <= 2; });
    ExpectSameClusters(chain, "chain seed " + std::to_string(seed));
    const Graph star = MakeGraph(150, rng, 0.8, [](uint32_t a, uint32_t) { return a == 0; });
    ExpectSameClusters(star, "star seed " + std::to_string(seed));
    const Graph clique = MakeGraph(40, rng, 0.7, [](uint32_t, uint32_t) { return true; });
    ExpectSameClusters(clique, "clique seed " + std::to_string(seed));
  }
}

// Copies given as plain links are not known as copies: a kept reference
// document then takes only the copy it is linked to, not every copy.
TEST(BuildClustersTest, KeptDocumentTakesEveryCopyOfItsGroup) {
  auto docs = Docs({"a", "b", "c", "ref"});
  docs[3].reference = true;
  ClusterLinks links(docs.size(), ClusterBy::kKeep, 1 << 20);
  links.Copies(0, 1);
  links.Copies(0, 2);
  links.Copies(0, 3);
  auto out = BuildClusters(docs, std::move(links), KeepRule::kFirst, [](DocId, DocId) { return true; });
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].keep, 3u);
  EXPECT_EQ((*out)[0].members, (std::vector<DocId>{0, 1, 2, 3}));
}

// A chain of 100,000 versions, each like its neighbours: half of them kept,
// each with the next one (the peel-off took minutes over it).
TEST(BuildClustersTest, LongChainSplitsIntoPairs) {
  const size_t n = 100000;
  std::vector<DocEntry> docs(n);
  for (size_t i = 0; i < n; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "v%06zu", i);
    docs[i].name = name;
  }
  std::vector<DocPair> edges;
  for (DocId i = 0; i + 1 < n; ++i) edges.emplace_back(i, i + 1);
  const auto clusters = Clusters(docs, edges, KeepRule::kFirst, ClusterBy::kKeep,
                                 [](DocId k, DocId m) { return k + 1 == m || m + 1 == k; });
  ASSERT_EQ(clusters.size(), n / 2);
  EXPECT_EQ(clusters[4].keep, 8u);
  EXPECT_EQ(clusters[4].members, (std::vector<DocId>{8, 9}));
}

}  // namespace
}  // namespace neardup
