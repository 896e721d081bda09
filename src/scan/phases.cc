#include "scan/phases.h"

#include <algorithm>
#include <atomic>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "index/index_keys.h"
#include "index/stored_result.h"
#include "lsh/containment_candidates.h"
#include "lsh/similarity.h"
#include "neardup/quote.h"
#include "report/build_report.h"
#include "report/new_only.h"
#include "scan/annotate_dir.h"

namespace neardup {

namespace {

// What the index holds of the run's inputs; out of memory is an error of
// the index, not the end of the process.
Result<StoredInputs> ReadStored(const Options& options, SignatureIndex& index, const std::atomic<bool>* stop) {
  try {
    return ReadStoredInputs(options, index, stop);
  } catch (const std::bad_alloc&) {
    return Status::IoError(index.path() + ": out of memory while reading the index");
  }
}

// With --index: removes the index entries of the files whose documents
// --exact left out (changed since they were signed, or unreadable now), so
// that the next run signs them again instead of refusing the same stale
// signatures on every run.
Status ForgetLeftOut(const Run& run, const SignedCorpus& corpus,
                     const std::vector<std::pair<DocId, Status>>& left_out) {
  const Options& o = run.options();
  if (o.index.empty() || left_out.empty()) return Status::Ok();
  const IndexKeys keys(o);
  std::vector<std::string> forget;
  for (const auto& [doc, status] : left_out) {
    const InputFile& f = corpus.table.files[corpus.table.docs[doc].file];
    if (!f.identity.stream) forget.push_back(keys.KeyOf(f.path));
  }
  std::sort(forget.begin(), forget.end());
  forget.erase(std::unique(forget.begin(), forget.end()), forget.end());
  return ForgetFiles(o.index, forget);
}

// JSONL: the files and each document's place, for the review page.
void PlacesOf(const SignatureTable& table, Report* report) {
  report->source_files.reserve(table.files.size());
  for (const InputFile& f : table.files) {
    report->source_files.push_back({.path = f.path,
                                    .size = f.size,
                                    .mtime_ns = f.mtime_ns,
                                    .ctime_ns = f.ctime_ns,
                                    .dev = f.identity.dev,
                                    .ino = f.identity.ino,
                                    .stream = f.identity.stream});
  }
  report->places.reserve(table.docs.size());
  for (const DocRecord& r : table.docs) {
    report->places.push_back(
        {.file = r.file, .line = r.line, .content_low = r.content.low, .content_high = r.content.high});
  }
}

}  // namespace

// The bytes of `files` when all are regular uncompressed files (what
// reading them counts), else 0: unknown.
uint64_t BytesToRead(const std::vector<InputFile>& files) {
  uint64_t total = 0;
  for (const InputFile& f : files) {
    if (f.identity.stream || f.path.ends_with(".gz") || f.path.ends_with(".zst")) return 0;
    total += f.size;
  }
  return total;
}

namespace {

// Lets a waiting reading go (WalkInputs).
void Release(std::atomic<bool>& go) {
  go.store(true);
  go.notify_all();
}
struct ReleaseOnExit {
  std::atomic<bool>& go;
  ~ReleaseOnExit() { Release(go); }
};

}  // namespace

Result<WalkedInputs> WalkInputs(const Run& run) {
  const Options& o = run.options();
  WalkedInputs out;
  if (!o.index.empty()) {
    Result<std::unique_ptr<SignatureIndex>> opened = OpenIndexFor(o);
    if (!opened.ok()) return opened.status();
    out.index = std::move(*opened);
  }
  run.Tick(Stage::kWalking);
  out.started_ns = NowNs();  // before the walk stats a file (stored_result.h)
  // A result kept under the run's key is given again when the walk finds
  // its files unchanged (stored_result.h): then what the index holds is not
  // read, and the reading under way stops.
  std::optional<StoredResult> kept;
  if (out.index != nullptr && !run.result_key().empty()) kept = FindResult(o.index, run.result_key());
  std::atomic<bool> give_again{false};
  // What the index holds is read while the inputs are walked: the two costs
  // of a run over changed files overlap. But when a result is kept and the
  // index's last run changed nothing, the files are likely unchanged again
  // (the nightly re-run of a quiet corpus), and a reading beside the walk
  // would only take CPU from it to be stopped: the reading then waits until
  // the walk meets a file changed since the result's run (WalkWatch) or
  // ends, and stops at its first rows when the walk found the files as the
  // result left them. The index is used by the two tasks alone until both
  // are done.
  std::atomic<bool> go{!(kept && LastRunChangedNothing(o.index))};
  const WalkWatch watch{.from_ns = kept ? ChangedSince(*kept) : INT64_MAX, .changed = [&go] { Release(go); }};
  std::optional<Result<WalkedCorpus>> walked;
  std::optional<Result<StoredInputs>> stored;
  const Workers two{.threads = out.index != nullptr ? 2 : 1, .tick = {}, .cancel = nullptr};
  ParallelFor(two, out.index != nullptr ? 2 : 1, [&](int, size_t task) {
    if (task == 0) {
      const ReleaseOnExit release{go};  // whatever the walk gives, or if it throws
      walked.emplace(WalkCorpus(o, run.fs(), go.load() ? nullptr : &watch));
      if (!walked->ok() || out.index == nullptr) return;
      out.listing = ListingOf(**walked);
      const bool clean = (*walked)->errors.empty() && (*walked)->notices.empty();
      if (kept && clean && GivesAgain(*kept, out.listing)) give_again.store(true);
    } else {
      go.wait(false);
      stored.emplace(ReadStored(o, *out.index, &give_again));
    }
  });
  if (!walked->ok()) return walked->status();
  out.walked = std::move(**walked);
  // (The reading stopped, or was done first: its transaction is open.)
  if (give_again.load() && (stored->ok() || stored->status().code() == Status::Code::kCancelled)) {
    out.given_again = std::move(kept);
    return out;
  }
  if (stored) {
    if (!stored->ok()) return stored->status();
    out.stored = std::move(**stored);
  }
  return out;
}

Result<Report> GiveAgain(const Run& run, WalkedInputs walked) {
  SignatureIndex& index = *walked.index;
  // The run's row says it ended, having read no document; the transaction
  // the stopped reading began ends with it.
  if (Status s = index.EndRun(IndexRun{}); !s.ok()) return s;
  if (Status s = index.Commit(); !s.ok()) return s;
  Report report;
  report.params = Params(run.options(), run.banding());
  report.index.used = true;
  report.index.run = index.run();
  report.index.listing = walked.listing;
  report.index.started_ns = walked.started_ns;
  report.index.given_again = std::move(walked.given_again);
  return report;
}

Result<SignedInputs> SignInputs(const Run& run, WalkedInputs walked) {
  SignedInputs out;
  out.walk = walked.walked.counts;
  out.walk_errors = std::move(walked.walked.errors);
  out.walk_notices = std::move(walked.walked.notices);
  out.walk_skipped = std::move(walked.walked.skipped);
  const size_t n_files = walked.walked.files.size();
  Workers signing = run.workers();
  if (run.Watched()) {
    const uint64_t bytes_total = walked.index == nullptr ? BytesToRead(walked.walked.files) : 0;
    signing.tick = [&run, n_files, bytes_total] { run.Tick(Stage::kReading, n_files, bytes_total); };
  }
  SignContext ctx = run.Signing(signing);
  if (walked.index == nullptr) {
    // The bitmaps are built while the gate finds them worth it (an index
    // stores them for later runs: it builds them all). The gate judges
    // Jaccard's candidates alone: containment's always want them.
    std::optional<BitmapGate> gate;
    if (ctx.set_bitmaps && run.options().relation == Relation::kSimilar) {
      gate.emplace(BitmapGate::Params{.bands = run.banding().bands,
                                      .rows = run.banding().rows,
                                      .floor = CandidateFloor(run.options()),
                                      .threshold = run.options().threshold,
                                      .bytes = BytesToRead(walked.walked.files)});
      ctx.bitmap_gate = &*gate;
    }
    out.corpus = Sign(ctx, std::move(walked.walked.files));
  } else {
    Result<IndexedCorpus> s =
        SignWithIndex(ctx, std::move(walked.walked.files), *walked.index, std::move(*walked.stored));
    if (!s.ok()) return s.status();
    out.corpus = std::move(s->corpus);
    out.signed_now = std::move(s->signed_now);
    out.index = s->stats;
    out.index.listing = walked.listing;
    out.index.started_ns = walked.started_ns;
    out.stored_bitmaps = std::move(s->stored_bitmaps);
  }
  if (run.Cancelled()) return Status::Cancelled("interrupted");
  return out;  // the index is closed here: the next run may start
}

namespace {

// With --index: reads the stored bitmaps of the documents in `found`'s pairs
// that have none yet (reused), then leaves out the pairs they rule out, as
// FindCandidates() would have with every bitmap at once.
// The bitmaps read go into *read.
Result<Candidates> RuleOutByStoredBitmaps(const Run& run, SignedInputs& inputs, Candidates found, uint64_t* read) {
  std::unique_ptr<StoredBitmaps> stored = std::move(inputs.stored_bitmaps);
  SignedCorpus& corpus = inputs.corpus;
  if (corpus.bitmaps.size() != corpus.table.docs.size()) return found;
  std::vector<uint8_t> wanted(corpus.table.docs.size(), 0);
  for (const Candidate& c : found.pairs) {
    wanted[c.a] = corpus.bitmaps[c.a].empty() ? 1 : 0;
    wanted[c.b] = corpus.bitmaps[c.b].empty() ? 1 : 0;
  }
  if (!found.pairs.status().ok()) return found.pairs.status();
  // At most what a plain run's bitmaps hold (4 bits a byte of text).
  // A read that fails (the index damaged since) leaves the documents after
  // it without a bitmap: they rule nothing out, and the answer is the same.
  const Status filled = stored->Fill(wanted, corpus.table.docs, kBitmapTextBudget / 2, &corpus.bitmaps);
  static_cast<void>(filled);
  *read = stored->read();
  return RuleOutByBitmaps(std::move(found), run.options(), corpus.bitmaps, corpus.table.docs.size());
}

// --relation contains|both: the containment candidates (by size strata),
// and with `both` those of the Jaccard banding, `found`, besides.
Result<Candidates> AddContainmentCandidates(const Run& run, const SignedCorpus& corpus, const CopyGroups& groups,
                                            Candidates found) {
  Result<Candidates> contained =
      FindContainmentCandidates(corpus.table, groups, run.options(), run.workers(), {}, corpus.bitmaps);
  if (!contained.ok()) return contained.status();
  if (run.options().relation == Relation::kContains) return contained;
  return MergeCandidates(std::move(found), std::move(*contained), run.options());
}

}  // namespace

Result<FoundPairs> FindCandidatePairs(const Run& run, SignedInputs& inputs) {
  const SignedCorpus& corpus = inputs.corpus;
  const SignatureTable& table = corpus.table;
  FoundPairs out{.groups = CopyGroups::Build(table), .candidates = {}};
  if (!run.rule().identical_only) {
    run.Tick(Stage::kBanding);
    const Relation relation = run.options().relation;
    Result<Candidates> found =
        relation == Relation::kContains
            ? Candidates{}
            : FindCandidates(table, out.groups, run.options(), run.banding(), run.workers(), corpus.bitmaps);
    if (found.ok() && inputs.stored_bitmaps != nullptr)
      found = RuleOutByStoredBitmaps(run, inputs, std::move(*found), &out.bitmaps_read);
    if (found.ok() && relation != Relation::kSimilar)
      found = AddContainmentCandidates(run, corpus, out.groups, std::move(*found));
    if (!found.ok()) return found.status();
    out.candidates = std::move(*found);
  }
  inputs.stored_bitmaps = nullptr;  // the index's read snapshot ends
  return out;
}

namespace {

// Per file, what the report needs of it once the paths are let go: the
// input it came from, and whether it was read from a stream: stdin (`-`,
// even redirected from a file: `rm -- -` would hit another file), a pipe, a
// FIFO or a device.
std::vector<FileOrigin> OriginsOf(const std::vector<InputFile>& files) {
  std::vector<FileOrigin> out(files.size());
  for (size_t k = 0; k < files.size(); ++k) {
    out[k] = {.root = files[k].root, .stream = files[k].identity.stream || files[k].path == "-"};
  }
  return out;
}

// The flags of the filters a run asks for, each indexed by DocId: with
// --new (when `with_new`), the documents signed in this run; with --against
// (and not --among-new), the reference documents. What is reported must
// involve a flagged document of each. --kept-dir leaves out what the run
// would list without --new: the folder is the deduplicated corpus, old
// duplicates left out too, whatever --new reports (docs/kept-dir.md).
// `Doc` is what a phase holds of each document (DocRecord before the
// report, DocEntry in it): only its `reference` is read.
template <class Doc>
std::vector<std::vector<uint8_t>> Filters(const Options& o, const std::vector<uint8_t>& signed_now,
                                          const std::vector<Doc>& docs, bool with_new) {
  std::vector<std::vector<uint8_t>> out;
  if (o.new_only && with_new) out.push_back(signed_now);
  if (!o.against.empty() && !o.among_new) {
    std::vector<uint8_t> reference(docs.size());
    for (size_t d = 0; d < docs.size(); ++d) reference[d] = docs[d].reference ? 1 : 0;
    out.push_back(std::move(reference));
  }
  return out;
}

// The clusters of clusters and duplicates modes, cut down by Filters(): one
// path for those modes and for what --kept-dir leaves out in every mode.
Result<Clustering> FilteredClustering(const Run& run, const FoundPairs& found, const Verified& verified,
                                      const std::vector<std::vector<uint8_t>>& filters,
                                      const std::vector<DocEntry>& docs) {
  run.Tick(Stage::kClustering);
  Result<Clustering> built = BuildClustering(found.groups, verified, run.options(), docs,
                                             [&run](uint64_t linked) { run.TickClustering(linked); });
  if (!built.ok()) return built.status();
  for (const std::vector<uint8_t>& flagged : filters) *built = ClustersWith(flagged, std::move(*built));
  return built;
}

// The ids of the removable documents, ascending.
std::vector<DocId> IdsOf(const std::vector<Removal>& removable) {
  std::vector<DocId> out;
  out.reserve(removable.size());
  for (const Removal& r : removable) out.push_back(r.doc);
  std::sort(out.begin(), out.end());
  return out;
}

// The report's pairs or clusters by mode, cut down by Filters(); with
// `dropped` given, in it the documents --mode duplicates would list.
// `whole`, when set, receives what the kept and annotated corpora are made
// of: the dropped documents and, with --annotate-dir, the clusters of the
// whole corpus (not cut down to what --new reports).
Status BuildOutcome(const Run& run, const FoundPairs& found, const Verified& verified,
                    const std::vector<uint8_t>& signed_now, Report* report, ReportOutcome* whole) {
  const Options& o = run.options();
  const bool want_dropped = whole != nullptr;
  const auto keep_whole = [&](const Clustering& c) {
    whole->dropped = IdsOf(c.removable);
    if (o.annotate_dir.empty()) return;
    whole->clusters = c.clusters;
    whole->removable = c.removable;
  };
  const std::vector<std::vector<uint8_t>> filters = Filters(o, signed_now, report->docs, true);
  // What is dropped from the kept corpus: as reported, but never cut down
  // to what --new reports.
  const std::vector<std::vector<uint8_t>> corpus_filters = Filters(o, signed_now, report->docs, false);
  if (o.relation != Relation::kSimilar) {
    MarkContained(found.groups, verified.pairs, &report->docs);
    if (!verified.pairs.status().ok()) return verified.pairs.status();
  }
  if (o.mode == Mode::kPairs) {
    Result<PairList> built = BuildPairs(found.groups, verified.pairs, o, report->docs);
    if (!built.ok()) return built.status();
    report->notices = std::move(built->notices);
    for (const std::vector<uint8_t>& flagged : filters) {
      Result<SortedPairs> kept = PairsWith(flagged, built->pairs, o.pair_memory);
      if (!kept.ok()) return kept.status();
      built->pairs = std::move(*kept);
    }
    report->pairs = std::move(built->pairs);
    if (want_dropped) {
      Result<Clustering> clustered = FilteredClustering(run, found, verified, corpus_filters, report->docs);
      if (!clustered.ok()) return clustered.status();
      keep_whole(*clustered);
    }
    return Status::Ok();
  }
  Result<Clustering> built = FilteredClustering(run, found, verified, corpus_filters, report->docs);
  if (!built.ok()) return built.status();
  if (want_dropped) keep_whole(*built);
  if (o.new_only) *built = ClustersWith(signed_now, std::move(*built));
  report->clusters = std::move(built->clusters);
  report->removable = std::move(built->removable);
  return Status::Ok();
}

// Whether the run writes a corpus besides its records (--kept-dir,
// --annotate-dir), which needs the dropped documents in every mode.
bool WritesCorpus(const Options& o) { return !o.kept_dir.empty() || !o.annotate_dir.empty(); }

// Invalid UTF-8 sequences above which the run names --encoding latin1.
constexpr uint64_t kManyInvalidUtf8 = 100;

bool LooksLikeJsonl(std::string_view name) {
  for (const std::string_view end : {".jsonl", ".jsonl.gz", ".jsonl.zst", ".ndjson", ".ndjson.gz", ".ndjson.zst"}) {
    if (name.size() > end.size() && name.ends_with(end)) return true;
  }
  return false;
}

// Advice on what the run read, before it misleads: JSON lines read as plain
// text, Latin-1 read as UTF-8, an input with no document at all.
void AddHints(const Options& o, Report* report) {
  const Stats& st = report->stats;
  if (o.input == InputFormat::kText) {
    uint64_t jsonl = 0;
    const DocEntry* first = nullptr;
    for (const DocEntry& d : report->docs) {
      if (!LooksLikeJsonl(d.name)) continue;
      if (first == nullptr) first = &d;
      ++jsonl;
    }
    if (first != nullptr) {
      report->notices.push_back(first->name + (jsonl > 1 ? " (and " + std::to_string(jsonl - 1) + " more)" : "") +
                                " read as one text document each: add --input jsonl to read each line as a document");
    }
  }
  if (report->index.signed_again) {
    report->notices.push_back(
        "the index's signatures were made by an older MinHash definition: its files are signed again as they are "
        "walked, this once (documents unchanged stay known to --new)");
  }
  if (report->index.counted_again > 0) {
    const bool one = report->index.counted_again == 1;
    report->notices.push_back(std::to_string(report->index.counted_again) + (one ? " file" : " files") +
                              " of the index " + (one ? "has" : "have") +
                              " no distinct-shingle counts (stored before them, or by runs without --relation): " +
                              (one ? "it is" : "they are") + " signed again as walked, this once");
  }
  // Of the files read in this run: a file reused from the --index was
  // advised on by the run that read it.
  const uint64_t invalid_utf8 = st.invalid_utf8 - std::min(st.invalid_utf8, report->index.reused_invalid_utf8);
  if (invalid_utf8 > kManyInvalidUtf8 && o.encoding == Encoding::kUtf8) {
    report->notices.push_back(std::to_string(invalid_utf8) +
                              " invalid UTF-8 sequences replaced: if the files are Latin-1 (or Windows-1252), "
                              "--encoding latin1 reads them as such");
  }
  if (st.documents == 0) {
    std::string why;
    if (st.empty + st.skipped() + st.unreadable + st.malformed_lines > 0) {
      why = " (" + std::to_string(st.empty) + " empty, " + std::to_string(st.skipped()) + " skipped, " +
            std::to_string(st.unreadable) + " unreadable, " + std::to_string(st.malformed_lines) +
            (st.malformed_lines == 1 ? " malformed line)" : " malformed lines)");
    }
    report->notices.push_back("no document to compare: nothing with words was read from the given paths" + why);
  }
}

// --input jsonl over files that are not JSONL (#41): a file with no document
// whose every problem is a line that does not start as a JSON object (a text
// file) is said once for the run, with the advice to read it as text, instead
// of a warning a line (-v still lists every line). Its lines still count as
// malformed. Returns the notice; nothing when every file is JSONL.
std::optional<std::string> FoldFilesNotJsonl(const SignedCorpus& corpus, bool name_lines,
                                             std::vector<InputProblem>* problems, Stats* stats) {
  const std::vector<InputFile>& files = corpus.table.files;
  std::vector<uint8_t> jsonl(files.size(), 0);  // a document, or another kind of problem
  std::vector<uint64_t> not_json(files.size(), 0);
  for (const DocRecord& d : corpus.table.docs) jsonl[d.file] = 1;
  for (const UnsignedDoc& u : corpus.unnamed_unsigned) jsonl[u.file] = 1;
  for (const NamedUnsignedDoc& u : corpus.named_unsigned) jsonl[u.doc.file] = 1;
  for (const InputProblem& p : *problems) {
    if (p.file >= files.size()) continue;
    if (p.kind == InputProblem::Kind::kMalformed && p.not_json) {
      ++not_json[p.file];
    } else {
      jsonl[p.file] = 1;
    }
  }
  uint64_t count = 0;
  uint64_t lines = 0;
  const InputFile* first = nullptr;
  for (size_t f = 0; f < files.size(); ++f) {
    if (jsonl[f] != 0 || not_json[f] == 0) continue;
    if (first == nullptr) first = &files[f];
    ++count;
    lines += not_json[f];
  }
  if (count == 0) return std::nullopt;
  if (!name_lines) {
    std::erase_if(*problems, [&](const InputProblem& p) {
      const bool folded = p.file < files.size() && jsonl[p.file] == 0 && not_json[p.file] > 0;
      if (folded) ++stats->malformed_lines;
      return folded;
    });
  }
  std::string notice = first->path;
  if (count == 1) {
    notice += lines == 1 ? " is not JSONL: its one line is not a JSON object"
                         : " is not JSONL: none of its " + std::to_string(lines) + " lines is a JSON object";
  } else {
    notice += " and " + std::to_string(count - 1) + (count == 2 ? " more file" : " more files") +
              " are not JSONL: none of their " + std::to_string(lines) + " lines is a JSON object";
  }
  return notice + " (skipped as malformed); to read each file as one document, use --input text";
}

// With Options::name_skipped: what the walk skipped and the documents read
// and left out (binary, under --min-words), "PATH: why", sorted.
std::vector<std::string> NamedSkipped(const Options& o, const std::vector<DocRecord>& docs,
                                      std::vector<std::string> walked) {
  if (!o.name_skipped) return {};
  for (const DocRecord& d : docs) {
    if (d.kind == DocKind::kBinary) walked.push_back(ShellQuoted(d.name) + ": binary");
    if (d.kind == DocKind::kTooShort) walked.push_back(ShellQuoted(d.name) + ": under --min-words");
  }
  std::sort(walked.begin(), walked.end());
  return walked;
}

// Verification as the run asks for it: the verdicts an index kept, or the
// candidates checked (their documents read again where the run rereads);
// `reread` is set to the documents read again.
Result<Verified> VerifyFound(const Run& run, SignedInputs& inputs, FoundPairs& found, bool want_dropped,
                             uint64_t* reread) {
  const Options& o = run.options();
  SignedCorpus& corpus = inputs.corpus;
  // Ticks while documents are read again: the time shown keeps moving.
  Workers verifying = run.workers();
  if (run.Watched() && run.rereads()) verifying.tick = [&run] { run.Tick(Stage::kVerifying); };
  if (run.rereads()) run.Tick(Stage::kVerifying);
  VerifyContext verify = run.Verifying(verifying);
  // Pairs mode reads no set after verification but for the dropped lists,
  // and reads again only what it can report.
  verify.keep_sets = o.mode != Mode::kPairs || want_dropped;
  if (!verify.keep_sets) verify.report_filters = Filters(o, inputs.signed_now, corpus.table.docs, true);
  Result<Verified> verified = found.verdicts
                                  ? std::move(*found.verdicts).Adopt(run.rule(), corpus, &found.groups)
                                  : VerifyCandidates(verify, corpus, &found.groups, std::move(found.candidates));
  if (verified.ok()) *reread = verify.reread.total.load(std::memory_order_relaxed);
  return verified;
}

}  // namespace

Result<Report> ReportPhase(const Run& run, SignedInputs inputs, FoundPairs found) {
  Result<ReportOutcome> reported = ReportAndDropped(run, std::move(inputs), std::move(found));
  if (!reported.ok()) return reported.status();
  return std::move(reported->report);
}

Result<ReportOutcome> ReportAndDropped(const Run& run, SignedInputs inputs, FoundPairs found, DroppedWanted wanted) {
  const Options& o = run.options();
  SignedCorpus& corpus = inputs.corpus;
  const std::vector<FileOrigin> origins = OriginsOf(corpus.table.files);
  // Text files need their paths again only to be read again.
  if (!run.rereads() && o.input == InputFormat::kText) corpus.table.files = {};
  ReportOutcome out;
  Report& report = out.report;
  report.params = MakeParams(o, run.banding());
  report.index = inputs.index;
  report.index.bitmaps_read = found.bitmaps_read;
  report.stats = CountRead(corpus, inputs.walk, inputs.left_out);
  const std::optional<std::string> not_jsonl =
      RowsAreDocuments(o.input) ? FoldFilesNotJsonl(corpus, o.name_skipped, &corpus.problems, &report.stats)
                                : std::nullopt;
  corpus.unnamed_unsigned = {};  // counted: nothing else reads them
  corpus.named_unsigned = {};
  report.stats.candidates = found.candidates.visited;
  if (run.Cancelled()) return Status::Cancelled("interrupted");

  const bool want_dropped = wanted == DroppedWanted::kAlways || WritesCorpus(o);
  Result<Verified> verified = VerifyFound(run, inputs, found, want_dropped, &report.stats.reread);
  if (!verified.ok()) return verified.status();
  // No signature is read past verification but by --cluster-by keep, which
  // reads them back in: the borrowed pages need not stay resident.
  for (const auto& file : inputs.mapped) file->Release(0, file->size());
  if (inputs.index.used) {
    if (Status s = ForgetLeftOut(run, corpus, verified->left_out); !s.ok()) return s;
  }
  for (auto& [doc, status] : verified->left_out) {
    const DocRecord& r = corpus.table.docs[doc];
    corpus.problems.push_back({.file = r.file, .line = r.line, .status = status});
  }
  report.stats.exact_duplicates = found.groups.copies();
  report.skipped = NamedSkipped(o, corpus.table.docs, std::move(inputs.walk_skipped));
  if (RowsAreDocuments(o.input) && o.doc_places) PlacesOf(corpus.table, &report);
  report.kept_texts = std::move(verified->texts);
  report.docs = Entries(std::move(corpus.table.docs), origins);
  if (Status s = BuildOutcome(run, found, *verified, inputs.signed_now, &report, want_dropped ? &out : nullptr);
      !s.ok()) {
    return s;
  }
  report.notices.insert(report.notices.begin(), inputs.walk_notices.begin(), inputs.walk_notices.end());
  if (not_jsonl) report.notices.push_back(*not_jsonl);
  report.problems =
      TallyProblems(inputs.walk, std::move(inputs.walk_errors), std::move(corpus.problems), &report.stats);
  AddHints(o, &report);
  report.stats.seconds = run.seconds();
  run.Tick(Stage::kDone);
  return out;
}

Result<Report> KeptDirPhase(const Run& run, const KeptSources& sources, ReportOutcome reported) {
  const Options& o = run.options();
  Report& report = reported.report;
  if (!o.kept_dir.empty()) {
    const double start = run.seconds();
    KeptWritten written = WriteKeptDir(run, sources, reported.dropped);
    if (run.Cancelled()) return Status::Cancelled("interrupted");  // files written stay whole
    report.kept = written.stats;
    report.kept.seconds = run.seconds() - start;
    for (Status& s : written.problems) report.problems.push_back(std::move(s));
  }
  if (!o.annotate_dir.empty()) {
    const double start = run.seconds();
    KeptWritten written =
        WriteAnnotateDir(run, sources, report, reported.clusters, reported.removable, reported.dropped);
    if (run.Cancelled()) return Status::Cancelled("interrupted");
    report.annotated = written.stats;
    report.annotated.seconds = run.seconds() - start;
    for (Status& s : written.problems) report.problems.push_back(std::move(s));
  }
  report.stats.seconds = run.seconds();
  return std::move(report);
}

}  // namespace neardup
