// Run: what a scan, a stage task and `explain` decide once from the Options,
// before anything is read. Every rule that says how the phases behave for a
// set of options is decided here, in one place:
//  - the banding: --bands x --rows, or the one chosen for -t and --num-perm;
//  - the verification rule (verify_candidates.h), with "-t 1 means the same
//    text" (identical_only) and what is read again after signing (--exact
//    and -t 1), and so what signing must keep (stream copies);
//  - the MinHasher, the worker threads, cancellation and progress.
//
// Every driver decides a Run: scan (scan.cc) composes the phases of
// phases.h over it; the stage tasks (distributed/) and explain (explain.cc)
// call no phase but the stage report's ReportAndDropped, and take the same
// decisions from the Run (phases.h says which driver calls what).
//
// Thread safety: the phases read a Run from many threads at once and change
// none of it but its progress counters, which are atomic; Tick() is called
// from the driver's thread only.
//
//   Result<std::unique_ptr<Run>> run = Run::Decide(options, context);
//   if (!run.ok()) return run.status();
//   Result<WalkedInputs> walked = WalkInputs(**run);
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "base/parallel.h"
#include "lsh/banding.h"
#include "neardup/options.h"
#include "neardup/scan.h"
#include "neardup/status.h"
#include "sign/minhash.h"
#include "sign/sign.h"
#include "verify/verify_candidates.h"
#include "walk/file_system.h"

namespace neardup {

class Run {
 public:
  // Validates `options` (InvalidArgument as ValidateOptions) and decides
  // the rest. `options` and `context` must outlive the Run.
  static Result<std::unique_ptr<Run>> Decide(const Options& options, const RunContext& context);
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  const Options& options() const { return options_; }
  Banding banding() const { return banding_; }
  const Verification& rule() const { return rule_; }
  // Documents are read again after signing (--exact, -t 1).
  bool rereads() const { return rule_.rereads(); }
  const MinHasher& minhasher() const { return minhasher_; }
  const Workers& workers() const { return workers_; }
  FileSystem& fs() const { return fs_; }
  bool Cancelled() const { return workers_.Cancelled(); }
  // Whether someone is shown the progress (the context has a callback).
  bool Watched() const { return static_cast<bool>(context_.progress); }
  // RunContext::result_key.
  const std::string& result_key() const { return context_.result_key; }

  // Signing for this run on `workers` (the run's, or a copy with a tick),
  // reading through the run's file system or `fs`: stream documents kept
  // when they are read again, counts into the run's; line hashes with
  // --kept-dir and bitmaps as WantsBitmaps() says (SignContext's defaults,
  // sign.h). REQUIRES: `workers` (and `fs`) outlive the context.
  SignContext Signing(const Workers& workers) const;
  SignContext Signing(const Workers& workers, FileSystem& fs) const;
  // Verifying on `workers` (the run's, or a copy with a tick). REQUIRES:
  // `workers` outlives the context.
  VerifyContext Verifying(const Workers& workers) const;

  // Reports progress to the context's callback, at most every 200 ms within
  // a stage and always on a change of stage. `total`: inputs to read, when
  // known; `bytes_total`: bytes to read, when known. From the driver's
  // thread only.
  void Tick(Stage stage, uint64_t total = 0, uint64_t bytes_total = 0) const;
  // Clustering: `linked` verified pairs linked so far (Progress::linked).
  void TickClustering(uint64_t linked) const;
  // Seconds since the run was decided.
  double seconds() const;

 private:
  using Clock = std::chrono::steady_clock;
  Run(const Options& options, const RunContext& context);
  void Tick(Stage stage, uint64_t total, uint64_t bytes_total, uint64_t linked) const;

  const Options& options_;
  const RunContext& context_;
  const Banding banding_;
  const Verification rule_;
  const MinHasher minhasher_;
  const Workers workers_;
  FileSystem& fs_;
  mutable SignProgress counts_;
  mutable RereadProgress reread_;
  const Clock::time_point start_ = Clock::now();
  mutable Clock::time_point last_tick_{};
  mutable Stage last_stage_ = Stage::kDone;
};

}  // namespace neardup
