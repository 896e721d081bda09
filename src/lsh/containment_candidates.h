// Containment candidates: the pairs LSH makes candidates so that a document
// contained in another is found (scan --relation contains|both), by the
// size strata and bandings of containment_banding.h.
//
// The representatives of a CopyGroups with at least Options::min_contained
// distinct shingles (DocRecord::shingles; a smaller one is neither contained
// nor, being smaller still than what it would contain, a container) are
// grouped by stratum. For each distance d between strata that the ratio cap
// allows (ContainmentBandings() at -t and --max-ratio), the documents of
// each pair of strata (k, k + d) are banded together (LshIndex) with that
// distance's banding, chosen for the least Jaccard a contained pair of theirs
// can have, or for --min-jaccard when that is higher: what no pair below it
// can pass. A pair that shares a band is a candidate when its strata are d
// apart (a pair of one stratum is that of d = 0), its size ratio lies within
// [--min-ratio, --max-ratio], and its signature estimate reaches the
// containment floor: the Jaccard that C = -t implies at its own ratio
// (JaccardForContainment()) or --min-jaccard, whichever is higher; with
// --exact, less Options::exact_margin standard errors of the estimate there,
// as CandidateFloor() does for Jaccard.
//
// The result is sorted by (a, b) with a < b, without repeats, does not depend
// on the thread count, and is held in bounded memory (CandidatePairs) like
// FindCandidates()'. Each document is banded at most twice per distance.
//
// Thread safety: uses `workers.threads` threads inside.
#pragma once

#include <cstdint>
#include <span>

#include "base/parallel.h"
#include "lsh/candidates.h"
#include "lsh/copy_groups.h"
#include "neardup/options.h"
#include "neardup/status.h"
#include "sign/set_bitmap.h"
#include "sign/signature_table.h"

namespace neardup {

// The least signature estimate a pair of sizes size_a and size_b needs to be
// a containment candidate under `options` (see above): for a size ratio
// outside [--min-ratio, --max-ratio] or a smaller document under
// --min-contained, above 1 (no estimate reaches it).
double ContainmentFloor(const Options& options, uint64_t size_a, uint64_t size_b);

// A share of the banding passes, for a caller that runs them on several
// machines (stage bucket): the passes (one per distance and pair of strata
// present, numbered from 0 in the order they run) whose number is `task`
// modulo `tasks`. A pair is met in one pass only (that of its two strata),
// so the shares' candidates and visited counts add up to the whole's.
struct PassShare {
  uint32_t task = 0;
  uint32_t tasks = 1;  // >= 1
};

// The containment candidates of `groups`' representatives, from the passes
// of `share` (all by default). With `bitmaps` (per DocId,
// SignedCorpus::bitmaps, one for each document) and --exact, a pair whose
// bitmaps bound both containments below -t (ContainmentBound(), by more
// than 1e-9) is no candidate: no document is read again for it, and the
// answer is the same. Errors: IoError (a temporary file for the candidates),
// Cancelled.
// REQUIRES: the table's DocRecord::shingles are counted; 0 < threshold < 1;
// share.task < share.tasks.
Result<Candidates> FindContainmentCandidates(const SignatureTable& table, const CopyGroups& groups,
                                             const Options& options, const Workers& workers, PassShare share = {},
                                             std::span<const SetBitmap> bitmaps = {});

// The union of two sets of candidates (`visited` added up), in bounded memory.
// Errors: IoError as CandidatePairs::Add().
Result<Candidates> MergeCandidates(Candidates x, Candidates y, const Options& options);

}  // namespace neardup
