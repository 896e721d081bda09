// PairsWith, ClustersWith: the report cut down to what involves a flagged
// document: with --new, one signed in this run (with --index: new, or
// changed since the index last saw it); with --against (unless
// --among-new), a reference document.
//
// Pairs mode keeps the pairs with at least one such document; clusters and
// duplicates modes keep the clusters containing one (renumbered densely from
// 0, in their order) and the removable documents of those clusters. The
// counts of what is reported are derived from what is kept (report.h).
//
// Thread safety: a plain function.
#pragma once

#include <cstdint>
#include <vector>

#include "neardup/sorted_pairs.h"
#include "neardup/status.h"
#include "report/build_report.h"

namespace neardup {

// The pairs of `all` with a flagged document (--new: signed in this run;
// --against: a reference document), in their order.
// REQUIRES: flagged is indexed by DocId. Returns IoError when a
// temporary file for the pairs cannot be written, or the error met reading
// `all` back.
Result<SortedPairs> PairsWith(const std::vector<uint8_t>& flagged, const SortedPairs& all, size_t pair_memory);
// The clusters of `all` with a flagged member, renumbered, and their
// removable documents. (A cluster with a reference member keeps one, so
// with --against these are the removable documents whose kept document is
// a reference.)
Clustering ClustersWith(const std::vector<uint8_t>& flagged, Clustering all);

}  // namespace neardup
