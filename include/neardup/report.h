// Report: everything a scan found, ready for a writer.
//
// Holds the parameters in effect, one entry per document read (its name as
// written in the output), the reported pairs sorted by (name of a, name of b)
// with name(a) < name(b) in byte order, the clusters sorted by the name of
// their kept document with dense ids from 0, the counts of the summary, and
// the problems met (one Status per unreadable file, malformed line, ...).
//
// Thread safety: a plain value.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "neardup/index.h"
#include "neardup/options.h"
#include "neardup/sorted_pairs.h"
#include "neardup/status.h"

namespace neardup {

class KeptTexts;  // verify/kept_texts.h

// The parameters in effect, echoed in the output (json "params"): the
// options of the scan, with its effective n-gram and the banding it used.
// Every value comes from Options (no default is restated here).
struct Params {
  // Those of a default Options, with bands and rows 0 (not chosen yet).
  Params() : Params(Options{}, Banding{}) {}
  Params(const Options& options, Banding banding);

  double threshold;
  ShingleUnit shingle;
  int ngram;  // Options::EffectiveNgram()
  int num_perm;
  int bands;
  int rows;
  uint64_t seed;
  VerifyMode verify;
  Mode mode;
  KeepRule keep;
  ClusterBy cluster_by;
  bool has_reference;  // --against was given
  Relation relation;
};

// The parameters of a scan with `options` that uses `banding`.
Params MakeParams(const Options& options, Banding banding);

struct DocEntry {
  std::string name;   // path, or JSONL id / FILE:LINE
  uint64_t size = 0;  // bytes of text
  int64_t mtime_ns = 0;
  bool reference = false;  // under an --against path
  // Its place in input order: the input (PATH argument, as given) it came
  // from; documents of one input follow DocId order (walk order, then line
  // order). --keep first keeps the earliest.
  uint32_t root = 0;
  // Read from a stream (stdin as `-`, a pipe, a FIFO, a device): no path a
  // removal could act on, so never listed as removable (it stays in its
  // cluster).
  bool stream = false;
  // Distinct shingles, counted with --relation contains|both; else 0.
  uint64_t shingles = 0;
  // With --relation contains|both: contained in another document of a
  // verified pair. Such a document is kept after every one that is not,
  // whatever --keep says (cluster.h).
  bool contained = false;
};

struct Cluster {
  uint32_t id = 0;
  DocId keep = 0;
  std::vector<DocId> members;  // sorted by name; includes `keep`
};

struct Stats {
  uint64_t documents = 0;         // documents read and shingled (not empty)
  uint64_t bytes = 0;             // bytes of text read
  uint64_t empty = 0;             // documents with no word
  uint64_t too_short = 0;         // fewer than --min-words words
  uint64_t hidden = 0;            // skipped: hidden names
  uint64_t glob = 0;              // skipped: excluded by --glob or an ignore file
  uint64_t ignored = 0;           // of `glob`, those an ignore file excluded (not in the json: part of "glob")
  uint64_t too_large = 0;         // skipped: over --max-filesize
  uint64_t special = 0;           // not read: fifos, sockets, devices found in a walk
  uint64_t binary = 0;            // skipped: binary files
  uint64_t unreadable = 0;        // files that could not be opened or read
  uint64_t malformed_lines = 0;   // JSONL lines skipped
  uint64_t duplicate_ids = 0;     // JSONL documents whose id is not unique (named FILE:LINE)
  uint64_t invalid_utf8 = 0;      // invalid sequences replaced by U+FFFD
  uint64_t transcoded = 0;        // UTF-16 files transcoded
  uint64_t exact_duplicates = 0;  // documents identical to an earlier one
  uint64_t candidates = 0;        // distinct candidate pairs from LSH
  // Documents read again to verify (--exact, -t 1): those of the candidate
  // pairs left after the bitmaps ruled some out, and of groups of copies.
  // Shown at -v, not in the json.
  uint64_t reread = 0;
  double seconds = 0;

