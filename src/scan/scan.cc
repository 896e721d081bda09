// The scan: the phases of scan/phases.h composed in process, from paths to
// a Report (walk -> sign -> copy groups and candidates -> verify, build and
// count). The rules the phases follow are decided once, by Run (run.h).
#include "neardup/scan.h"

#include "scan/phases.h"
#include "scan/run.h"

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

Result<Report> FindDuplicates(const Options& options, const RunContext& context) {
  Result<std::unique_ptr<Run>> decided = Run::Decide(options, context);
  if (!decided.ok()) return decided.status();
  const Run& run = **decided;
  Result<WalkedInputs> walked = WalkInputs(run);
  if (!walked.ok()) return walked.status();
  Result<SignedInputs> inputs = SignInputs(run, std::move(*walked));
  if (!inputs.ok()) return inputs.status();
  Result<FoundPairs> found = FindCandidatePairs(run, inputs->corpus.table);
  if (!found.ok()) return found.status();
  return ReportPhase(run, std::move(*inputs), std::move(*found));
}

}  // namespace neardup
