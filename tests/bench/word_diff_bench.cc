// Microbenchmarks of the review page's word diff (src/text/word_diff.cc):
// a near copy (one word in 50 replaced) and two unrelated texts (whose
// search fills the path table), each
//   - as neardup diffed them with dtl before #46 (BM_WordDiffDtl: both texts
//     numbered afresh, dtl's Diff<int>), the reference,
//   - from the texts (BM_WordDiffTexts: both split and numbered, then the
//     search), as `neardup explain` diffs,
//   - from texts prepared once (BM_WordDiffPrepared), as the review diffs a
//     document that is in many pairs, with the preparing itself measured
//     apart (BM_DiffWordsPrepare).
// Items/s are words of the two texts.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <dtl/dtl.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "neardup/word_diff.h"
#include "text/word_diff.h"
#include "text_gen.h"

namespace neardup_bench {
namespace {

using neardup::DiffRun;

std::vector<std::string> Words(std::string_view text, size_t n) {
  std::vector<std::string> words;
  size_t i = 0;
  while (words.size() < n && i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n')) ++i;
    const size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\n') ++i;
    if (i > start) words.emplace_back(text.substr(start, i - start));
  }
  return words;
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += w + " ";
  return out;
}

struct Pair {
  std::string a, b;
  size_t words = 0;
};

// range(0) words and a copy with one word in 50 replaced (far = 0), or two
// unrelated texts of range(0) words (far = 1).
Pair MakePair(const benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  const bool far = state.range(1) != 0;
  const std::vector<std::string> a = Words(GenerateText(Lang::kEnglish, n * 8, 1), n);
  std::vector<std::string> b = far ? Words(GenerateText(Lang::kEnglish, n * 8, 2), n) : a;
  if (!far) {
    for (size_t i = 25; i < b.size(); i += 50) b[i] = "changed";
  }
  return {Join(a), Join(b), a.size() + b.size()};
}

// neardup's word diff before #46: numbered afresh, dtl's search.
std::vector<DiffRun> DtlWordDiff(const std::vector<std::string_view>& wa, const std::vector<std::string_view>& wb) {
  std::unordered_map<std::string_view, int> ids;
  std::vector<std::string_view> words_by_id;
  auto number = [&](const std::vector<std::string_view>& words) {
    std::vector<int> seq;
    seq.reserve(words.size());
    for (const std::string_view w : words) {
      const auto [it, added] = ids.emplace(w, static_cast<int>(words_by_id.size()));
      if (added) words_by_id.push_back(w);
      seq.push_back(it->second);
    }
    return seq;
  };
  const std::vector<int> sa = number(wa);
  const std::vector<int> sb = number(wb);
  dtl::Diff<int> diff(sa, sb, /*deletesFirst=*/true);
  diff.compose();
  std::vector<DiffRun> runs;
  for (const auto& [elem, info] : diff.getSes().getSequence()) {
    const DiffRun::Kind kind = info.type == dtl::SES_ADD      ? DiffRun::Kind::kAdded
                               : info.type == dtl::SES_DELETE ? DiffRun::Kind::kRemoved
                                                              : DiffRun::Kind::kSame;
    const std::string_view word = words_by_id[static_cast<size_t>(elem)];
    if (runs.empty() || runs.back().kind != kind) {
      runs.push_back({kind, std::string(word), 1});
    } else {
      runs.back().text.push_back(' ');
      runs.back().text.append(word);
      ++runs.back().words;
    }
  }
  return runs;
}

std::vector<std::string_view> Split(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    const size_t start = i;
    while (i < text.size() && text[i] != ' ') ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

void Finish(benchmark::State& state, const Pair& pair, size_t runs) {
  state.counters["runs"] = static_cast<double>(runs);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(pair.words));
}

void BM_WordDiffDtl(benchmark::State& state) {
  const Pair pair = MakePair(state);
  size_t runs = 0;
  for (auto _ : state) {
    runs = DtlWordDiff(Split(pair.a), Split(pair.b)).size();
    benchmark::DoNotOptimize(runs);
  }
  Finish(state, pair, runs);
}

void BM_WordDiffTexts(benchmark::State& state) {
  const Pair pair = MakePair(state);
  size_t runs = 0;
  for (auto _ : state) {
    runs = neardup::WordDiff(pair.a, pair.b).size();
    benchmark::DoNotOptimize(runs);
  }
  Finish(state, pair, runs);
}

void BM_WordDiffPrepared(benchmark::State& state) {
  const Pair pair = MakePair(state);
  const neardup::DiffWords a(pair.a), b(pair.b);
  size_t runs = 0;
  for (auto _ : state) {
    runs = neardup::WordDiff(a, b).size();
    benchmark::DoNotOptimize(runs);
  }
  Finish(state, pair, runs);
}

void BM_DiffWordsPrepare(benchmark::State& state) {
  const Pair pair = MakePair(state);
  for (auto _ : state) {
    const neardup::DiffWords a(pair.a), b(pair.b);
    benchmark::DoNotOptimize(a.words() + b.words());
  }
  Finish(state, pair, 0);
}

// {words, far}: a 3,000-word page and its near copy, the 20,000-word cap,
// and two unrelated 5,000-word texts.
#define WORD_DIFF_ARGS ->Args({3000, 0})->Args({20000, 0})->Args({5000, 1})->Unit(benchmark::kMillisecond)
BENCHMARK(BM_WordDiffDtl) WORD_DIFF_ARGS;
BENCHMARK(BM_WordDiffTexts) WORD_DIFF_ARGS;
BENCHMARK(BM_WordDiffPrepared) WORD_DIFF_ARGS;
BENCHMARK(BM_DiffWordsPrepare) WORD_DIFF_ARGS;
#undef WORD_DIFF_ARGS

}  // namespace
}  // namespace neardup_bench
