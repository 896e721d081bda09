// The scan: the stages composed, with progress and the tally of problems.
// Each stage is its own module (see the README's Architecture section):
// walk (corpus.h) -> sign (sign.h) -> group copies (copy_groups.h) ->
// candidates (candidates.h) -> verify (verify_candidates.h) -> report
// (build_report.h).
#include "neardup/scan.h"

#include <algorithm>
#include <chrono>
#include <new>
#include <optional>
#include <thread>

#include "lsh/banding.h"
#include "report/build_report.h"
#include "lsh/candidates.h"
#include "lsh/copy_groups.h"
#include "walk/walk.h"
#include "sign/minhash.h"
#include "report/new_only.h"
#include "base/parallel.h"
#include "sign/sign.h"
#include "index/sign_indexed.h"
#include "verify/verify_candidates.h"

namespace neardup {

const char* ToString(Stage stage) {
  switch (stage) {
    case Stage::kWalking: return "walking";
    case Stage::kReading: return "reading";
    case Stage::kBanding: return "banding";
    case Stage::kVerifying: return "verifying";
    case Stage::kClustering: return "clustering";
    case Stage::kDone: return "done";
  }
  return "?";
}

namespace {

using Clock = std::chrono::steady_clock;

// Reports progress to the caller's callback, at most every 200 ms within a
// stage; always on a change of stage.
class ProgressReporter {
 public:
  ProgressReporter(const RunContext& ctx, const SignProgress& counts) : ctx_(ctx), counts_(counts) {}
  void Tick(Stage stage, uint64_t total = 0) {
    if (!ctx_.progress) return;
    const auto now = Clock::now();
    if (stage == last_stage_ && now - last_tick_ < std::chrono::milliseconds(200)) return;
    last_tick_ = now;
    last_stage_ = stage;
    Progress p;
    p.stage = stage;
    p.inputs_done = stage == Stage::kReading ? counts_.inputs_done.load() : 0;
    p.inputs_total = total;
    p.bytes = counts_.bytes.load();
    p.documents = counts_.documents.load();
    p.seconds = seconds();
    ctx_.progress(p);
  }
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  const RunContext& ctx_;
  const SignProgress& counts_;
  const Clock::time_point start_ = Clock::now();
  Clock::time_point last_tick_{};
  Stage last_stage_ = Stage::kDone;
};

// ReadStoredInputs on a thread of its own: an exception (out of memory)
// becomes a Status there instead of ending the process.
Result<StoredInputs> ReadStoredInputsNoThrow(const Options& o, SignatureIndex& index) {
  try {
    return ReadStoredInputs(o, index);
  } catch (const std::bad_alloc&) {
    return Status::IoError(index.path() + ": out of memory while reading the index");
  }
}

// What the walk and signing stages give the rest of the scan.
struct SignedInputs {
  SignedCorpus corpus;
  WalkCounts walk;
  std::vector<uint8_t> signed_now;  // with --index: per document, signed in this run
};

// Walks the inputs and signs them (through the index with --index, which is
// locked and checked before anything is read); the walk's problems, counts
// and the index's counts go to `report`.
Result<SignedInputs> WalkAndSign(const Options& o, FileSystem& fs, const Workers& workers, const MinHasher& minhasher,
                                 bool rereads, ProgressReporter& progress, SignProgress& counts, Report* report) {
  std::unique_ptr<SignatureIndex> index;
  if (!o.index.empty()) {
    Result<std::unique_ptr<SignatureIndex>> opened = OpenIndexFor(o);
    if (!opened.ok()) return opened.status();
    index = std::move(*opened);
  }
  progress.Tick(Stage::kWalking);
  // What the index holds is read on a second thread while the inputs are
  // walked: the two costs of a run over unchanged files overlap. (The index
  // is used by that thread alone until it is joined.)
  std::optional<Result<StoredInputs>> stored;
  std::jthread reader;
  if (index != nullptr) reader = std::jthread([&] { stored.emplace(ReadStoredInputsNoThrow(o, *index)); });
  Result<WalkedCorpus> walked = WalkCorpus(o, fs);
  if (reader.joinable()) reader.join();
  if (!walked.ok()) return walked.status();
  for (Status& e : walked->errors) report->problems.push_back(std::move(e));
  SignedInputs out;
  out.walk = walked->counts;
  report->stats.hidden = out.walk.hidden;
  report->stats.glob = out.walk.glob;
  report->stats.too_large = out.walk.too_large;
  report->stats.special = out.walk.special;

  const size_t n_files = walked->files.size();
  Workers signing = workers;
  signing.tick = [&] { progress.Tick(Stage::kReading, n_files); };
  if (index == nullptr) {
    out.corpus = Sign({o, minhasher, fs, signing, rereads, counts}, std::move(walked->files));
    return out;
  }
  if (!stored->ok()) return stored->status();
  Result<IndexedCorpus> s =
      SignWithIndex({o, minhasher, fs, signing, rereads, counts}, std::move(walked->files), *index, std::move(**stored));
  if (!s.ok()) return s.status();
  out.corpus = std::move(s->corpus);
  out.signed_now = std::move(s->signed_now);
  report->index = s->stats;
  return out;  // the index is closed here: the next run may start
}

}  // namespace

Result<Report> FindDuplicates(const Options& o, const RunContext& ctx) {
  if (Status s = ValidateOptions(o); !s.ok()) return s;
  FileSystem& fs = ctx.fs != nullptr ? *ctx.fs : FileSystem::Default();
  const Banding banding = o.bands > 0 ? Banding{o.bands, o.rows} : ChooseBanding(o.threshold, o.num_perm);
  SignProgress counts;
  ProgressReporter progress(ctx, counts);
  Workers workers{.threads = Workers::Resolve(o.threads), .tick = {}, .cancel = ctx.cancel};
  Report report;
  report.params = MakeParams(o, banding);
  // --exact and -t 1 read documents again: keep what that needs.
  const bool rereads = o.verify == VerifyMode::kExact || o.threshold >= 1.0;
  const MinHasher minhasher(o.num_perm, o.seed);
  Result<SignedInputs> inputs = WalkAndSign(o, fs, workers, minhasher, rereads, progress, counts, &report);
  if (!inputs.ok()) return inputs.status();
  if (workers.Cancelled()) return Status::Cancelled("interrupted");
  SignedCorpus& signed_corpus = inputs->corpus;
  SignatureTable& table = signed_corpus.table;
  if (!rereads && o.input == InputFormat::kText) table.files = {};  // not needed again: free the paths
  TallyDocuments(signed_corpus, &report.stats);

  CopyGroups groups = CopyGroups::Build(table);
  Candidates candidates;
  if (o.threshold < 1.0) {
    progress.Tick(Stage::kBanding);
    candidates = FindCandidates(table, groups, o, banding, workers);
  }
  report.stats.candidates = candidates.visited;
  if (workers.Cancelled()) return Status::Cancelled("interrupted");

  if (rereads) progress.Tick(Stage::kVerifying);
  Verified verified;
  if (Status s = VerifyCandidates(table, signed_corpus.stream_copies, o, minhasher, fs, workers, &groups,
                                  std::move(candidates), &verified);
      !s.ok()) {
    return s;
  }
  for (auto& [doc, status] : verified.left_out) {
    signed_corpus.problems.push_back({.file = table.docs[doc].file, .line = table.docs[doc].line, .status = status});
  }
  report.stats.exact_duplicates = groups.copies();

  report.docs = Entries(std::move(table.docs));
  if (o.mode == Mode::kPairs) {
    if (Status s = BuildPairs(groups, verified.pairs, o, &report); !s.ok()) return s;
  } else {
    progress.Tick(Stage::kClustering);
    BuildClusterReport(groups, verified, o, &report);
  }
  if (o.new_only) {
    if (Status s = KeepOnlyNew(inputs->signed_now, o, &report); !s.ok()) return s;
  }
  TallyProblems(inputs->walk, std::move(signed_corpus.problems), &report);
  report.stats.seconds = progress.seconds();
  progress.Tick(Stage::kDone);
  return report;
}

}  // namespace neardup
