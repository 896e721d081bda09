// Options: every tunable of the core library, with its default and valid range.
//
// The front end fills an Options from the command line; ValidateOptions() checks
// ranges and cross-option rules (bands*rows <= num_perm, ...). Every default
// lives here and nowhere else; the option table (option_table.h) holds each
// option's name, range, spellings and help, and a test checks that the
// defaults it shows are these.
//
// Thread safety: a plain value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "neardup/status.h"

namespace neardup {

enum class ShingleUnit { kWord, kChar };
enum class VerifyMode { kSignature, kExact, kNone };
enum class InputFormat { kText, kJsonl, kParquet };
// kJsonl and kParquet: each line or row is a document. A Parquet row is read
// as a JSONL line of its text and id (src/walk/parquet_rows.h), so whatever
// reads lines reads rows the same way.
inline bool RowsAreDocuments(InputFormat input) { return input != InputFormat::kText; }
// kUtf8 reads UTF-8 (a UTF-8 BOM is dropped; UTF-16 LE/BE with a BOM is
// transcoded). kLatin1 reads every byte as the code point of the same value.
enum class Encoding { kUtf8, kLatin1 };
// --strip: what of a document is compared. kNone: its text as read. kHtml:
// the text an HTML page shows (src/text/html_text.h). kMail: an RFC 5322
// message's body (src/text/mail_text.h). Never detected: the user asks.
enum class Strip { kNone, kHtml, kMail };
enum class Mode { kPairs, kClusters, kDuplicates };
// What relation a scan reports (--relation): near copies by Jaccard, one
// document contained in another, or both.
enum class Relation { kSimilar, kContains, kBoth };
// The relation a pair is reported for (scan --relation): near copies, or
// one document contained in the other, which way.
enum class PairKind : uint8_t {
  kSimilar = 0,  // Jaccard at the threshold (the only kind without --relation)
  kAInB = 1,     // a contained in b: C(a, b) at the threshold
  kBInA = 2,     // b contained in a
};
enum class KeepRule { kFirst, kLongest, kShortest, kNewest, kOldest };
enum class ClusterBy { kConnected, kKeep };
// -f: how the writers (writers.h) write a Report. kPaths: the bare list of
// removable paths, what --mode duplicates writes when no -f is given (not a
// choice of -f).
enum class OutputFormat { kJsonl, kJson, kCsv, kTsv, kHtml, kPaths };

// The shingle sizes when --ngram is not given (Options::EffectiveNgram()).
inline constexpr int kWordNgram = 5;
inline constexpr int kCharNgram = 9;

// An LSH banding: `bands` bands of `rows` signature positions each (bands *
// rows <= num_perm), as --bands/--rows give it or as chosen for the threshold
// (Options::bands). A pair is a candidate when its signatures agree in every
// row of at least one band.
struct Banding {
  int bands = 0;
  int rows = 0;
};

struct Options {
  // --- What to read -------------------------------------------------------
  // Files or directories (walked recursively). Default: none.
  std::vector<std::string> paths;
  // Lists of paths, one per line (files_from) or NUL-separated (files0_from);
  // "-" is standard input, read by the front end into `listed_paths`.
  std::vector<std::string> listed_paths;
  // Globs matched against the path below the PATH argument; "!GLOB" excludes;
  // the last matching glob wins. Default: none (everything).
  std::vector<std::string> globs;
  // Ignore files, in gitignore syntax (src/walk/ignore.h), matched against
  // the path below each PATH argument, below the .ignore and .gitignore files
  // in precedence. Repeatable. Default: none.
  std::vector<std::string> ignore_files;
  // Honour no .ignore or .gitignore file (`ignore_files` still are, as in
  // ripgrep). Default: false (they are honoured, as in ripgrep).
  bool no_ignore = false;
  // Include files and directories whose name starts with '.'. Default: false.
  bool hidden = false;
  // Follow symbolic links (loops are detected by device and inode). Default: false.
  bool follow = false;
  // Files larger than this many bytes are skipped and counted. 0 = no limit (default).
  uint64_t max_filesize = 0;
  // JSONL: a line longer than this many bytes (without its newline) is
  // skipped as malformed, never held whole. Range >= 1. Default: 256 MiB.
  uint64_t max_line = uint64_t{256} << 20;
  // kText: each file is a document. kJsonl: each line of each file is one.
  // kParquet: each row of each file (read as Parquet whatever its name) is
  // one. Default: kText, and kParquet when every PATH names a *.parquet file.
  InputFormat input = InputFormat::kText;
  // JSONL keys, Parquet columns. Defaults: "text" and "id" (without an id:
  // FILE:LINE, FILE:ROW).
  std::string text_key = "text";
  std::string id_key = "id";
  Encoding encoding = Encoding::kUtf8;
  // What of each document (a file, or a JSONL text field) is read: all of
  // it, or with kHtml/kMail its text, taken from the whole document held in
  // memory: a file up to `max_filesize` bytes, or `max_line` when
  // max_filesize is 0 (a larger file is skipped as too large); a JSONL text
  // within its line (`max_line`). Part of the signature parameters.
  // Default: kNone.
  Strip strip = Strip::kNone;
  // Documents with fewer words are skipped and counted. Range >= 1. Default: 1.
  uint64_t min_words = 1;
  // Reference set: documents under these paths are never removable, and
  // pairs among reference documents alone are not reported. Default: none.
  std::vector<std::string> against;
  // With --against: report also what involves new documents alone (pairs of
  // two new documents, clusters without a reference document). Default
  // false: only what involves a reference document is reported.
  bool among_new = false;

