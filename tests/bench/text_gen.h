// Deterministic synthetic text for the microbenchmarks.
//
// Words are drawn from a Zipf-distributed vocabulary (rank r has weight
// 1/(r+1)), so common words repeat as in real prose and shingles repeat a
// little. Sentences are capitalized and punctuated, paragraphs end in a blank
// line. Three flavours exercise the three paths of decode/normalize/shingle:
//   kEnglish  pure ASCII (the fast paths throughout),
//   kFrench   Latin with precomposed accents, capitalized accented words
//             (É, À: the utf8proc path) and typographic apostrophes,
//   kGerman   Latin with umlauts and ß, every noun capitalized (Ä, Ö, Ü at
//             the start of a word: case folding outside ASCII),
//   kRussian  Cyrillic (two-byte UTF-8 throughout), capitalized sentence
//             starts, «» quotes and em dashes,
//   kCjk      Chinese ideographs (one word each) with full-width punctuation
//             (NFKC maps it to ASCII: the utf8proc path).
// The same seed gives the same bytes on every platform (no <random>
// distributions, whose output is implementation-defined).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neardup_bench {

enum class Lang { kEnglish, kFrench, kGerman, kRussian, kCjk };

// About `bytes` bytes of text (whole sentences; at least `bytes`).
std::string GenerateText(Lang lang, size_t bytes, uint64_t seed);

// `count` documents of about `bytes` bytes each, from seeds seed, seed+1, ...
std::vector<std::string> GenerateDocuments(Lang lang, size_t count, size_t bytes, uint64_t seed);

// `text` cut into pieces of at most `max` bytes, each ending on a UTF-8 code
// point boundary (the Normalizer's precondition). REQUIRES: max >= 4.
std::vector<std::string_view> SliceAtCodePoints(std::string_view text, size_t max);

// splitmix64, for random signatures and sets.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n). REQUIRES: n > 0.
  uint64_t Below(uint64_t n) { return Next() % n; }
  // Uniform in [0, 1).
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

}  // namespace neardup_bench
