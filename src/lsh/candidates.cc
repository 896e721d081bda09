#include "lsh/candidates.h"

#include <algorithm>

#include "lsh/lsh_index.h"
#include "sign/minhash.h"
#include "lsh/similarity.h"

namespace neardup {

namespace {

double Estimate(const SignatureTable& table, DocId a, DocId b) {
  const SignatureView x = table.signature(a);
  return DistinctScore(SignatureAgreement(x.data(), table.signature(b).data(), static_cast<int>(x.size())));
}

// One large bucket, by leaders (see candidates.h): appends its pairs.
void LeadBucket(const SignatureTable& table, const Options& options, double floor, std::vector<DocId> rest,
                std::vector<Candidate>* out) {
  while (rest.size() >= 2) {
    const DocId leader = rest[0];
    std::vector<DocId> left;
    for (size_t k = 1; k < rest.size(); ++k) {
      const double est = Estimate(table, leader, rest[k]);
      if (est + kLeaderSlack >= options.threshold) {
        if (MeetsThreshold(est, floor)) out->push_back({.a = leader, .b = rest[k], .estimate = est});
      } else {
        left.push_back(rest[k]);
      }
    }
    rest = std::move(left);
  }
}

}  // namespace

Candidates FindCandidates(const SignatureTable& table, const CopyGroups& groups, const Options& options,
                          Banding banding, const Workers& workers) {
  const bool cluster_mode = options.mode != Mode::kPairs;
  const std::vector<DocId>& reps = groups.representatives();
  LshIndex index(table.values().data(), table.num_perm(), reps, banding);
  const size_t threads = static_cast<size_t>(std::max(1, workers.threads));
  std::vector<std::vector<Candidate>> found(threads);
  std::vector<std::vector<std::vector<DocId>>> buckets(threads);
  // Which candidates go on to verification, by their signature estimate:
  // signature mode keeps those at the threshold; --exact those within
  // exact_margin standard errors below it (the rest cannot pass but by a
  // deviation that rare, see options.h); --verify none and --exact-all all.
  const double floor = CandidateFloor(options);
  auto on_pair = [&](int w, uint32_t a, uint32_t b) {
    const double est = Estimate(table, a, b);
    if (MeetsThreshold(est, floor)) found[static_cast<size_t>(w)].push_back({.a = a, .b = b, .estimate = est});
  };
  auto on_bucket = [&](int w, std::span<const uint32_t> ids) {
    buckets[static_cast<size_t>(w)].emplace_back(ids.begin(), ids.end());
  };
  Candidates out;
  out.visited = index.ForEachCandidate(workers.threads, on_pair, cluster_mode ? kLargeBucket : 0,
                                       cluster_mode ? LshIndex::BucketFn(on_bucket) : nullptr);
  for (auto& f : found) {
    out.pairs.insert(out.pairs.end(), f.begin(), f.end());
    f.clear();
    f.shrink_to_fit();
  }
  for (auto& per_worker : buckets) {
    for (auto& bucket : per_worker) LeadBucket(table, options, floor, std::move(bucket), &out.pairs);
  }
  SortUniqueCandidates(&out.pairs);
  return out;
}

void LeadLargeBucket(const SignatureTable& table, const Options& options, std::vector<DocId> ids,
                     std::vector<Candidate>* out) {
  LeadBucket(table, options, CandidateFloor(options), std::move(ids), out);
}

void SortUniqueCandidates(std::vector<Candidate>* pairs) {
  std::sort(pairs->begin(), pairs->end());
  pairs->erase(std::unique(pairs->begin(), pairs->end(),
                           [](const Candidate& x, const Candidate& y) { return x.a == y.a && x.b == y.b; }),
               pairs->end());
}

}  // namespace neardup
