// Microbenchmarks of the signing stages, one document at a time on one thread:
// decode -> normalize -> shingle -> MinHash, each alone and end to end
// (BM_SignDocument: the "signature throughput >= 200 MB/s of text per core"
// target). Bytes/s are always bytes of input text, so the stages compare.
//
//   build-bench/tests/bench/neardup_bench --benchmark_filter=SignDocument
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/decode.h"
#include "neardup/document.h"
#include "neardup/minhash.h"
#include "neardup/normalize.h"
#include "neardup/options.h"
#include "neardup/shingle.h"
#include "text_gen.h"

namespace neardup_bench {
namespace {

using neardup::DocumentReader;

constexpr size_t kTextBytes = 1 << 20;                        // one long text per language
constexpr size_t kDocBytes = 3 * 1024;                        // a typical small document
constexpr size_t kDocCount = 256;                             // ~768 KB of documents
constexpr size_t kChunk = DocumentReader::kBufferSize;        // what the reader feeds at once
constexpr uint64_t kSeed = 1;

int LangIndex(Lang lang) { return static_cast<int>(lang); }

const std::string& Text(Lang lang) {
  static const std::string texts[] = {GenerateText(Lang::kEnglish, kTextBytes, 42),
                                      GenerateText(Lang::kFrench, kTextBytes, 42),
                                      GenerateText(Lang::kCjk, kTextBytes, 42)};
  return texts[LangIndex(lang)];
}

std::string Normalize(std::string_view text) {
  neardup::Normalizer normalizer;
  std::string out;
  for (std::string_view slice : SliceAtCodePoints(text, kChunk)) normalizer.Feed(slice, &out);
  normalizer.Finish(&out);
  return out;
}

// What the Shingler sees in the pipeline: Normalizer output (ASCII not lowercased).
const std::string& NormalizedText(Lang lang) {
  static const std::string texts[] = {Normalize(Text(Lang::kEnglish)),
                                      Normalize(Text(Lang::kFrench)),
                                      Normalize(Text(Lang::kCjk))};
  return texts[LangIndex(lang)];
}

const std::vector<std::string>& Documents(Lang lang) {
  static const std::vector<std::string> docs[] = {
      GenerateDocuments(Lang::kEnglish, kDocCount, kDocBytes, 1000),
      GenerateDocuments(Lang::kFrench, kDocCount, kDocBytes, 1000),
      GenerateDocuments(Lang::kCjk, kDocCount, kDocBytes, 1000)};
  return docs[LangIndex(lang)];
}

int64_t TotalBytes(const std::vector<std::string>& docs) {
  int64_t total = 0;
  for (const std::string& d : docs) total += static_cast<int64_t>(d.size());
  return total;
}

void BM_Decode(benchmark::State& state, Lang lang) {
  const std::string& text = Text(lang);
  neardup::TextDecoder decoder(neardup::Encoding::kUtf8);
  std::string out;
  out.reserve(kChunk + 16);
  for (auto _ : state) {
    decoder.Reset();
    // Raw chunks may cut a sequence: the decoder carries it, as in the reader.
    for (size_t pos = 0; pos < text.size(); pos += kChunk) {
      out.clear();
      decoder.Feed(std::string_view(text).substr(pos, kChunk), &out);
      benchmark::DoNotOptimize(out.data());
    }
    out.clear();
    decoder.Finish(&out);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK_CAPTURE(BM_Decode, ascii, Lang::kEnglish);
BENCHMARK_CAPTURE(BM_Decode, french, Lang::kFrench);
BENCHMARK_CAPTURE(BM_Decode, cjk, Lang::kCjk);

void BM_Normalize(benchmark::State& state, Lang lang) {
  const std::string& text = Text(lang);
  const std::vector<std::string_view> slices = SliceAtCodePoints(text, kChunk);
  neardup::Normalizer normalizer;
  std::string out;
  out.reserve(2 * kChunk);
  for (auto _ : state) {
    normalizer.Reset();
    for (std::string_view slice : slices) {
      out.clear();
      normalizer.Feed(slice, &out);
      benchmark::DoNotOptimize(out.data());
    }
    out.clear();
    normalizer.Finish(&out);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK_CAPTURE(BM_Normalize, ascii, Lang::kEnglish);
BENCHMARK_CAPTURE(BM_Normalize, french, Lang::kFrench);
BENCHMARK_CAPTURE(BM_Normalize, cjk, Lang::kCjk);

// Word 5-shingles (tokenize + token hashes + shingle hashes + content hash).
void BM_Shingle(benchmark::State& state, Lang lang) {
  const std::string& text = NormalizedText(lang);
  const std::vector<std::string_view> slices = SliceAtCodePoints(text, kChunk);
  neardup::Shingler shingler(neardup::ShingleUnit::kWord, 5, kSeed);
  uint64_t words = 0;
  for (auto _ : state) {
    shingler.Reset();
    for (std::string_view slice : slices) {
      shingler.Feed(slice);
      benchmark::DoNotOptimize(shingler.shingles().data());
      shingler.shingles().clear();
    }
    shingler.Finish();
    shingler.shingles().clear();
    words = shingler.words();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(words));  // words/s
}
BENCHMARK_CAPTURE(BM_Shingle, ascii, Lang::kEnglish);
BENCHMARK_CAPTURE(BM_Shingle, french, Lang::kFrench);
BENCHMARK_CAPTURE(BM_Shingle, cjk, Lang::kCjk);

// MinHasher::Update alone, on the shingles of 3 KB English documents as the
// reader hands them over (text order, with repeats). Bytes/s are bytes of the
// documents' text, comparable with BM_SignDocument; items/s are shingles.
void BM_MinHash(benchmark::State& state) {
  const int num_perm = static_cast<int>(state.range(0));
  const std::vector<std::string>& docs = Documents(Lang::kEnglish);
  std::vector<std::vector<uint64_t>> shingles;
  int64_t count = 0;
  {
    neardup::Shingler shingler(neardup::ShingleUnit::kWord, 5, kSeed);
    for (const std::string& d : docs) {
      shingler.Reset();
      shingler.Feed(Normalize(d));
      shingler.Finish();
      shingles.push_back(shingler.shingles());
      count += static_cast<int64_t>(shingler.shingles().size());
    }
  }
  const neardup::MinHasher minhasher(num_perm, kSeed);
  std::vector<uint32_t> sig(static_cast<size_t>(num_perm));
  for (auto _ : state) {
    for (const std::vector<uint64_t>& s : shingles) {
      minhasher.Init(sig.data());
      minhasher.Update(s.data(), s.size(), sig.data());
      benchmark::DoNotOptimize(sig.data());
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * TotalBytes(docs));
  state.SetItemsProcessed(state.iterations() * count);
}
BENCHMARK(BM_MinHash)->ArgName("perms")->Arg(64)->Arg(128)->Arg(256);

// End to end: DocumentReader::ReadText (decode + normalize + word 5-shingles +
// MinHash, 128 permutations) on 3 KB documents, one thread. The English
// variant is the number to hold against the 200 MB/s per core target.
void BM_SignDocument(benchmark::State& state, Lang lang) {
  const std::vector<std::string>& docs = Documents(lang);
  neardup::Options options;
  options.shingle = neardup::ShingleUnit::kWord;
  options.ngram = 5;
  options.num_perm = 128;
  options.seed = kSeed;
  const neardup::MinHasher minhasher(options.num_perm, options.seed);
  DocumentReader reader(options, minhasher);
  std::vector<uint32_t> sig(static_cast<size_t>(options.num_perm));
  neardup::DocumentSketch sketch;
  for (auto _ : state) {
    for (const std::string& d : docs) {
      reader.ReadText(d, sig.data(), nullptr, &sketch);
      benchmark::DoNotOptimize(sig.data());
      benchmark::DoNotOptimize(sketch);
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * TotalBytes(docs));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(docs.size()));  // documents/s
}
BENCHMARK_CAPTURE(BM_SignDocument, ascii, Lang::kEnglish);
BENCHMARK_CAPTURE(BM_SignDocument, french, Lang::kFrench);
BENCHMARK_CAPTURE(BM_SignDocument, cjk, Lang::kCjk);

}  // namespace
}  // namespace neardup_bench
