// Report building: verified pairs of representatives -> what is reported
// (the last stage), by mode.
//
//  - BuildPairs: every verified pair of representatives stands for all
//    pairs of their members, and every group of copies for all pairs within
//    it; pairs of two reference documents are left out. The pairs are
//    sorted by (name of a, name of b), name(a) < name(b) in byte order,
//    in memory up to Options::pair_memory and in sorted runs on disk past
//    it (sorted_pairs.h).
//  - BuildClustering: documents are linked through their groups and the
//    verified pairs (never by an edge between two reference documents),
//    clustered (cluster.h), and the removable documents are listed once,
//    for every writer.
//
// Both read the verified pairs as they stream out of their sorted runs:
// neither holds more than Options::pair_memory of pairs in memory.
//
// CountRead and TallyProblems count what the walk and the signing met. Each
// returns its value; the report phase (scan/phases.cc) alone assembles the
// Report from them, for the scan and the stage report alike.
//
// Thread safety: plain functions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lsh/candidates.h"
#include "lsh/copy_groups.h"
#include "neardup/options.h"
#include "neardup/report.h"
#include "neardup/status.h"
#include "sign/sign.h"
#include "verify/verify_candidates.h"
#include "walk/walk.h"

namespace neardup {

// A group of copies that yields more pairs than this gets a notice pointing
// to --mode clusters, where it is one cluster.
inline constexpr uint64_t kManyPairs = 1000000;

// The pairs of BuildPairs, and a notice when one group of copies alone
// makes more than kManyPairs of them.
struct PairList {
  SortedPairs pairs;
  std::vector<std::string> notices;
};
// REQUIRES: `docs` holds the documents the groups and pairs refer to.
// Returns IoError when a temporary file for sorting cannot be written, or
// one of `pairs` read back (two passes over them).
Result<PairList> BuildPairs(const CopyGroups& groups, const CandidatePairs& pairs, const Options& options,
                            const std::vector<DocEntry>& docs);

// --relation contains|both: marks DocEntry::contained on every document
// contained in another by a pair of `verified` (and its copies), so that
// clustering keeps the container. Errors reading `verified` end the marking
// early; the caller checks verified.status().
void MarkContained(const CopyGroups& groups, const CandidatePairs& verified, std::vector<DocEntry>* docs);

// The clusters and, once, the removable documents of BuildClustering.
struct Clustering {
  std::vector<Cluster> clusters;
  std::vector<Removal> removable;
};
// REQUIRES: as BuildPairs; `verified` from VerifyCandidates over `groups`.
// The verified pairs are read once, as links (memory per document, and with
// --cluster-by keep the links too, in memory up to Options::pair_memory and
// in sorted runs on disk past it). Returns IoError when they cannot be read
// back or a temporary file cannot be written. `linked`, when set,
// is called every kLinkedEvery pairs with the pairs linked so far.
inline constexpr uint64_t kLinkedEvery = 4096;
Result<Clustering> BuildClustering(const CopyGroups& groups, const Verified& verified, const Options& options,
                                   const std::vector<DocEntry>& docs,
                                   const std::function<void(uint64_t linked)>& linked = {});

// Documents by kind, as CountRead() counts them.
struct DocKinds {
  uint64_t documents = 0, empty = 0, too_short = 0, binary = 0;
};
// The kind of `kind` counted in *counts (nothing for a failed document).
void CountKind(DocKind kind, DocKinds* counts);

// The counts of what was read: the signed documents of `corpus` by kind
// (documents, empty, too_short, binary), its reading counts (bytes,
// invalid_utf8, transcoded, duplicate_ids) and the walk's skips (hidden,
// glob, too_large, special). `left_out`: documents of the corpus that are
// not in corpus.table (stage report holds only those it reports), counted
// as if they were.
Stats CountRead(const SignedCorpus& corpus, const WalkCounts& walk, const DocKinds& left_out = {});

// The problems of a run in the order reported: the walk's errors, then the
// inputs' `problems` in input order (by file, then line; stable). Each is
// counted in `counts` by its kind; the walk's errors as unreadable, but for
// its directory loops and dangling links (skipped and warned about, nothing
// went unread).
std::vector<Status> TallyProblems(const WalkCounts& walk, std::vector<Status> walk_errors,
                                  std::vector<InputProblem> problems, Stats* counts);

// The report's view of the documents: name, size, mtime and whether under
// --against, moved out of `docs` (indexed by DocId as before).
// What the report keeps of an input file: the input it came from and
// whether it is a stream.
struct FileOrigin {
  uint32_t root = 0;
  bool stream = false;
};
std::vector<DocEntry> Entries(std::vector<DocRecord>&& docs, const std::vector<FileOrigin>& files);

}  // namespace neardup
