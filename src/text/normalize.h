// Normalizer: valid UTF-8 -> NFKC + full case folding, streaming.
//
// Width variants, ligatures, compatibility forms and case do not hide a
// duplicate: "ﬁle", "ＦＩＬＥ" and "File" all become "file". Pure-ASCII text
// is passed through unchanged (the tokenizer folds ASCII case itself, from a
// table): the Unicode path (utf8proc) runs only where bytes >= 0x80 appear.
// Text is normalized in segments that end before a character that cannot
// combine with what precedes it, so chunk boundaries never change the output,
// but for the case of ASCII letters: an uppercase ASCII letter just before or
// after a chunk boundary may be case folded in one chunking and not in another
// (it is folded only inside a Unicode segment, see Feed); the tokenizer folds
// ASCII case, so shingles never depend on it.
// (For bounded memory, a run of more than 256 bytes with no such character,
// e.g. hundreds of stacked combining marks, is also cut, at places fixed by
// the text alone: chunking still changes nothing, but such a run is not
// canonically reordered across the cuts.)
//
// Thread safety: one Normalizer per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neardup {

namespace internal {
struct CleanTables;
// The Unicode planes that may hold a code point with a canonical
// decomposition, the only ones the normalizer's tables are built from:
// planes 4 to 13 hold no character, and 15 and 16 are private use, which
// never decomposes (normalize_test checks every one of them against the
// utf8proc linked).
inline constexpr int kDecomposingPlanes[] = {0, 1, 2, 3, 14};
// Whether utf8proc gives `cp` a canonical decomposition.
bool HasCanonicalDecomposition(int32_t cp);
}  // namespace internal

class Normalizer {
 public:
  Normalizer();
  // Starts a new document.
  void Reset() { carry_.clear(); }
  // REQUIRES: `utf8` is valid UTF-8 (TextDecoder output) and ends on a code
  // point boundary (so does every chunk TextDecoder produces). Appends the
  // normalized form of all complete segments to *out; may hold back a tail
  // (at most a few hundred bytes). ASCII outside Unicode segments is copied
  // unchanged; ASCII inside one (e.g. the base letter of "e\u0301") is case
  // folded along with it. Invalid UTF-8 is not normalized, but copied.
  void Feed(std::string_view utf8, std::string* out);
  // Appends whatever is held back.
  void Finish(std::string* out);

 private:
  std::string carry_;                // held-back tail; starts at a segment boundary
  std::string scratch_;              // carry_ joined with the head of new input
  std::vector<int32_t> codepoints_;  // utf8proc work buffer
  // Vector scan for already normalized text (src/text/tokenize_kernel.h), or
  // nullptr to decide every character (the reference).
  size_t (*clean_prefix_)(const unsigned char* p, const internal::CleanTables& tables);
  const internal::CleanTables* clean_tables_;

  // Process()'s writer of one Unicode segment (defined in normalize.cc).
  class SegmentWriter;

  // Copies or normalizes `text`, which starts at a segment boundary. Returns
  // the offset of the tail to hold back (text.size() when `final`).
  size_t Process(std::string_view text, bool final, std::string* out);
  // Appends the NFKC case fold of one segment (or the segment itself if
  // utf8proc rejects it).
  void NormalizeSegment(std::string_view segment, std::string* out);
};

// One-shot convenience: NFKC + case fold of a whole valid UTF-8 string
// (ASCII is lowercased too).
std::string NormalizeText(std::string_view utf8);

}  // namespace neardup