  // --- Shingling and signatures -------------------------------------------
  ShingleUnit shingle = ShingleUnit::kWord;
  // Words or characters per shingle. Range 1..64. 0 = kWordNgram (5) for
  // words, kCharNgram (9) for chars.
  int ngram = 0;
  // MinHash permutations (signature length). Range 1..4096. Default: 128.
  int num_perm = 128;
  // LSH banding; bands*rows <= num_perm. 0 and 0 = chosen by ChooseBanding().
  int bands = 0;
  int rows = 0;
  // Seed of every hash function. Default: 1.
  uint64_t seed = 1;

  // --- Verification and reporting -----------------------------------------
  // Minimum similarity of a reported pair. Range (0, 1]. Default: 0.8.
  double threshold = 0.8;
  // params --contains: show the banding that finds a document contained in
  // another, C(A, B) = |A ∩ B| / |A| >= threshold (size strata, a banding per
  // distance between strata, the probability at each ratio) instead of the
  // Jaccard banding. Default: false.
  bool contains = false;
  // Containment: the largest size ratio |B| / |A| of a container B to a
  // contained A that is looked for; larger ones are out of reach.
  // Range [1, 1024]. Default: 8.
  double max_ratio = 8;
  // scan --relation: kSimilar (default) reports near copies by Jaccard;
  // kContains a document contained in another, C(A, B) >= threshold (the
  // pair reported as container and contained); kBoth both, each pair once.
  Relation relation = Relation::kSimilar;
  // The guard against templates (docs/method.md), for containment only:
  // a contained document has at least `min_contained` distinct shingles
  // (Range >= 1. Default: 50); the pair's Jaccard is at least `min_jaccard`
  // (Range [0, 1]. Default: 0.05); the container is at least `min_ratio`
  // times as large (Range [1, 1024]. Default: 1.2): pairs of near-equal
  // sizes are judged by Jaccard alone.
  uint64_t min_contained = 50;
  double min_jaccard = 0.05;
  double min_ratio = 1.2;
  // How a candidate pair is checked before it is reported. kExact (default):
  // its exact Jaccard, from the documents' shingle sets read again (a stream's
  // from the copy kept of it), so no reported pair and no removable document
  // is below `threshold`. kSignature: the MinHash estimate alone (Mining of
  // Massive Datasets' check): cheaper, but a pair whose estimate reaches the
  // threshold may be below it. kNone: every LSH candidate.
  VerifyMode verify = VerifyMode::kExact;
  // With kExact: candidates whose signature estimate lies more than this
  // many standard errors of the estimate at the threshold, sqrt(t(1-t)/
  // num_perm), below the threshold are not checked. A pair whose Jaccard is
  // at the threshold falls that far with the binomial tail's probability,
  // near Phi(-margin) (3.2e-5 at 4): with 128 permutations 2.9e-5 at t =
  // 0.5, 1.0e-4 at 0.8, 1.5e-4 at 0.9; one above it less often. 0 = check
  // every candidate (--exact-all). Range >= 0. Default: 4.
  double exact_margin = 4.0;
  Mode mode = Mode::kPairs;
  KeepRule keep = KeepRule::kFirst;
  // Who is in a cluster. kKeep (default): only documents that pass the run's
  // verification against the cluster's kept document itself, so every
  // removable document is like the one kept. kConnected: the connected
  // components of the verified pairs; members may be unlike the kept one
  // (A~B, B~C), so its removable list is not safe for rm.
  ClusterBy cluster_by = ClusterBy::kKeep;

