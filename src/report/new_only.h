// NewPairsOnly, NewClustersOnly: --new, the report cut down to what involves a document signed
// in this run (with --index: new, or changed since the index last saw it).
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

#include "neardup/options.h"
#include "neardup/report.h"
#include "report/build_report.h"

namespace neardup {

// The pairs of `all` with a document signed in this run, in their order.
// REQUIRES: signed_now is indexed by DocId. Returns IoError when a
// temporary file for the pairs cannot be written, or the error met reading
// `all` back.
Result<SortedPairs> NewPairsOnly(const std::vector<uint8_t>& signed_now, const SortedPairs& all,
                                 size_t pair_memory);
// The clusters of `all` with a document signed in this run, renumbered, and
// their removable documents.
Clustering NewClustersOnly(const std::vector<uint8_t>& signed_now, Clustering all);

}  // namespace neardup
