#include "lsh/containment_candidates.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <vector>

#include "lsh/banding.h"
#include "lsh/containment_banding.h"
#include "lsh/lsh_index.h"
#include "lsh/similarity.h"

namespace neardup {

namespace {

// The floor of an estimate whose target Jaccard is `jaccard`: itself in
// signature mode, less exact_margin standard errors with --exact.
double FloorAt(const Options& options, double jaccard) {
  if (options.verify != VerifyMode::kExact) return jaccard;
  if (options.exact_margin <= 0) return 0;
  return jaccard - options.exact_margin * std::sqrt(jaccard * (1 - jaccard) / options.num_perm);
}

// The representatives of `groups` large enough to be contained, by stratum.
std::map<int, std::vector<DocId>> Strata(const SignatureTable& table, const CopyGroups& groups,
                                         const Options& options) {
  std::map<int, std::vector<DocId>> out;
  for (const DocId rep : groups.representatives()) {
    const uint64_t n = table.docs[rep].shingles;
    if (n >= options.min_contained) out[StratumOf(n)].push_back(rep);
  }
  for (auto& [stratum, ids] : out) std::sort(ids.begin(), ids.end());
  return out;
}

// One banding pass of distance `d` over the documents `ids` (ascending):
// adds to each worker's pairs those the floor accepts. Returns the pairs
// visited.
struct Pass {
  const SignatureTable& table;
  const Options& options;
  const Workers& workers;
  std::vector<CandidatePairs>& found;
  std::vector<Status>& failed;
  std::atomic<bool>& stop;
  // Per DocId with --exact (empty: none rules a pair out), and per worker
  // ContainmentBound()'s scratch.
  std::span<const SetBitmap> bitmaps;
  std::vector<std::vector<uint64_t>> scratch;

  std::vector<uint8_t> side;     // per DocId: 1 in the larger stratum of a pass
  std::vector<uint8_t> stratum;  // per DocId: StratumOf() its shingles (< 64)

  uint64_t Run(int d, Banding banding, const std::vector<DocId>& ids) {
    // Past distance 0, only pairs across the two strata: none of one.
    const LshIndex index = d == 0 ? LshIndex(table.values().data(), table.num_perm(), ids, banding)
                                  : LshIndex(table.values().data(), table.num_perm(), ids, banding, side);
    auto on_pair = [&](int w, uint32_t a, uint32_t b) {
      Status& status = failed[static_cast<size_t>(w)];
      if (!status.ok()) return;
      if (workers.Cancelled()) {
        stop.store(true, std::memory_order_relaxed);
        return;
      }
      if (std::abs(int{stratum[a]} - int{stratum[b]}) != d) return;  // another distance's pair
      const uint64_t sa = table.docs[a].shingles, sb = table.docs[b].shingles;
      const double floor = ContainmentFloor(options, sa, sb);
      if (floor > 1) return;  // a size ratio out of range: no estimate reaches it
      const double est = PairEstimate(table.signature(a), table.signature(b));
      if (!MeetsThreshold(est, floor)) return;
      if (!bitmaps.empty() &&
          ContainmentBound(bitmaps[a], bitmaps[b], &scratch[static_cast<size_t>(w)]) < options.threshold - 1e-9)
        return;
      status = found[static_cast<size_t>(w)].Add({.a = a, .b = b, .estimate = est});
      if (!status.ok()) stop.store(true, std::memory_order_relaxed);
    };
    return index.ForEachCandidate(workers.threads, on_pair, 0, nullptr, &stop);
  }
};

// ids of two ascending lists, ascending.
std::vector<DocId> Merged(const std::vector<DocId>& x, const std::vector<DocId>& y) {
  std::vector<DocId> out;
  out.reserve(x.size() + y.size());
  std::merge(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
  return out;
}

}  // namespace

double ContainmentFloor(const Options& options, uint64_t size_a, uint64_t size_b) {
  const uint64_t small = std::min(size_a, size_b);
  const uint64_t large = std::max(size_a, size_b);
  if (small == 0 || small < options.min_contained) return 2;
  const double ratio = static_cast<double>(large) / static_cast<double>(small);
  if (ratio < options.min_ratio - 1e-12 || ratio > options.max_ratio + 1e-12) return 2;
  const double jaccard = std::max(JaccardForContainment(options.threshold, ratio), options.min_jaccard);
  return FloorAt(options, jaccard);
}

Result<Candidates> FindContainmentCandidates(const SignatureTable& table, const CopyGroups& groups,
                                             const Options& options, const Workers& workers, PassShare share,
                                             std::span<const SetBitmap> bitmaps) {
  const std::map<int, std::vector<DocId>> strata = Strata(table, groups, options);
  const size_t threads = static_cast<size_t>(std::max(1, workers.threads));
  std::vector<CandidatePairs> found;
  for (size_t w = 0; w < threads; ++w) found.emplace_back(options.pair_memory / threads);
  std::vector<Status> failed(threads);
  std::atomic<bool> stop{false};
  const bool bounded = options.verify == VerifyMode::kExact && bitmaps.size() == table.docs.size();
  Pass pass{table,
            options,
            workers,
            found,
            failed,
            stop,
            bounded ? bitmaps : std::span<const SetBitmap>(),
            std::vector<std::vector<uint64_t>>(threads),
            std::vector<uint8_t>(table.docs.size(), 0),
            std::vector<uint8_t>(table.docs.size(), 0)};
  for (DocId d = 0; d < table.docs.size(); ++d)
    pass.stratum[d] = static_cast<uint8_t>(StratumOf(table.docs[d].shingles));
  Candidates out{.pairs = CandidatePairs(options.pair_memory), .visited = 0};
  uint64_t pass_number = 0;  // of the passes run by any share
  const auto mine = [&] { return pass_number++ % share.tasks == share.task; };
  for (const StrataBanding& s : ContainmentBandings(options.threshold, options.max_ratio, table.num_perm())) {
    // No pair below --min-jaccard can pass: band for it when it is higher.
    const Banding banding =
        options.min_jaccard > s.jaccard ? ChooseBanding(options.min_jaccard, table.num_perm()) : s.banding;
    for (const auto& [k, small] : strata) {
      if (stop.load()) break;
      if (s.distance == 0) {
        if (mine()) out.visited += pass.Run(0, banding, small);
        continue;
      }
      const auto large = strata.find(k + s.distance);
      if (large == strata.end() || !mine()) continue;
      for (const DocId d : large->second) pass.side[d] = 1;
      out.visited += pass.Run(s.distance, banding, Merged(small, large->second));
      for (const DocId d : large->second) pass.side[d] = 0;
    }
  }
  for (size_t w = 0; w < threads; ++w) {
    if (!failed[w].ok()) return failed[w];
  }
  if (workers.Cancelled()) return Status::Cancelled("interrupted");
  for (size_t w = 0; w < threads; ++w) {
    if (Status s = out.pairs.Absorb(std::move(found[w])); !s.ok()) return s;
  }
  if (Status s = out.pairs.Finish(); !s.ok()) return s;
  return out;
}

Result<Candidates> MergeCandidates(Candidates x, Candidates y, const Options& options) {
  Candidates out{.pairs = CandidatePairs(options.pair_memory), .visited = x.visited + y.visited};
  for (const Candidates* from : {&x, &y}) {
    for (const Candidate& c : from->pairs) {
      if (Status s = out.pairs.Add(c); !s.ok()) return s;
    }
    if (!from->pairs.status().ok()) return from->pairs.status();
  }
  if (Status s = out.pairs.Finish(); !s.ok()) return s;
  return out;
}

}  // namespace neardup