  // --- Index (signature_index.h) -------------------------------------------
  // SQLite file keeping signatures between runs: only new and changed files
  // are read. Default: none.
  std::string index;
  // Report only what involves a document signed in this run. Needs `index`.
  bool new_only = false;
  // Seconds to wait for another run holding the index. Range >= 0. Default: 0.
  double lock_wait = 0;

  // --- Execution -----------------------------------------------------------
  // Worker threads. 0 = number of cores (default).
  int threads = 0;
  // --- The deduplicated corpus ----------------------------------------------
  // Folder to write the kept documents to, besides the records on stdout:
  // every input file that holds documents, at its path below its PATH
  // argument, without the documents --mode duplicates would list (JSONL:
  // the other lines byte for byte, compressed as the input; text files:
  // hard-linked or copied). Must not exist or be empty. Default: none.
  std::string kept_dir;
  // With kept_dir: copy text files, never hard-link them. Default: false.
  bool kept_copy = false;
  // Folder to write the whole corpus to, each JSONL line (document) or
  // Parquet row with added fields: cluster, duplicate_of, score, kept
  // (docs/output.md#annotated-corpus). JSONL and Parquet input only. Must
  // not exist or be empty. Default: none.
  std::string annotate_dir;
  // With annotate_dir: the prefix of the added fields' names, which must not
  // be in the input already. Default: none.
  std::string annotate_prefix;

  // --- Execution (continued) -------------------------------------------------
  // Memory for each sequence of pairs a run holds: the candidate pairs (split
  // among the LSH workers), the verified pairs and the reported pairs, one
  // filled at a time. Past it, sorted runs go to temporary files (TMPDIR,
  // else /tmp) and are merged as they are read. Default: 64 MiB.
  uint64_t pair_memory = uint64_t{64} << 20;
  // Name each file skipped (hidden, --glob, --max-filesize, binary,
  // --min-words) in Report::skipped, not only count it (-v). Default: false.
  bool name_skipped = false;
  // JSONL: keep each document's file and line in Report::places, so that
  // BuildReview() can read the documents shown again (-f html sets it).
  // Costs 32 bytes per document. Default: false.
  bool doc_places = false;
  // Exact verification keeps the token texts it reads (in its temporary
  // files, TMPDIR) in Report::kept_texts, so that BuildReview() shows them
  // without reading the documents a third time (-f html in pairs mode sets
  // it). Costs the disk of those texts until the report is gone. Default:
  // false.
  bool keep_texts = false;

  // The shingle size in effect: `ngram`, or the unit's default.
  int EffectiveNgram() const { return ngram > 0 ? ngram : (shingle == ShingleUnit::kWord ? kWordNgram : kCharNgram); }

  bool operator==(const Options&) const = default;
};

// Upper bounds of the ranges above, used by the option table (option_table.h),
// from which ValidateOptions() and the front end take every range.
inline constexpr int kMaxNgram = 64;
inline constexpr int kMaxNumPerm = 4096;
inline constexpr int kMaxThreads = 1024;

// Checks each value against its range in the option table, then the rules
// across options. Returns InvalidArgument with one short line naming the
// option and the value (e.g. "--threshold must be in (0, 1], got -0.5",
// "--bands 40 --rows 4 needs 160 permutations, --num-perm is 128"); products
// are computed in 64 bits, so no value overflows.
Status ValidateOptions(const Options& options);

// The names of enum values, as typed and as written in the output; spelled
// once, in the option table (option_table.h: NameOf(), FromString()).
const char* ToString(ShingleUnit unit);
const char* ToString(VerifyMode verify);
const char* ToString(Mode mode);
const char* ToString(KeepRule keep);
const char* ToString(ClusterBy cluster_by);
const char* ToString(Strip strip);
const char* ToString(Relation relation);

}  // namespace neardup
