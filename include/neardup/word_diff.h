// WordDiff: a word-level diff of two texts, in the manner of
// `git diff --word-diff`.
//
// Words are the runs of non-space bytes (split at ' ', '\t', '\n', '\r'); the
// diff is a shortest edit script between the two word sequences (Wu's O(NP)
// algorithm, exactly as the dtl library computes it), given as runs: consecutive words of the
// same kind are joined by one space into one run. Cost: time O((M+N)·D) for D
// differing words and memory O(M+N), so callers cap the inputs
// (kDefaultMaxWords).
//
// FoldDiff shortens a diff for reading: an unchanged stretch longer than its
// context is shown as its first and last kContextWords words around the
// number of words left out, as `neardup explain` and the review page show it.
//
// Thread safety: pure functions.
//
//   std::vector<DiffRun> runs = WordDiff("a b c", "a x c");
//   // {kSame "a"}, {kRemoved "b"}, {kAdded "x"}, {kSame "c"}
//   std::vector<FoldedRun> shown = FoldDiff(runs);
//
// MarkSpan shows a contained document inside its container: the container's
// words, the stretch holding the contained document marked, the rest folded.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neardup {

struct DiffRun {
  enum class Kind : uint8_t { kSame, kRemoved, kAdded };
  Kind kind = Kind::kSame;
  std::string text;    // the run's words joined by single spaces
  uint64_t words = 0;  // how many words
};

// A word cap for callers: 20,000 words per side.
inline constexpr uint64_t kDefaultMaxWords = 20000;

// The runs turning `a` into `b`: kSame and kRemoved runs spell a's words in
// order, kSame and kAdded runs b's. Two adjacent runs never share a kind; a
// kRemoved run comes before the kAdded run it is replaced by.
std::vector<DiffRun> WordDiff(std::string_view a, std::string_view b);

// A run of a folded diff: a DiffRun's kinds, or an unchanged stretch left out.
struct FoldedRun {
  enum class Kind : uint8_t { kSame, kRemoved, kAdded, kSkipped };
  Kind kind = Kind::kSame;
  std::string text;    // the words joined by single spaces; empty for kSkipped
  uint64_t words = 0;  // words in `text`, or (kSkipped) the words left out
};

// Unchanged words kept on each side of a change when a stretch is folded.
inline constexpr uint64_t kContextWords = 12;
// An unchanged stretch with fewer words than this beyond its context is
// shown whole.
inline constexpr uint64_t kMinSkipped = 10;

// `runs` with each long kSame run folded: a kSame run of the context kept
// before it (none at the start of the diff), one kSkipped run, and a kSame
// run of the context kept after it (none at the end). A kSame run of fewer
// than (context kept) + kMinSkipped words, and every other run, is kept as it
// is. The kSame runs of a fold are not joined with their neighbours.
std::vector<FoldedRun> FoldDiff(const std::vector<DiffRun>& runs);

// A run of a containment's span view (MarkSpan): the container's words with
// the span that holds the contained document marked.
struct SpanRun {
  // The values are those the review page's data gives them.
  enum class Kind : uint8_t {
    kOutside = 0,         // container words before or after the span
    kMatched = 1,         // span words the contained document has there too
    kContainerOnly = 2,   // span words the contained document lacks
    kContainedOnly = 3,   // the contained document's words the container lacks
    kOutsideSkipped = 4,  // kOutside words left out (`words` of them)
    kMatchedSkipped = 5,  // kMatched words left out (`words` of them)
  };
  Kind kind = Kind::kOutside;
  std::string text;    // the words joined by single spaces; empty when skipped
  uint64_t words = 0;  // words in `text`, or the words left out
};

// A matched run of fewer words than this does not open or close the span
// (a common word met by chance outside it), unless no run is that long.
inline constexpr uint64_t kSpanAnchorWords = 3;

// The span view of `runs`, the word diff of a container's words against a
// contained document's (WordDiff(container, contained)): the span runs from
// the first to the last matched (kSame) run of at least kSpanAnchorWords
// words (of any length when none is that long); the container's words
// before and after it are kOutside, the contained document's words the
// container lacks are kContainedOnly wherever they fall. Adjacent runs of
// one kind are joined, then long kOutside and kMatched runs are folded as
// FoldDiff folds unchanged ones (kContextWords kept beside each neighbour,
// the rest counted in a skipped run). Empty when nothing matches.
std::vector<SpanRun> MarkSpan(const std::vector<DiffRun>& runs);

}  // namespace neardup
