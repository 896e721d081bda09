// The scan: the phases of scan/phases.h composed in process, from paths to
// a Report (walk -> sign -> copy groups and candidates -> verify, build and
// count -> with --kept-dir, the kept corpus). The rules the phases follow are
// decided once, by Run (run.h).
#include "neardup/scan.h"

#include "scan/phases.h"
#include "scan/run.h"

namespace neardup {

const char* ToString(Stage stage) {
  switch (stage) {
    case Stage::kWalking:
      return "walking";
    case Stage::kReading:
      return "reading";
    case Stage::kBanding:
      return "banding";
    case Stage::kVerifying:
      return "verifying";
    case Stage::kClustering:
      return "clustering";
    case Stage::kDone:
      return "done";
  }
  return "?";
}

Result<Report> FindDuplicates(const Options& options, const RunContext& context) {
  Result<std::unique_ptr<Run>> decided = Run::Decide(options, context);
  if (!decided.ok()) return decided.status();
  if (Status s = CheckKeptDir(options); !s.ok()) return s;
  const Run& run = **decided;
  Result<WalkedInputs> walked = WalkInputs(run);
  if (!walked.ok()) return walked.status();
  if (walked->given_again) return GiveAgain(run, std::move(*walked));
  Result<SignedInputs> inputs = SignInputs(run, std::move(*walked));
  if (!inputs.ok()) return inputs.status();
  Result<FoundPairs> found = FindCandidatePairs(run, *inputs);
  if (!found.ok()) return found.status();
  if (options.kept_dir.empty() && options.annotate_dir.empty()) {
    return ReportPhase(run, std::move(*inputs), std::move(*found));
  }
  // --kept-dir, --annotate-dir: the corpus written besides, once the report is built.
  const KeptSources sources = KeptSourcesOf(options, inputs->corpus);
  Result<ReportOutcome> reported = ReportAndDropped(run, std::move(*inputs), std::move(*found));
  if (!reported.ok()) return reported.status();
  return KeptDirPhase(run, sources, std::move(*reported));
}

}  // namespace neardup
