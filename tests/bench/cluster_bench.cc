// Microbenchmarks of --cluster-by keep over the shapes a corpus can give its
// pairs: a chain of versions (each like the one before and the one after),
// a star (one text and its many edits) and a clique (copies of one text).
// Items/s are documents.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "report/cluster.h"

namespace neardup_bench {
namespace {

using neardup::DocEntry;
using neardup::DocId;
using neardup::DocPair;

std::vector<DocEntry> Docs(size_t n) {
  std::vector<DocEntry> docs(n);
  for (size_t i = 0; i < n; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "v%07zu.txt", i);
    docs[i].name = name;
    docs[i].size = i % 97;
  }
  return docs;
}

void Cluster(benchmark::State& state, const std::vector<DocEntry>& docs, const std::vector<DocPair>& edges,
             const neardup::SimilarFn& similar) {
  size_t clusters = 0;
  for (auto _ : state) {
    auto out = neardup::BuildClusters(docs, edges, neardup::KeepRule::kFirst, neardup::ClusterBy::kKeep, similar);
    clusters = out->size();
    benchmark::DoNotOptimize(clusters);
  }
  state.counters["clusters"] = static_cast<double>(clusters);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(docs.size()));
}

// range(0) versions v0 ~ v1 ~ v2 ..., each like its neighbours only.
void BM_ClusterKeepChain(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const auto docs = Docs(n);
  std::vector<DocPair> edges;
  for (DocId i = 0; i + 1 < n; ++i) edges.emplace_back(i, i + 1);
  Cluster(state, docs, edges, [](DocId k, DocId m) { return k + 1 == m || m + 1 == k; });
}
BENCHMARK(BM_ClusterKeepChain)->Arg(20000)->Arg(100000)->Unit(benchmark::kMillisecond);

// One text and range(0) - 1 edits of it, each like the text and not each other.
void BM_ClusterKeepStar(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const auto docs = Docs(n);
  std::vector<DocPair> edges;
  for (DocId i = 1; i < n; ++i) edges.emplace_back(0, i);
  Cluster(state, docs, edges, [](DocId k, DocId m) { return k == 0 || m == 0; });
}
BENCHMARK(BM_ClusterKeepStar)->Arg(100000)->Unit(benchmark::kMillisecond);

// range(0) documents all like each other: range(0)^2 / 2 pairs.
void BM_ClusterKeepClique(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const auto docs = Docs(n);
  std::vector<DocPair> edges;
  for (DocId i = 0; i < n; ++i) {
    for (DocId j = i + 1; j < n; ++j) edges.emplace_back(i, j);
  }
  Cluster(state, docs, edges, [](DocId, DocId) { return true; });
}
BENCHMARK(BM_ClusterKeepClique)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace neardup_bench
