// Clusters: verified pairs -> groups of copies, the document to keep in each,
// and the documents that can go.
//
// ClusterBy::kConnected takes the connected components of the pairs
// (union-find): A~B and B~C put A, B, C in one cluster even when A is not like
// C. ClusterBy::kKeep guards against that drift: in each component it picks the
// document to keep, gathers the members that are themselves similar to it
// (`similar`), and repeats on the rest, so every member of a cluster matches
// its kept document.
//
// The kept document is, among the candidates: a reference document if there is
// one (a reference document is never removable), then a document on disk
// rather than a stream (stdin, a pipe: no path to keep), then the best by KeepRule
// (first = the first in input order: PATH arguments as given, files in walk
// order, lines in file order; longest/shortest by size; newest/oldest by
// mtime), ties broken by the smallest name.
//
// Output: clusters of two or more documents with at least one non-reference
// member, members sorted by name, clusters sorted by the name of their kept
// document, ids dense from 0 in that order.
//
// Thread safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "base/union_find.h"
#include "neardup/report.h"

namespace neardup {

using DocPair = std::pair<DocId, DocId>;
using SimilarFn = std::function<bool(DocId kept, DocId member)>;

// The document to keep among `members` (non-empty).
DocId ChooseKeep(const std::vector<DocEntry>& docs, std::span<const DocId> members, KeepRule rule);

// The links of the graph to cluster, given one at a time: it holds memory
// per document (the components so far, which documents are linked), not per
// link, so any number of links can stream in.
class ClusterLinks {
 public:
  explicit ClusterLinks(size_t docs) : components_(docs), linked_(docs, 0) {}
  // REQUIRES: a, b < docs.
  void Link(DocId a, DocId b) {
    components_.Union(a, b);
    linked_[a] = 1;
    linked_[b] = 1;
  }

 private:
  friend std::vector<Cluster> BuildClusters(const std::vector<DocEntry>&, ClusterLinks, KeepRule, ClusterBy,
                                            const SimilarFn&);
  UnionFind components_;
  std::vector<uint8_t> linked_;  // per document, 1 when in some link
};

// `similar` is used only with ClusterBy::kKeep. REQUIRES: `links` made for
// docs.size() documents.
std::vector<Cluster> BuildClusters(const std::vector<DocEntry>& docs, ClusterLinks links, KeepRule rule,
                                   ClusterBy by, const SimilarFn& similar);
// The same, from a list of edges.
std::vector<Cluster> BuildClusters(const std::vector<DocEntry>& docs, std::span<const DocPair> edges,
                                   KeepRule rule, ClusterBy by, const SimilarFn& similar);

// Members of the clusters that can be removed (not kept, not reference, not
// a stream: no path to remove; none at all of a cluster whose kept document
// is a stream, whose text is then on disk nowhere else), sorted by name, each with its cluster's kept document (scores unset:
// estimate 0, jaccard -1).
std::vector<Removal> Removable(const std::vector<DocEntry>& docs, const std::vector<Cluster>& clusters);

}  // namespace neardup
