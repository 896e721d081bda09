// The phases of a run: each takes the Run and values and returns values.
// Which driver calls which (the stage tasks' own reads and writes are in
// distributed/):
//   scan          = WalkInputs, SignInputs, FindCandidatePairs, then
//                   ReportPhase, or with --kept-dir ReportAndDropped and
//                   KeptDirPhase (scan.cc)
//   stage report  = the shards and the verify tasks' verdicts decoded into
//                   SignedInputs and FoundPairs, ReportAndDropped (kAlways:
//                   its dropped list is the filter tasks')
//   stage sign, bucket, verify and filter, and explain: none of them. Each
//                   decides the same Run and follows its rules; stage sign
//                   walks (WalkCorpus) and signs its share (SignShare) through
//                   Run::Signing(), stage verify verifies through
//                   Run::Verifying() and the candidate rule (similarity.h),
//                   stage filter writes its shard's part of --kept-dir
//                   (WriteKeptDir), explain judges two documents by
//                   Reported() (verify_candidates.h).
//
// Thread safety: each phase uses the Run's workers inside and is called from
// the driver's thread.
//
//   Result<WalkedInputs> walked = WalkInputs(run);
//   Result<SignedInputs> inputs = SignInputs(run, std::move(*walked));
//   Result<FoundPairs> found = FindCandidatePairs(run, *inputs);
//   Result<Report> report = ReportPhase(run, std::move(*inputs), std::move(*found));
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "base/mapped_file.h"
#include "index/sign_indexed.h"
#include "lsh/candidates.h"
#include "lsh/copy_groups.h"
#include "neardup/report.h"
#include "neardup/status.h"
#include "report/build_report.h"
#include "scan/kept_dir.h"
#include "scan/run.h"
#include "sign/sign.h"
#include "verify/verify_candidates.h"
#include "walk/walk.h"

namespace neardup {

// The inputs as walked; with --index, the index opened (locked, checked)
// and what it holds of them, read while the inputs were walked.
struct WalkedInputs {
  WalkedCorpus walked;
  std::unique_ptr<SignatureIndex> index;
  std::optional<StoredInputs> stored;
  // With --index: the walk's listing and when the run started (what the
  // front end keeps the output under, stored_result.h); and the result kept
  // under the run's key, when the walk found its files unchanged: then
  // `stored` is empty and the run gives it (GiveAgain).
  ResultListing listing;
  int64_t started_ns = 0;
  std::optional<StoredResult> given_again;
};
// Errors: a malformed glob or path list; the index's errors (locked,
// corrupt, other parameters, out of memory while reading it).
Result<WalkedInputs> WalkInputs(const Run& run);

// The report of a run that gives a kept result again (WalkedInputs::
// given_again): the index's run ended, the result in Report::index.
// Errors: the index's.
Result<Report> GiveAgain(const Run& run, WalkedInputs walked);

// What signing gives the rest of a run.
struct SignedInputs {
  SignedCorpus corpus;
  WalkCounts walk;
  std::vector<Status> walk_errors;        // the walk's problems, "PATH: reason"
  std::vector<std::string> walk_notices;  // the walk's advice (WalkedCorpus::notices)
  std::vector<std::string> walk_skipped;  // WalkedCorpus::skipped
  std::vector<uint8_t> signed_now;        // with --index: per document, 1 when signed in this run
  IndexStats index;                       // with --index
  // Files the table's signatures are borrowed from (stage report): their
  // pages are let go once verification has read what it needs.
  std::vector<std::shared_ptr<const MappedFile>> mapped;
  // Documents of the corpus left out of corpus.table, by kind (stage report
  // holds only the documents it reports): counted as the table's are.
  DocKinds left_out;
  // With --index, when the run wants bitmaps: the stored bitmaps of the
  // documents it reused, read after banding for those in candidate pairs
  // (IndexedCorpus::stored_bitmaps); null otherwise.
  std::unique_ptr<StoredBitmaps> stored_bitmaps;
};

// Signs `walked` (text files, JSONL, or through the index alike), as
// Run::Signing() decides: JSONL ids made unique over the run. Errors: the
// index's (disk full, corrupt), Cancelled. Problems with single inputs are
// results, in corpus.problems.
Result<SignedInputs> SignInputs(const Run& run, WalkedInputs walked);

// Copy groups and the candidate pairs of their representatives.
struct FoundPairs {
  CopyGroups groups;
  Candidates candidates;
  // When set, the candidates were verified elsewhere (the stage verify
  // tasks read the documents again): ReportPhase adopts these verdicts and
  // reads nothing; `candidates` is then unused.
  std::optional<PriorVerdicts> verdicts = {};
  // With --index: the stored bitmaps read for the documents of candidate
  // pairs (IndexStats::bitmaps_read).
  uint64_t bitmaps_read = 0;
};
// Groups the copies of `table` and finds candidates by LSH (none with -t 1:
// only copies are reported then). The candidates are held in bounded memory
// (CandidatePairs); with --exact, pairs that the corpus's bitmaps rule out
// are not kept (FindCandidates), nor, with --index, those that the stored
// bitmaps of the documents in candidate pairs rule out, read then
// (inputs.stored_bitmaps, let go here; RuleOutByBitmaps). Errors: IoError
// (a temporary file for the candidates), the index's read errors.
Result<FoundPairs> FindCandidatePairs(const Run& run, SignedInputs& inputs);

// Verifies the candidates, builds pairs or clusters by mode, keeps only what
// is new with --new, and counts: the run's Report. Errors: IoError (a
// temporary file for sorting), Cancelled, the index's with --new.
Result<Report> ReportPhase(const Run& run, SignedInputs inputs, FoundPairs found);

// ReportPhase's Report, and with --kept-dir (or kAlways: stage report, for
// the filter tasks) the documents it leaves out in every mode: those --mode
// duplicates lists (its removable documents, under the same --keep,
// --cluster-by, --against and verification), ids ascending; never cut down
// by --new, which cuts down only what is reported: the kept corpus is the
// whole deduplicated corpus (docs/kept-dir.md). Else `dropped` is empty. In
// pairs mode, listing them costs one clustering more.
struct ReportOutcome {
  Report report;
  std::vector<DocId> dropped;
  // With --annotate-dir: the clusters of the whole corpus (as `dropped`, not
  // cut down by --new) and their removable members, whatever the mode.
  std::vector<Cluster> clusters;
  std::vector<Removal> removable;
};
enum class DroppedWanted { kWithKeptDir, kAlways };
Result<ReportOutcome> ReportAndDropped(const Run& run, SignedInputs inputs, FoundPairs found,
                                       DroppedWanted wanted = DroppedWanted::kWithKeptDir);

// --kept-dir, once the report is built: writes the kept corpus (kept_dir.h)
// from `sources` (KeptSourcesOf(), taken before the report phase let the
// corpus go) without `reported.dropped`, and returns the report with what was
// written (Report::kept, its seconds those of the writing) and each file's
// problem added. Errors: Cancelled (the files written stay whole).
// REQUIRES: CheckKeptDir() was OK.
Result<Report> KeptDirPhase(const Run& run, const KeptSources& sources, ReportOutcome reported);

}  // namespace neardup
