// Microbenchmarks of the stages after signing: LSH banding and exact Jaccard.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "base/hash_sort.h"
#include "lsh/banding.h"
#include "lsh/lsh_index.h"
#include "lsh/similarity.h"
#include "text_gen.h"

namespace neardup_bench {
namespace {

constexpr int kNumPerm = 128;
constexpr size_t kPlantedPairs = 8;

// n random signatures (unrelated documents) and kPlantedPairs near-copies,
// each differing from its original in 13 of 128 positions (estimated J ~ 0.9).
struct SignatureSet {
  std::vector<uint32_t> values;
  std::vector<uint32_t> ids;
  explicit SignatureSet(size_t n) : values(n * kNumPerm), ids(n) {
    Rng rng(7);
    for (uint32_t& v : values) v = static_cast<uint32_t>(rng.Next());
    for (size_t i = 0; i < n; ++i) ids[i] = static_cast<uint32_t>(i);
    for (size_t p = 0; p < kPlantedPairs; ++p) {
      const size_t original = p * (n / 10);
      const size_t copy = original + n / 20;
      std::copy_n(values.begin() + static_cast<ptrdiff_t>(original * kNumPerm), kNumPerm,
                  values.begin() + static_cast<ptrdiff_t>(copy * kNumPerm));
      for (int k = 0; k < 13; ++k) {
        values[copy * kNumPerm + rng.Below(kNumPerm)] = static_cast<uint32_t>(rng.Next());
      }
    }
  }
};

// The set of n signatures, made on first use (benchmarks run one at a time).
const SignatureSet& SetOf(size_t n) {
  static std::map<size_t, SignatureSet> sets;
  return sets.try_emplace(n, n).first->second;
}

// ForEachCandidate on one thread, bands 16 x rows 6, over range(0) signatures
// (1M take 512 MB). Items/s are signatures.
void BM_Banding(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const SignatureSet& set = SetOf(n);
  const neardup::LshIndex index(set.values.data(), kNumPerm, set.ids, neardup::Banding{.bands = 16, .rows = 6});
  uint64_t pairs = 0;
  for (auto _ : state) {
    pairs = index.ForEachCandidate(1, [](int, uint32_t a, uint32_t b) {
      benchmark::DoNotOptimize(a);
      benchmark::DoNotOptimize(b);
    });
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
  state.counters["pairs"] = static_cast<double>(pairs);  // expect kPlantedPairs
}
BENCHMARK(BM_Banding)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// Two sorted sets of 500 shingles, 400 in common (J = 0.667). Items/s are
// elements merged (1000 per call).
void BM_ExactJaccard(benchmark::State& state) {
  Rng rng(9);
  std::vector<uint64_t> a, b;
  for (int i = 0; i < 600; ++i) {
    const uint64_t x = rng.Next();
    if (i < 400 || i % 2 == 0) a.push_back(x);
    if (i < 400 || i % 2 == 1) b.push_back(x);
  }
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  for (auto _ : state) {
    benchmark::DoNotOptimize(neardup::ExactJaccard(a, b));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(a.size() + b.size()));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>((a.size() + b.size()) * sizeof(uint64_t)));
}
BENCHMARK(BM_ExactJaccard);

// The sets of --exact's candidates on mails at -t 0.5: pairs of 736
// shingles whose Jaccard is 0.4, so JaccardIfReaches(0.5) merges most of both
// before it can say no (the common case among the pairs checked); and pairs
// at 0.6, which it merges to the end. kBenchInputs different pairs in turn,
// as a run meets them: one pair over and over lets the branch predictor
// learn its steps and keeps both sets in L1 (0.7 us against 1.1 us at 0.4).
// Items/s are elements of both sets.
constexpr size_t kBenchInputs = 1024;

void BM_JaccardIfReaches(benchmark::State& state) {
  const double jaccard = static_cast<double>(state.range(0)) / 100;
  const size_t n = 736;
  // |A n B| = 2nJ / (1 + J) for two sets of n.
  const size_t common = static_cast<size_t>(2.0 * static_cast<double>(n) * jaccard / (1 + jaccard));
  Rng rng(11);
  std::vector<std::pair<std::vector<uint64_t>, std::vector<uint64_t>>> pairs(kBenchInputs);
  for (auto& [a, b] : pairs) {
    for (size_t i = 0; i < common; ++i) {
      const uint64_t x = rng.Next();
      a.push_back(x);
      b.push_back(x);
    }
    while (a.size() < n) a.push_back(rng.Next());
    while (b.size() < n) b.push_back(rng.Next());
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
  }
  size_t k = 0;
  for (auto _ : state) {
    const auto& [a, b] = pairs[k++ % kBenchInputs];
    benchmark::DoNotOptimize(neardup::JaccardIfReaches(a, b, 0.5));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(2 * n));
}
BENCHMARK(BM_JaccardIfReaches)->ArgName("J%")->Arg(40)->Arg(60);

// A mail's shingle set as --exact reads it again: range(0) random hashes
// sorted, kBenchInputs different sets in turn (see BM_JaccardIfReaches: the
// same set over and over, an insertion sort's branches are learnt, and 736
// hashes sorted in 1.9 us against 5.2 us for sets that differ).
void BM_SortShingleSet(benchmark::State& state) {
  Rng rng(12);
  std::vector<std::vector<uint64_t>> sets(kBenchInputs, std::vector<uint64_t>(static_cast<size_t>(state.range(0))));
  for (auto& values : sets) {
    for (uint64_t& v : values) v = rng.Next();
  }
  std::vector<uint64_t> entries, scratch;
  std::vector<uint32_t> ends;
  size_t k = 0;
  for (auto _ : state) {
    entries = sets[k++ % kBenchInputs];
    neardup::internal::SortByHash(entries, scratch, ends);
    benchmark::DoNotOptimize(entries.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SortShingleSet)->Arg(736)->Arg(5000);

}  // namespace
}  // namespace neardup_bench
