// DiffWords: a text's words prepared once for many word diffs.
//
// WordDiff(a, b) (neardup/word_diff.h) splits and numbers both texts on
// every call. A document compared with many others (the review page's kept
// document, or one that is in many pairs) is split and numbered once here:
// its words, each distinct word's number and hash, and the table that finds
// a word's number. A diff of two DiffWords then numbers only the other
// side's distinct words and gives exactly the runs WordDiff gives for the
// same texts (the diff sees the same sequences up to a renaming of words).
//
// Thread safety: a DiffWords is immutable once made; any number of threads
// may diff it at once.
//
//   const DiffWords kept(std::move(kept_token_text));
//   for (const DiffWords& m : members) Use(WordDiff(kept, m));
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/word_diff.h"

namespace neardup {

class DiffWords {
 public:
  DiffWords() = default;  // no words
  // The words of `text`, split as WordDiff splits them.
  explicit DiffWords(std::string text);

  size_t words() const { return ids_.size(); }
  // The bytes held: the text, its words and the table.
  size_t bytes() const {
    return text_.capacity() + ids_.capacity() * sizeof(uint32_t) + words_.capacity() * sizeof(Word) +
           slots_.capacity() * sizeof(uint64_t);
  }

 private:
  friend class WordDiffScript;

  struct Word {
    size_t begin = 0;  // in text_
    size_t size = 0;
    uint64_t hash = 0;
  };
  std::string_view WordText(uint32_t id) const {
    return std::string_view(text_).substr(words_[id].begin, words_[id].size);
  }
  // The number of the distinct word `word` (hashed `hash`), or kNone.
  uint32_t Find(std::string_view word, uint64_t hash) const;
  // The slot of `word` in slots_, or the empty slot where it would go.
  size_t SlotOf(std::string_view word, uint64_t hash) const;
  // Numbers the word text_[start, start + size).
  void Add(size_t start, size_t size);
  // slots_ twice as large, the words placed again.
  void Grow();

  static constexpr uint32_t kNone = UINT32_MAX;
  // A slot: the word's hash's high 32 bits (kTagBits), then its number.
  static constexpr uint64_t kTagBits = ~uint64_t{UINT32_MAX};
  static constexpr uint64_t kEmptySlot = UINT64_MAX;
  std::string text_;
  std::vector<uint32_t> ids_;    // each word's number, in text order
  std::vector<Word> words_;      // the distinct words, by number
  std::vector<uint64_t> slots_;  // open addressing over words_ by hash, at most half full
};

// The first `max_words` words of a token text (each word followed by one
// space) arriving in pieces, as explain and the review page compare them,
// and whether more followed (anything but spaces after them): the one rule
// for a text read (explain.cc) and one kept by verification (KeptTexts).
class WordCap {
 public:
  // Appends to *text, sets *capped.
  WordCap(uint64_t max_words, std::string* text, bool* capped) : max_(max_words), text_(text), capped_(capped) {}
  void Add(std::string_view piece);

 private:
  uint64_t max_;
  std::string* text_;
  bool* capped_;
  uint64_t words_ = 0;
  bool full_ = false;  // max_ words taken: only whether more follow is left
};

// The runs turning `a` into `b`: the same as WordDiff(a's text, b's text).
std::vector<DiffRun> WordDiff(const DiffWords& a, const DiffWords& b);

// FoldDiff(WordDiff(a, b)), without joining the words it leaves out: the
// review page's diff of a long near copy joins a few dozen words, not all.
std::vector<FoldedRun> FoldedWordDiff(const DiffWords& a, const DiffWords& b);

}  // namespace neardup
