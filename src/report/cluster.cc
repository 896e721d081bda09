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

std::vector<Cluster> BuildClusters(const std::vector<DocEntry>& docs, std::span<const DocPair> edges,
                                   KeepRule rule, ClusterBy by, const SimilarFn& similar) {
  ClusterLinks links(docs.size());
  for (const auto& [a, b] : edges) links.Link(a, b);
  return BuildClusters(docs, std::move(links), rule, by, similar);
}

std::vector<Cluster> BuildClusters(const std::vector<DocEntry>& docs, ClusterLinks links, KeepRule rule,
                                   ClusterBy by, const SimilarFn& similar) {
  // Group the linked documents by their root.
  std::vector<std::pair<uint32_t, DocId>> by_root;
  for (DocId d = 0; d < links.linked_.size(); ++d) {
    if (links.linked_[d] != 0) by_root.emplace_back(links.components_.Find(d), d);
  }
  std::sort(by_root.begin(), by_root.end());

  auto by_name = [&](DocId x, DocId y) {
    return docs[x].name != docs[y].name ? docs[x].name < docs[y].name : x < y;
  };
  std::vector<Cluster> clusters;
  auto emit = [&](DocId keep, std::vector<DocId> members) {
    if (members.size() < 2) return;
    const bool any_new = std::any_of(members.begin(), members.end(),
                                     [&](DocId d) { return !docs[d].reference; });
    if (!any_new) return;
    std::sort(members.begin(), members.end(), by_name);
    Cluster c;
    c.keep = keep;
    c.members = std::move(members);
    clusters.push_back(std::move(c));
  };

  std::vector<DocId> component;
  for (size_t lo = 0; lo < by_root.size();) {
    size_t hi = lo;
    component.clear();
    while (hi < by_root.size() && by_root[hi].first == by_root[lo].first) {
      component.push_back(by_root[hi].second);
      ++hi;
    }
    lo = hi;
    if (by == ClusterBy::kConnected) {
      emit(ChooseKeep(docs, component, rule), component);
      continue;
    }
    // kKeep: peel off the kept document and its matches until too few remain.
    std::vector<DocId> rest = component;
    while (rest.size() >= 2) {
      const DocId keep = ChooseKeep(docs, rest, rule);
      std::vector<DocId> members{keep};
      std::vector<DocId> left;
      for (DocId m : rest) {
        if (m == keep) continue;
        if (similar(keep, m)) {
          members.push_back(m);
        } else {
          left.push_back(m);
        }
      }
      emit(keep, std::move(members));
      rest = std::move(left);
    }
  }
  std::sort(clusters.begin(), clusters.end(),
            [&](const Cluster& x, const Cluster& y) { return by_name(x.keep, y.keep); });
  for (size_t i = 0; i < clusters.size(); ++i) clusters[i].id = static_cast<uint32_t>(i);
  return clusters;
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
