// KeepOnlyNew: --new, the report cut down to what involves a document signed
// in this run (with --index: new, or changed since the index last saw it).
//
// Pairs mode keeps the pairs with at least one such document; clusters and
// duplicates modes keep the clusters containing one (renumbered densely from
// 0, in their order) and the removable documents of those clusters. The
// stats of what is reported (pairs; clusters, clustered, removable and
// removable_bytes) are those of what is kept.
//
// Thread safety: a plain function.
#pragma once

#include <cstdint>
#include <vector>

#include "neardup/options.h"
#include "neardup/report.h"

namespace neardup {

// REQUIRES: signed_now.size() == report->docs.size().
// Returns IoError when a temporary file for the pairs cannot be written.
[[nodiscard]] Status KeepOnlyNew(const std::vector<uint8_t>& signed_now, const Options& options, Report* report);

}  // namespace neardup
