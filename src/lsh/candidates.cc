#include "lsh/candidates.h"

#include <algorithm>
#include <atomic>
#include <span>
#include <vector>

#include "lsh/lsh_index.h"
#include "lsh/similarity.h"

namespace neardup {

namespace {

double Estimate(const SignatureTable& table, DocId a, DocId b) {
  return PairEstimate(table.signature(a), table.signature(b));
}

// One large bucket, by leaders (see candidates.h): adds the pairs `rule`
// accepts. A member the leader takes is not left for the next leaders even
// when the rule does not accept the pair (as when verification did not).
Status LeadBucket(const SignatureTable& table, const Options& options, const CandidateRule& rule,
                  std::vector<DocId> rest, CandidatePairs* out) {
  std::vector<uint64_t> scratch;
  while (rest.size() >= 2) {
    const DocId leader = rest[0];
    std::vector<DocId> left;
    for (size_t k = 1; k < rest.size(); ++k) {
      const double est = Estimate(table, leader, rest[k]);
      if (est + kLeaderSlack >= options.threshold) {
        if (!rule.Accepts(est, leader, rest[k], &scratch)) continue;
        if (Status s = out->Add({.a = leader, .b = rest[k], .estimate = est}); !s.ok()) return s;
      } else {
        left.push_back(rest[k]);
      }
    }
    rest = std::move(left);
  }
  return Status::Ok();
}

}  // namespace

Result<Candidates> FindCandidates(const SignatureTable& table, const CopyGroups& groups, const Options& options,
                                  Banding banding, const Workers& workers, std::span<const SetBitmap> bitmaps) {
  const bool cluster_mode = options.mode != Mode::kPairs;
  const std::vector<DocId>& reps = groups.representatives();
  LshIndex index(table.values().data(), table.num_perm(), reps, banding);
  const size_t threads = static_cast<size_t>(std::max(1, workers.threads));
  // Each worker keeps its pairs in its share of the budget and spills past
  // it; a worker whose spill failed adds nothing more.
  std::vector<CandidatePairs> found;
  for (size_t w = 0; w < threads; ++w) found.emplace_back(options.pair_memory / threads);
  std::vector<Status> failed(threads);
  std::vector<std::vector<std::vector<DocId>>> buckets(threads);
  // Which candidates go on to verification (CandidateRule, similarity.h):
  // by their signature estimate, signature mode keeps those at the
  // threshold; --exact those within exact_margin standard errors below it
  // (the rest cannot pass but by a deviation that rare, see options.h) that
  // the bitmaps do not rule out; --verify none and --exact-all all.
  const CandidateRule rule = CandidateRule::Of(options, bitmaps, table.docs.size());
  std::vector<std::vector<uint64_t>> scratch(threads);  // RulesOut()'s, per worker
  // A failed spill or an interrupt stops every worker: the enumeration ends
  // within a bucket's row instead of running to its end for nothing.
  std::atomic<bool> stop{false};
  auto on_pair = [&](int w, uint32_t a, uint32_t b) {
    Status& status = failed[static_cast<size_t>(w)];
    if (!status.ok()) return;
    if (workers.Cancelled()) {
      stop.store(true, std::memory_order_relaxed);
      return;
    }
    const double est = Estimate(table, a, b);
    if (!rule.Accepts(est, a, b, &scratch[static_cast<size_t>(w)])) return;
    status = found[static_cast<size_t>(w)].Add({.a = a, .b = b, .estimate = est});
    if (!status.ok()) stop.store(true, std::memory_order_relaxed);
  };
  auto on_bucket = [&](int w, std::span<const uint32_t> ids) {
    buckets[static_cast<size_t>(w)].emplace_back(ids.begin(), ids.end());
  };
  Candidates out{.pairs = CandidatePairs(options.pair_memory), .visited = 0};
  out.visited = index.ForEachCandidate(workers.threads, on_pair, cluster_mode ? kLargeBucket : 0,
                                       cluster_mode ? LshIndex::BucketFn(on_bucket) : nullptr, &stop);
  for (size_t w = 0; w < threads; ++w) {
    if (!failed[w].ok()) return failed[w];
  }
  if (workers.Cancelled()) return Status::Cancelled("interrupted");
  for (size_t w = 0; w < threads; ++w) {
    if (Status s = out.pairs.Absorb(std::move(found[w])); !s.ok()) return s;
  }
  for (auto& per_worker : buckets) {
    for (auto& bucket : per_worker) {
      if (Status s = LeadBucket(table, options, rule, std::move(bucket), &out.pairs); !s.ok()) return s;
    }
  }
  if (Status s = out.pairs.Finish(); !s.ok()) return s;
  return out;
}

Result<Candidates> RuleOutByBitmaps(Candidates found, const Options& options, std::span<const SetBitmap> bitmaps,
                                    size_t docs) {
  const CandidateRule rule = CandidateRule::Of(options, bitmaps, docs);
  if (rule.bitmaps.empty()) return found;
  Candidates out{.pairs = CandidatePairs(options.pair_memory), .visited = found.visited};
  std::vector<uint64_t> scratch;
  for (const Candidate& c : found.pairs) {
    if (RulesOut(rule.bitmaps[c.a], rule.bitmaps[c.b], rule.threshold, &scratch)) continue;
    if (Status s = out.pairs.Add(c); !s.ok()) return s;
  }
  if (!found.pairs.status().ok()) return found.pairs.status();
  if (Status s = out.pairs.Finish(); !s.ok()) return s;
  return out;
}

Status LeadLargeBucket(const SignatureTable& table, const Options& options, const CandidateRule& rule,
                       std::vector<DocId> ids, CandidatePairs* out) {
  return LeadBucket(table, options, rule, std::move(ids), out);
}

}  // namespace neardup
