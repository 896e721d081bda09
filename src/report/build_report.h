// Report building: verified pairs of representatives -> what is reported
// (the last stage), by mode.
//
//  - BuildPairs: every verified pair of representatives stands for all
//    pairs of their members, and every group of copies for all pairs within
//    it; pairs of two reference documents are left out. The pairs are
//    sorted by (name of a, name of b), name(a) < name(b) in byte order,
//    in memory up to Options::pair_memory and in sorted runs on disk past
//    it (sorted_pairs.h).
//  - BuildClusterReport: documents are linked through their groups and the
//    verified pairs (never by an edge between two reference documents),
//    clustered (cluster.h), and the removable documents are listed once,
//    in Report::removable, for every writer.
//
// Both fill the report's stats for what they add (pairs, or clusters,
// clustered, removable and removable_bytes) and may add notices.
//
// The tallies (TallyDocuments, TallyProblems) fill the rest of the stats from
// what the signing stage met; the scan (pipeline.cc) and the stage report
// (stage_report.cc) share them.
//
// Thread safety: plain functions.
#pragma once

#include <vector>

#include "lsh/candidates.h"
#include "lsh/copy_groups.h"
#include "walk/walk.h"
#include "neardup/options.h"
#include "neardup/report.h"
#include "sign/sign.h"
#include "neardup/status.h"
#include "verify/verify_candidates.h"

namespace neardup {

// A group of copies that yields more pairs than this gets a notice pointing
// to --mode clusters, where it is one cluster.
inline constexpr uint64_t kManyPairs = 1000000;

// REQUIRES: report->docs holds the documents the groups and pairs refer to.
// Returns IoError when a temporary file for sorting cannot be written.
[[nodiscard]] Status BuildPairs(const CopyGroups& groups, const std::vector<Candidate>& pairs, const Options& options,
                                Report* report);

// REQUIRES: as BuildPairs; `verified` from VerifyCandidates over `groups`.
void BuildClusterReport(const CopyGroups& groups, const Verified& verified, const Options& options, Report* report);

// Counts the signed documents of `corpus` by kind into `stats` (documents,
// empty, too_short, binary) and copies its reading counts (bytes,
// invalid_utf8, transcoded, duplicate_ids).
void TallyDocuments(const SignedCorpus& corpus, Stats* stats);

// Appends the inputs' `problems` to report->problems, sorted in input order
// (by file, then line; stable), each counted in the stats by its kind. The
// walk's errors already in report->problems are counted as unreadable, but
// for the directory loops and dangling links of `walk` (skipped and warned
// about, nothing went unread).
// REQUIRES: report->problems holds the walk's errors and nothing else.
void TallyProblems(const WalkCounts& walk, std::vector<InputProblem> problems, Report* report);

// The report's view of the documents: name, size, mtime and whether under
// --against, moved out of `docs` (indexed by DocId as before).
std::vector<DocEntry> Entries(std::vector<DocRecord>&& docs);

}  // namespace neardup
