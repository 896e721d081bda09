#include "report/cluster.h"

#include <algorithm>
#include <cassert>

#include "base/union_find.h"

namespace neardup {

namespace {

// True when x should be kept rather than y.
bool Better(const std::vector<DocEntry>& docs, DocId x, DocId y, KeepRule rule) {
  const DocEntry& a = docs[x];
  const DocEntry& b = docs[y];
  if (a.reference != b.reference) return a.reference;
  // A document on disk before a stream, whatever the rule: a stream has no
  // path, so keeping it would leave the text on disk nowhere once the
  // removable ones are gone.
  if (a.stream != b.stream) return !a.stream;
  // A container before what it contains, whatever the rule (--relation
  // contains|both): the contained document is the one that can go.
  if (a.contained != b.contained) return !a.contained;
  switch (rule) {
    case KeepRule::kFirst:
      // The first in input order: PATH arguments as given, then walk order
      // and line order, which DocIds follow within one input.
      if (a.root != b.root) return a.root < b.root;
      return x < y;
    case KeepRule::kLongest:
      if (a.size != b.size) return a.size > b.size;
      break;
    case KeepRule::kShortest:
      if (a.size != b.size) return a.size < b.size;
      break;
    case KeepRule::kNewest:
      if (a.mtime_ns != b.mtime_ns) return a.mtime_ns > b.mtime_ns;
      break;
    case KeepRule::kOldest:
      if (a.mtime_ns != b.mtime_ns) return a.mtime_ns < b.mtime_ns;
      break;
  }
  if (a.name != b.name) return a.name < b.name;
  return x < y;
}

}  // namespace

DocId ChooseKeep(const std::vector<DocEntry>& docs, std::span<const DocId> members, KeepRule rule) {
  assert(!members.empty());
  DocId best = members[0];
  for (DocId m : members.subspan(1)) {
    if (Better(docs, m, best, rule)) best = m;
  }
  return best;
}

ClusterLinks::ClusterLinks(size_t docs, ClusterBy by, uint64_t memory_bytes)
    : by_(by),
      memory_bytes_(memory_bytes),
      sets_(docs),
      linked_(docs, 0),
      // Half the budget each for the links and, later, the same links in
      // keep order: both are held while the one is read into the other.
      pairs_(static_cast<size_t>(memory_bytes / 2), "clustering pairs") {}

Status ClusterLinks::Link(DocId a, DocId b) {
  linked_[a] = 1;
  linked_[b] = 1;
  if (by_ == ClusterBy::kConnected) {
    sets_.Union(a, b);
    return Status::Ok();
  }
  if (b < a) std::swap(a, b);
  return pairs_.Add({a, b});
}

namespace {

// Two groups of copies linked by a pair, by their places in keep order:
// `later` after `earlier`. Sorted by `later` first, so that a pass meets the
// links of each group to the groups kept before it together, earliest first.
struct RankedLink {
  uint32_t later = 0;
  uint32_t earlier = 0;
  friend bool operator<(const RankedLink& x, const RankedLink& y) {
    return x.later != y.later ? x.later < y.later : x.earlier < y.earlier;
  }
};

}  // namespace

Result<std::vector<Cluster>> BuildClusters(const std::vector<DocEntry>& docs, std::span<const DocPair> edges,
                                           KeepRule rule, ClusterBy by, const SimilarFn& similar) {
  ClusterLinks links(docs.size(), by, uint64_t{64} << 20);
  for (const auto& [a, b] : edges) {
    if (Status s = links.Link(a, b); !s.ok()) return s;
  }
  return BuildClusters(docs, std::move(links), rule, similar);
}

namespace {

// The sets of linked documents (components, or groups of copies) and the
// document each keeps.
struct KeptSets {
  std::vector<DocId> linked;    // the linked documents, ascending
  std::vector<uint32_t> roots;  // each set's root, in order of first member
  std::vector<DocId> best;      // indexed by root: the document the set keeps
};

KeptSets KeptSetsOf(const std::vector<DocEntry>& docs, const std::vector<uint8_t>& linked_flags, UnionFind& sets,
                    KeepRule rule) {
  KeptSets out;
  for (DocId d = 0; d < linked_flags.size(); ++d) {
    if (linked_flags[d] != 0) out.linked.push_back(d);
  }
  out.best.assign(docs.size(), 0);
  std::vector<uint8_t> seen(docs.size(), 0);
  for (DocId d : out.linked) {
    const uint32_t r = sets.Find(d);
    if (seen[r] == 0) {
      seen[r] = 1;
      out.best[r] = d;
      out.roots.push_back(r);
    } else if (Better(docs, d, out.best[r], rule)) {
      out.best[r] = d;
    }
  }
  return out;
}

// The clusters of `by_keeper` (each linked document with the root of the set
// that keeps it, sorted): those of two members or more, not all references,
// members by name, clusters by the name of their kept document, numbered.
std::vector<Cluster> ClustersOf(const std::vector<DocEntry>& docs,
                                const std::vector<std::pair<uint32_t, DocId>>& by_keeper,
                                const std::vector<DocId>& best) {
  auto by_name = [&](DocId x, DocId y) { return docs[x].name != docs[y].name ? docs[x].name < docs[y].name : x < y; };
  std::vector<Cluster> clusters;
  std::vector<DocId> members;
  for (size_t lo = 0; lo < by_keeper.size();) {
    size_t hi = lo;
    members.clear();
    while (hi < by_keeper.size() && by_keeper[hi].first == by_keeper[lo].first) {
      members.push_back(by_keeper[hi].second);
      ++hi;
    }
    const DocId keep = best[by_keeper[lo].first];
    lo = hi;
    if (members.size() < 2) continue;
    const bool any_new = std::any_of(members.begin(), members.end(), [&](DocId d) { return !docs[d].reference; });
    if (!any_new) continue;
    std::sort(members.begin(), members.end(), by_name);
    Cluster c;
    c.keep = keep;
    c.members = members;
    clusters.push_back(std::move(c));
  }
  std::sort(clusters.begin(), clusters.end(),
            [&](const Cluster& x, const Cluster& y) { return by_name(x.keep, y.keep); });
  for (size_t i = 0; i < clusters.size(); ++i) clusters[i].id = static_cast<uint32_t>(i);
  return clusters;
}

}  // namespace

Result<std::vector<uint32_t>> ClusterLinks::JoinInKeepOrder(const std::vector<DocEntry>& docs,
                                                            std::vector<uint32_t>* roots,
                                                            const std::vector<DocId>& best, KeepRule rule,
                                                            const SimilarFn& similar) {
  // The sets in keep order (ChooseKeep's over their best documents). A set
  // is taken whole: its copies are similar to whatever its best document
  // is similar to, so they always go together.
  std::sort(roots->begin(), roots->end(), [&](uint32_t x, uint32_t y) { return Better(docs, best[x], best[y], rule); });
  std::vector<uint32_t> rank(docs.size(), 0);
  for (uint32_t i = 0; i < roots->size(); ++i) rank[(*roots)[i]] = i;
  if (Status s = pairs_.Finish(); !s.ok()) return s;
  SortedRuns<RankedLink> ranked(static_cast<size_t>(memory_bytes_ / 2), "clustering pairs in keep order");
  for (const Pair& p : pairs_) {
    const uint32_t x = rank[sets_.Find(p.a)];
    const uint32_t y = rank[sets_.Find(p.b)];
    if (x == y) continue;
    if (Status s = ranked.Add({.later = std::max(x, y), .earlier = std::min(x, y)}); !s.ok()) return s;
  }
  if (!pairs_.status().ok()) return pairs_.status();
  pairs_ = SortedRuns<Pair>(0, "");
  if (Status s = ranked.Finish(); !s.ok()) return s;
  // A set joins the earliest set linked to it that is kept and whose kept
  // document is similar to it; each set's fate is settled before any link
  // from a later set is read.
  std::vector<uint32_t> joins(roots->size());
  for (uint32_t i = 0; i < roots->size(); ++i) joins[i] = i;
  for (const RankedLink& l : ranked) {
    if (joins[l.later] != l.later || joins[l.earlier] != l.earlier) continue;
    if (similar(best[(*roots)[l.earlier]], best[(*roots)[l.later]])) joins[l.later] = l.earlier;
  }
  if (!ranked.status().ok()) return ranked.status();
  return joins;
}

Result<std::vector<Cluster>> BuildClusters(const std::vector<DocEntry>& docs, ClusterLinks links, KeepRule rule,
                                           const SimilarFn& similar) {
  KeptSets sets = KeptSetsOf(docs, links.linked_, links.sets_, rule);
  // keep_of[r]: the root of the set whose kept document the set of root r
  // joins (itself when that set is kept).
  std::vector<uint32_t> keep_of(docs.size(), 0);
  for (uint32_t r : sets.roots) keep_of[r] = r;
  if (links.by_ == ClusterBy::kKeep) {
    Result<std::vector<uint32_t>> joins = links.JoinInKeepOrder(docs, &sets.roots, sets.best, rule, similar);
    if (!joins.ok()) return joins.status();
    for (uint32_t i = 0; i < sets.roots.size(); ++i) keep_of[sets.roots[i]] = sets.roots[(*joins)[i]];
  }
  // Group the linked documents by the set that keeps them.
  std::vector<std::pair<uint32_t, DocId>> by_keeper;
  by_keeper.reserve(sets.linked.size());
  for (DocId d : sets.linked) by_keeper.emplace_back(keep_of[links.sets_.Find(d)], d);
  std::sort(by_keeper.begin(), by_keeper.end());
  return ClustersOf(docs, by_keeper, sets.best);
}

std::vector<Removal> Removable(const std::vector<DocEntry>& docs, const std::vector<Cluster>& clusters) {
  std::vector<Removal> out;
  for (const Cluster& c : clusters) {
    // A stream kept (a reference stream, or streams alone): nothing of the
    // cluster is removable, since the text kept is on disk nowhere.
    if (docs[c.keep].stream) continue;
    for (DocId m : c.members) {
      if (m == c.keep || docs[m].reference || docs[m].stream) continue;
      out.push_back({.doc = m, .kept = c.keep, .estimate = 0, .jaccard = -1});
    }
  }
  std::sort(out.begin(), out.end(), [&](const Removal& x, const Removal& y) {
    const std::string& a = docs[x.doc].name;
    const std::string& b = docs[y.doc].name;
    return a != b ? a < b : x.doc < y.doc;
  });
  return out;
}

}  // namespace neardup
