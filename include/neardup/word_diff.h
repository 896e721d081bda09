// WordDiff: a word-level diff of two texts, in the manner of
// `git diff --word-diff`.
//
// Words are the runs of non-space bytes (split at ' ', '\t', '\n', '\r'); the
// diff is a shortest edit script between the two word sequences (Wu's O(NP)
// algorithm, from the dtl library), given as runs: consecutive words of the
// same kind are joined by one space into one run. Cost: time O((M+N)·D) for D
// differing words and memory O(M+N), so callers cap the inputs
// (kDefaultMaxWords).
//
// Thread safety: a pure function.
//
//   std::vector<DiffRun> runs = WordDiff("a b c", "a x c");
//   // {kSame "a"}, {kRemoved "b"}, {kAdded "x"}, {kSame "c"}
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neardup {

struct DiffRun {
  enum class Kind : uint8_t { kSame, kRemoved, kAdded };
  Kind kind = Kind::kSame;
  std::string text;      // the run's words joined by single spaces
  uint64_t words = 0;    // how many words
};

// A word cap for callers: 20,000 words per side.
inline constexpr uint64_t kDefaultMaxWords = 20000;

// The runs turning `a` into `b`: kSame and kRemoved runs spell a's words in
// order, kSame and kAdded runs b's. Two adjacent runs never share a kind; a
// kRemoved run comes before the kAdded run it is replaced by.
std::vector<DiffRun> WordDiff(std::string_view a, std::string_view b);

}  // namespace neardup
