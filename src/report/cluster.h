// Clusters: verified pairs -> groups of copies, the document to keep in each,
// and the documents that can go.
//
// ClusterBy::kConnected takes the connected components of the pairs
// (union-find): A~B and B~C put A, B, C in one cluster even when A is not like
// C. ClusterBy::kKeep guards against that drift: in each component it picks the
// document to keep, gathers the members linked to it that are themselves
// similar to it (`similar`), and repeats on the rest, so every member of a
// cluster matches its kept document. Either takes time near linear in the
// links, whatever the shape of the graph (a chain of versions, a star, a
// clique).
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

#include "base/sorted_runs.h"
#include "base/union_find.h"
#include "neardup/report.h"

namespace neardup {

using DocPair = std::pair<DocId, DocId>;
using SimilarFn = std::function<bool(DocId kept, DocId member)>;

// The document to keep among `members` (non-empty).
DocId ChooseKeep(const std::vector<DocEntry>& docs, std::span<const DocId> members, KeepRule rule);

// The links of the graph to cluster, given one at a time. Copies() joins two
// copies of one text (one group of copies: like each other, and like the same
// other documents); Link() joins two documents by a reported pair. With
// ClusterBy::kConnected it holds memory per document (the components so far,
// which documents are linked), not per link, so any number of links can
// stream in. With ClusterBy::kKeep it also holds the links, `memory_bytes`
// of them in memory in all (the links as given, then in keep order) and the
// rest in sorted runs in temporary files (SortedRuns), so that each
// document's links can be read in order.
class ClusterLinks {
 public:
  ClusterLinks(size_t docs, ClusterBy by, uint64_t memory_bytes);
  ClusterLinks(ClusterLinks&&) noexcept = default;
  ClusterLinks& operator=(ClusterLinks&&) noexcept = default;
  ClusterLinks(const ClusterLinks&) = delete;
  ClusterLinks& operator=(const ClusterLinks&) = delete;

  // REQUIRES: a, b < docs.
  void Copies(DocId a, DocId b) {
    sets_.Union(a, b);
    linked_[a] = 1;
    linked_[b] = 1;
  }
  // IoError when a temporary file cannot be written (then nothing more may be
  // linked). REQUIRES: a, b < docs.
  [[nodiscard]] Status Link(DocId a, DocId b);

  // Two linked documents, smaller id first.
  struct Pair {
    DocId a = 0;
    DocId b = 0;
    friend bool operator<(const Pair& x, const Pair& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; }
  };

 private:
  friend Result<std::vector<Cluster>> BuildClusters(const std::vector<DocEntry>&, ClusterLinks, KeepRule,
                                                    const SimilarFn&);
  // kKeep: sorts `roots` (the sets' roots) in keep order by their kept
  // documents `best` (indexed by root), and returns for each place in that
  // order the place of the set it joins (its own when it is kept). Reads the
  // links once; IoError when a temporary file fails.
  Result<std::vector<uint32_t>> JoinInKeepOrder(const std::vector<DocEntry>& docs, std::vector<uint32_t>* roots,
                                                const std::vector<DocId>& best, KeepRule rule,
                                                const SimilarFn& similar);
  ClusterBy by_;
  uint64_t memory_bytes_;
  // kConnected: the components so far. kKeep: the groups of copies.
  UnionFind sets_;
  std::vector<uint8_t> linked_;  // per document, 1 when in some link
  SortedRuns<Pair> pairs_;       // kKeep: the Link()s
};

// The clusters of `links` by the ClusterBy it was made with. With kKeep the
// documents are taken in keep order (ChooseKeep's); each one not yet in a
// cluster is kept, and takes the documents not yet in a cluster that are its
// copies, or linked to it or to one of its copies and `similar` to it.
// `similar` is used only with kKeep, and must be a function of the groups of
// copies (copies are similar to each other and to the same others); its
// answer on two documents that are not linked is never asked. Time
// O(links log links + documents log documents). IoError when a temporary
// file cannot be written or read back.
// REQUIRES: `links` made for docs.size() documents.
Result<std::vector<Cluster>> BuildClusters(const std::vector<DocEntry>& docs, ClusterLinks links, KeepRule rule,
                                           const SimilarFn& similar);
// The same, from a list of edges, each a Link().
Result<std::vector<Cluster>> BuildClusters(const std::vector<DocEntry>& docs, std::span<const DocPair> edges,
                                           KeepRule rule, ClusterBy by, const SimilarFn& similar);

// Members of the clusters that can be removed (not kept, not reference, not
// a stream: no path to remove; none at all of a cluster whose kept document
// is a stream, whose text is then on disk nowhere else), sorted by name,
// each with its cluster's kept document (scores unset: estimate 0, jaccard
// -1).
std::vector<Removal> Removable(const std::vector<DocEntry>& docs, const std::vector<Cluster>& clusters);

}  // namespace neardup
