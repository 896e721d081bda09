// Shingler: normalized text -> the 64-bit hashes of its k-shingles, streaming.
//
// Word mode: a word is a maximal run of letters, digits, marks and '_'
// (Unicode categories L*, M*, N*); every other character separates words. A
// character of a script written without spaces between words (Han, Hiragana,
// Katakana, Thai, Lao, Khmer, Myanmar) is a word of its own. ASCII letters are
// lowercased here, from a table (the Normalizer has already folded the rest).
// A word shingle is k consecutive words.
// Char mode: the text's characters (code points), each run of white space and
// control characters collapsed to one space and trimmed at both ends; a char
// shingle is k consecutive characters.
// Each token (word or character) is hashed once (XXH3-64 with the seed); a
// word longer than 64 KiB is hashed incrementally as it streams in (the same
// hash value), so a document of one endless word takes no more memory than
// any other; a
// shingle's hash is built from its k token hashes without touching the text
// again. A document with at least one token but fewer than k has exactly one
// shingle: all its tokens. A document with no word has no shingle (empty).
// The content hash (XXH3-128 over the token hashes) is equal for two documents
// exactly when their normalized token sequences are (barring collisions).
//
// Shingles come out with repeats, in text order, a batch per Feed(); the
// caller drains shingles() after each Feed() and after Finish().
//
// Word mode finds ASCII words 64 bytes at a time: a vector kernel chosen at
// run time (AVX-512BW, AVX2; src/text/tokenize_kernel.h) classifies the bytes into
// bitmasks, and words are read off the masks. Without those instructions, the
// scalar tokenizer runs, a byte at a time; both give the same hashes.
//
// Thread safety: one Shingler per thread; Reset() reuses its buffers.
//
//   Shingler sh(ShingleUnit::kWord, 5, /*seed=*/1);
//   sh.Feed(text); sh.Finish();   // then sh.shingles(), sh.words()
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "neardup/options.h"

namespace neardup {

class Shingler {
 public:
  // REQUIRES: 1 <= k <= 64.
  Shingler(ShingleUnit unit, int k, uint64_t seed);
  ~Shingler();
  Shingler(const Shingler&) = delete;
  Shingler& operator=(const Shingler&) = delete;

  // Starts a new document.
  void Reset();
  // REQUIRES: `text` is valid UTF-8 cut at code point boundaries (Normalizer
  // output). A word may continue across calls.
  void Feed(std::string_view text);
  // Ends the document: flushes the last word and applies the short-document rule.
  void Finish();

  // Shingle hashes produced and not yet cleared by the caller.
  std::vector<uint64_t>& shingles() { return shingles_; }
  // When not null, the text of every token is appended to `*out` as it is
  // found: in word mode each word (lowercased as hashed) followed by one
  // space, in char mode the characters (a collapsed run of white space as one
  // space). Two documents have the same token sequence exactly when these
  // texts are equal: it is what proves an exact copy without trusting a hash.
  // Survives Reset(). The caller drains `*out` as it likes.
  void set_token_text(std::string* out) { token_text_ = out; }

  // Words seen so far (in both modes).
  uint64_t words() const { return words_; }
  // Tokens seen so far (words, or characters in char mode).
  uint64_t tokens() const { return tokens_; }
  // REQUIRES: Finish() was called.
  ContentHash content_hash() const { return content_; }

 private:
  void EmitToken(uint64_t token_hash) {
    ++tokens_;
    token_batch_.push_back(token_hash);
  }
  void EndWord();
  void SpillWord();
  void FeedWords(std::string_view text);
  void FeedWordsScalar(std::string_view text);
  void FeedWordsVector(std::string_view text);
  void FeedChars(std::string_view text);
  void FlushTokenBatch();
  void HashShinglesScalar(const uint64_t* tokens, size_t first, size_t n, uint64_t* out) const;

  struct State;
  // FeedWordsVector's pass over one text (defined in shingle.cc).
  class VectorWords;
  ShingleUnit unit_;
  bool vector_words_;  // word mode runs FeedWordsVector (a classifier was chosen)
  int k_;
  uint64_t seed_;
  std::unique_ptr<State> state_;  // streaming content hash
  std::string word_;              // the word being read (lowercased bytes),
                                  // or its tail past 64 KiB (see SpillWord)
  bool pending_space_ = false;    // char mode: a space to emit before the next char
  bool seen_char_ = false;        // char mode: a non-space char was emitted
  bool in_word_ = false;          // char mode: the last char was a word char
  uint64_t tokens_ = 0;
  uint64_t words_ = 0;
  std::string* token_text_ = nullptr;
  // Token hashes: the last min(k-1, tokens) of earlier batches (`carried_` of
  // them, already in the content hash), then those of the current batch.
  std::vector<uint64_t> token_batch_;
  size_t carried_ = 0;
  std::vector<uint64_t> shingles_;
  ContentHash content_;
};

// Convenience for tests and exact verification: all shingles of a whole text
// (normalized with NormalizeText first), sorted and unique.
std::vector<uint64_t> ShingleSet(std::string_view text, ShingleUnit unit, int k, uint64_t seed);

}  // namespace neardup
