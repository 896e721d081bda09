#include "scan/run.h"

namespace neardup {

Run::Run(const Options& options, const RunContext& context)
    : options_(options),
      context_(context),
      banding_(BandingOf(options)),
      rule_(VerificationOf(options)),
      minhasher_(options.num_perm, options.seed),
      workers_{.threads = Workers::Resolve(options.threads), .tick = {}, .cancel = context.cancel},
      fs_(context.fs != nullptr ? *context.fs : FileSystem::Default()) {}

Result<std::unique_ptr<Run>> Run::Decide(const Options& options, const RunContext& context) {
  if (Status s = ValidateOptions(options); !s.ok()) return s;
  return std::unique_ptr<Run>(new Run(options, context));
}

SignContext Run::Signing(const Workers& workers) const { return Signing(workers, fs_); }

SignContext Run::Signing(const Workers& workers, FileSystem& fs) const {
  SignContext ctx{options_, minhasher_, fs, workers, rereads(), counts_};
  // Containment divides by the distinct-shingle count.
  ctx.count_shingles = options_.relation != Relation::kSimilar;
  // Containment's candidates lie far below -t in Jaccard (0.1 at a ratio of
  // 8), where banding lets many through that the bitmaps rule out
  // (FindContainmentCandidates): a run that looks for them builds them at
  // any threshold.
  if (ctx.count_shingles && rule_.mode == VerifyMode::kExact && !rule_.identical_only) ctx.set_bitmaps = true;
  return ctx;
}

VerifyContext Run::Verifying(const Workers& workers) const {
  return {options_, rule_, minhasher_, fs_, workers, reread_};
}

void Run::Tick(Stage stage, uint64_t total, uint64_t bytes_total) const { Tick(stage, total, bytes_total, 0); }

void Run::TickClustering(uint64_t linked) const { Tick(Stage::kClustering, 0, 0, linked); }

void Run::Tick(Stage stage, uint64_t total, uint64_t bytes_total, uint64_t linked) const {
  if (!context_.progress) return;
  const auto now = Clock::now();
  if (stage == last_stage_ && now - last_tick_ < std::chrono::milliseconds(200)) return;
  last_tick_ = now;
  last_stage_ = stage;
  Progress p;
  p.stage = stage;
  p.inputs_done = stage == Stage::kReading ? counts_.inputs_done.load() : 0;
  p.inputs_total = total;
  p.bytes = counts_.bytes.load();
  p.bytes_total = bytes_total;
  if (stage == Stage::kVerifying) {
    p.reread = reread_.done.load(std::memory_order_relaxed);
    p.reread_total = reread_.total.load(std::memory_order_relaxed);
  }
  p.documents = counts_.documents.load();
  p.linked = linked;
  p.seconds = seconds();
  context_.progress(p);
}

double Run::seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

}  // namespace neardup