  uint64_t skipped() const { return hidden + glob + too_large + binary + too_short; }
};

// With --index: what the index gave and took in this run (documents).
struct IndexStats {
  bool used = false;
  uint64_t reused = 0;      // documents taken from the index, none of their bytes read
  uint64_t signed_now = 0;  // documents read and signed in this run
  uint64_t removed = 0;     // documents of files gone from the scanned paths, removed
  int64_t run = 0;          // the run's row in the index
  // Invalid UTF-8 sequences of the files reused, in Stats::invalid_utf8 too:
  // the run that read them gave its advice on them (no hint of this run's).
  uint64_t reused_invalid_utf8 = 0;
  // Stored bitmaps of reused documents read after banding, for the
  // documents of candidate pairs (--exact below -t 0.7); shown at -v.
  uint64_t bitmaps_read = 0;
  // The index held signatures of an older MinHash definition: its files
  // are signed again as they are walked, this once (a notice says so).
  bool signed_again = false;
  // With --relation contains|both: files whose stored documents had no
  // distinct-shingle count (an index made before the counts, or files signed
  // by runs without --relation), signed again this once to fill it.
  uint64_t counted_again = 0;
  // --new (without --against): the job the run reports for, when it may
  // clear pending marks (it is the index's job, or the index has none yet);
  // empty otherwise (NewJob, index.h).
  NewJob new_job;
  // --new: the index's job when it is not this run's (which then clears no
  // marks); empty otherwise.
  std::string other_job;
  // The walk's listing and the run's start: what the front end keeps the
  // run's output under (KeepResult, index.h).
  ResultListing listing;
  int64_t started_ns = 0;
  // The output kept under the run's key (RunContext::result_key) given
  // again: the files are those it was made from, unchanged. The report
  // then holds nothing else.
  std::optional<StoredResult> given_again;
};

// With --kept-dir: what was written there (src/scan/kept_dir.h).
struct KeptStats {
  bool used = false;
  uint64_t files = 0;      // input files written to the folder
  uint64_t documents = 0;  // documents in them (JSONL: lines that are documents)
  uint64_t dropped = 0;    // documents left out: those --mode duplicates lists
  uint64_t failed = 0;     // input files not written (changed since signed, unreadable): exit status 2
  double seconds = 0;      // the time the pass took
};

// A document that can go, and the document it duplicates: the kept one of
// its cluster, with the scores by which it was judged like it.
struct Removal {
  DocId doc = 0;
  DocId kept = 0;
  double estimate = 0;  // share of agreeing signature positions with `kept`
  double jaccard = -1;  // exact Jaccard with `kept` (--exact); -1 when not computed
  bool operator==(const Removal&) const = default;
};

// JSONL input: an input file and each document's place in it, so that the
// review page can read the documents shown again (BuildReview), with the
// file's stat key and each document's content hash when signed.
struct SourceFile {
  std::string path;  // the walked path
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  uint64_t dev = 0;
  uint64_t ino = 0;
  bool stream = false;  // read once: not read again
};
struct DocPlace {
  uint32_t file = 0;  // in Report::source_files
  uint64_t line = 0;  // from 1
  uint64_t content_low = 0;
  uint64_t content_high = 0;
};

struct Report {
  Params params;
  std::vector<DocEntry> docs;  // indexed by DocId
  // JSONL input only (else empty): the input files, and each document's
  // place, by DocId.
  std::vector<SourceFile> source_files;
  std::vector<DocPlace> places;
  // With Options::keep_texts, after exact verification: the token texts it
  // read of the documents it proved, for BuildReview(); else null.
  std::shared_ptr<const KeptTexts> kept_texts;
  SortedPairs pairs;              // filled in pairs mode
  std::vector<Cluster> clusters;  // filled in clusters and duplicates modes
  // Members of the clusters that can go (not kept, not reference, not a
  // stream), sorted by name; computed once by the report stage for every
  // writer.
  std::vector<Removal> removable;
  Stats stats;
  IndexStats index;                  // used only with --index
  KeptStats kept;                    // used only with --kept-dir
  KeptStats annotated;               // used only with --annotate-dir (dropped: those marked kept false)
  std::vector<Status> problems;      // what went wrong, "PATH: reason"
  std::vector<std::string> notices;  // advice that changes nothing (warnings)
  // With Options::name_skipped: "PATH: why" for each file skipped (hidden,
  // excluded by --glob, over --max-filesize, binary, under --min-words),
  // sorted by path.
  std::vector<std::string> skipped;

  // The counts of what is reported, derived from it (the stats hold what
  // was read): documents in clusters, and bytes of text of the removable.
  uint64_t clustered() const;
  uint64_t removable_bytes() const;
};

}  // namespace neardup
