#include "text/shingle.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstring>

#include "base/hash.h"
#include "base/utf8.h"
#include "text/char_classes.h"
#include "text/decode.h"
#include "text/normalize.h"
#include "text/tokenize_kernel.h"
#include "text/word_hash.h"

namespace neardup {

namespace {

// Per byte: is it an ASCII word character (kLower: letter, digit or '_' that
// needs no folding; kUpper: an uppercase letter), and its lowercase form.
// Bytes >= 0x80 have class 0: the Unicode path decides for them.
constexpr unsigned char kLower = 1;
constexpr unsigned char kUpper = 2;
struct AsciiTables {
  unsigned char word_class[256];
  bool word[128];
  char lower[128];
  constexpr AsciiTables() : word_class(), word(), lower() {
    for (int c = 0; c < 128; ++c) {
      const bool upper = c >= 'A' && c <= 'Z';
      word[c] = upper || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      word_class[c] = upper ? kUpper : (word[c] ? kLower : 0);
      lower[c] = static_cast<char>(upper ? c + ('a' - 'A') : c);
    }
  }
};
constexpr AsciiTables kAscii;

// Word scanning, 8 bytes at a time (SWAR). Finding where a word ends one byte
// at a time costs a mispredicted branch per word, since word lengths are
// random; a mask of the word characters among 8 bytes finds it with one
// count of trailing zeros.
constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHigh = 0x8080808080808080ULL;

// 0x80 in each byte of `x7` within [lo, hi]. REQUIRES: every byte of x7 < 0x80.
// (Neither sum carries into the next byte.)
constexpr uint64_t BytesInRange(uint64_t x7, unsigned char lo, unsigned char hi) {
  const uint64_t at_least_lo = x7 + kOnes * (0x80u - lo);
  const uint64_t above_hi = x7 + kOnes * (0x7Fu - hi);
  return at_least_lo & ~above_hi & kHigh;
}

// End of the run of ASCII word characters that starts at p[i], and whether
// the run holds an uppercase letter. Bytes >= 0x80 end the run.
size_t AsciiWordEnd(const unsigned char* p, size_t i, size_t n, bool* has_upper) {
  uint64_t upper_seen = 0;
  if constexpr (std::endian::native == std::endian::little) {
    for (; i + 8 <= n; i += 8) {
      uint64_t x;
      std::memcpy(&x, p + i, 8);
      const uint64_t ascii = ~x & kHigh;
      const uint64_t x7 = x & ~kHigh;
      const uint64_t upper = BytesInRange(x7, 'A', 'Z') & ascii;
      const uint64_t word = (BytesInRange(x7 | (kOnes * 0x20), 'a', 'z') |  // either case
                             BytesInRange(x7, '0', '9') | BytesInRange(x7, '_', '_')) &
                            ascii;
      const uint64_t stop = ~word & kHigh;
      if (stop != 0) {
        const uint64_t before_stop = (stop & (0 - stop)) - 1;  // bytes ahead of the first stop
        *has_upper = upper_seen != 0 || (upper & before_stop) != 0;
        return i + static_cast<size_t>(std::countr_zero(stop)) / 8;
      }
      upper_seen |= upper;
    }
  }
  unsigned char classes = 0;
  for (; i < n && kAscii.word_class[p[i]] != 0; ++i) classes |= kAscii.word_class[p[i]];
  *has_upper = upper_seen != 0 || (classes & kUpper) != 0;
  return i;
}

// Decodes one code point of the (valid UTF-8) text. An ill-formed sequence,
// which breaks Feed()'s contract, reads as U+FFFD: a separator.
inline int32_t DecodeAt(const unsigned char* p, size_t avail, size_t* len) {
  const Utf8Char c = DecodeUtf8Char(p, avail);
  *len = c.length;
  return c.status == Utf8Status::kValid ? static_cast<int32_t>(c.code_point) : 0xFFFD;
}

constexpr uint64_t kShingleMul = 0x9e3779b97f4a7c15ULL;

// A word longer than this is hashed incrementally (streaming XXH3, same value
// as hashing it whole), so memory does not grow with the length of a word.
constexpr size_t kMaxWordBuffer = 64 * 1024;

// The hash of the shingle made of tokens[0..k), in text order.
inline uint64_t ShingleHash(const uint64_t* tokens, int k, uint64_t seed) {
  uint64_t h = seed;
  for (int j = 0; j < k; ++j) {
    h = (h ^ tokens[j]) * kShingleMul;
    h ^= h >> 29;
  }
  return Mix64(h);
}

// Bytes classified, and runs read off the masks, per window of the vector
// tokenizer (small enough for the run positions to stay in L1).
constexpr size_t kWindowBlocks = 64;
// A block of 64 bytes starts at most 32 runs; 3 slots of slack for the
// unrolled writes of Flatten().
constexpr size_t kMaxRunsPerWindow = kWindowBlocks * 32 + 1;
constexpr size_t kRunSlots = kMaxRunsPerWindow + 4;

// Appends base + the position of each set bit of `bits`, in order, to
// out[*count..]. Writes up to 3 slots past the new end (the loop is unrolled
// four times so that the number of bits, which varies, costs one branch per
// four positions).
// Bits set in x. (std::popcount compiles to a library call for baseline
// x86-64, which has no POPCNT instruction; GCC turns this sequence into one
// popcnt in FeedWordsVector's x86-64-v3 version.)
inline int PopCount(uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555ULL;
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
}

inline void Flatten(uint64_t bits, size_t base, size_t* out, size_t* count) {
  const int n = PopCount(bits);
  size_t* o = out + *count;
  for (int j = 0; j < n; j += 4) {
    o[j] = base + static_cast<size_t>(std::countr_zero(bits));
    bits &= bits - 1;
    o[j + 1] = base + static_cast<size_t>(std::countr_zero(bits));
    bits &= bits - 1;
    o[j + 2] = base + static_cast<size_t>(std::countr_zero(bits));
    bits &= bits - 1;
    o[j + 3] = base + static_cast<size_t>(std::countr_zero(bits));
    bits &= bits - 1;
  }
  *count += static_cast<size_t>(n);
}

// True when a non-ASCII byte in [s, e) is not part of a two-byte word
// character (high & ~pair). REQUIRES: s < e.
inline bool AnyBitOutside(const internal::ByteClasses* c, size_t s, size_t e) {
  for (size_t b = s / 64; b <= (e - 1) / 64; ++b) {
    uint64_t m = c[b].high & ~c[b].pair;
    if (b == s / 64) m &= ~uint64_t{0} << (s % 64);
    if (b == (e - 1) / 64 && e % 64 != 0) m &= (uint64_t{1} << (e % 64)) - 1;
    if (m != 0) return true;
  }
  return false;
}

// Position of the first byte at or after `from` whose bit is set in the
// masks (`field` of each block), or `limit` if none is before it.
inline size_t NextBit(const internal::ByteClasses* c, uint64_t internal::ByteClasses::*field, size_t from,
                      size_t limit) {
  size_t b = from / 64;
  uint64_t m = (c[b].*field >> (from % 64)) << (from % 64);
  const size_t last = (limit + 63) / 64;
  while (m == 0) {
    if (++b >= last) return limit;
    m = c[b].*field;
  }
  const size_t at = b * 64 + static_cast<size_t>(std::countr_zero(m));
  return at < limit ? at : limit;
}

// ShingleHash of every shingle of K tokens ending at tokens[first-1..n), to out.
template <int K>
void HashShingles(const uint64_t* tokens, size_t first, size_t n, uint64_t seed, uint64_t* out) {
  for (size_t end = first; end <= n; ++end) {
    const uint64_t* t = tokens + end - K;
    uint64_t h = seed;
    for (int j = 0; j < K; ++j) {
      h = (h ^ t[j]) * kShingleMul;
      h ^= h >> 29;
    }
    *out++ = Mix64(h);
  }
}

}  // namespace

struct Shingler::State {
  Hasher128 content;
  Hasher64 long_word;         // the head of a word longer than kMaxWordBuffer
  bool in_long_word = false;  // long_word holds the head of the current word
  // Vector tokenizer: the classifier, the masks of one window, and the
  // starts and ends of the runs of word or non-ASCII bytes found in it.
  internal::ClassifyFn classify = nullptr;
  internal::ShingleHashFn hash_shingles = nullptr;  // vector shingle hashes, if any
  internal::WordHashFn hash_words = nullptr;        // vector word hashes, if any
  internal::ByteClasses classes[kWindowBlocks];
  // Per block of the window, its non-ASCII bytes that are not part of a
  // two-byte word character (high & ~pair); 0 in the block after the last.
  uint64_t odd[kWindowBlocks + 1];
  size_t starts[kRunSlots];
  size_t ends[kRunSlots];
  // The window's text with ASCII capitals lowercased (the classifier's
  // copy), with kLoweredPad bytes of slack on either side: a word's hash
  // loads the 8 bytes at its start and the 8 ending at its end, which may
  // reach past the window (those bytes do not change the hash).
  static constexpr size_t kLoweredPad = 16;
  alignas(64) unsigned char lowered_buffer[kLoweredPad + kWindowBlocks * 64 + kLoweredPad];
  unsigned char* lowered() { return lowered_buffer + kLoweredPad; }
  internal::ShortWordHasher short_words;
  explicit State(uint64_t seed) : lowered_buffer(), short_words(seed) {}
};

Shingler::Shingler(ShingleUnit unit, int k, uint64_t seed)
    : unit_(unit), k_(k), seed_(seed), state_(std::make_unique<State>(seed)) {
  const internal::TokenizerKernel kernel = internal::DefaultTokenizerKernel();
  state_->classify = internal::ClassifierFor(kernel);
  state_->hash_shingles = internal::ShingleHasherFor(kernel);
  state_->hash_words = internal::WordHasherFor(kernel);
  vector_words_ = state_->classify != nullptr;
  assert(k >= 1 && k <= 64);
  Reset();
}

Shingler::~Shingler() = default;

void Shingler::Reset() {
  state_->content.Reset();
  state_->in_long_word = false;
  word_.clear();
  pending_space_ = false;
  seen_char_ = false;
  in_word_ = false;
  tokens_ = 0;
  words_ = 0;
  token_batch_.clear();
  carried_ = 0;
  shingles_.clear();
  content_ = ContentHash();
}

void Shingler::EndWord() {
  if (state_->in_long_word) {
    state_->long_word.Update(word_.data(), word_.size());
    state_->in_long_word = false;
    word_.clear();
    ++words_;
    EmitToken(state_->long_word.Digest());
    return;
  }
  if (word_.empty()) return;
  ++words_;
  if (token_text_ != nullptr) token_text_->append(word_).push_back(' ');
  EmitToken(HashBytes(word_.data(), word_.size(), seed_));
  word_.clear();
}

// Moves the buffered head of a long word into the streaming hash.
void Shingler::SpillWord() {
  if (!state_->in_long_word) {
    state_->long_word.Reset(seed_);
    state_->in_long_word = true;
  }
  state_->long_word.Update(word_.data(), word_.size());
  word_.clear();
}

void Shingler::FeedWords(std::string_view text) {
  if (vector_words_) {
    FeedWordsVector(text);
  } else {
    FeedWordsScalar(text);
  }
}

// FeedWordsVector's pass over one text, a window at a time: finds the runs of
// word or non-ASCII bytes in the classifier's masks, tokenizes each run, and
// hashes the whole ASCII words it queued. Lives on FeedWordsVector's stack;
// every method is inlined there, so that its positions stay in registers.
// Not thread-safe (it writes through its Shingler).
class Shingler::VectorWords {
 public:
  [[gnu::always_inline]] VectorWords(Shingler* shingler, std::string_view text)
      : sh_(*shingler),
        st_(*shingler->state_),
        text_(text),
        p_(reinterpret_cast<const unsigned char*>(text.data())),
        n_(text.size()) {}

  // Step 1: classifies the window that starts at `window` and lists the runs
  // in it (st_.starts, st_.ends). Returns how many runs end in it; a run that
  // goes on into the next window is left open.
  [[gnu::always_inline]] size_t FindRuns(size_t window) {
    window_ = window;
    const size_t len = std::min(n_ - window, kWindowBlocks * 64);
    const size_t blocks = (len + 63) / 64;
    st_.classify(p_ + window, len, st_.classes, st_.lowered());
    size_t num_starts = 0;
    size_t num_ends = 0;
    if (open_) st_.starts[num_starts++] = open_start_;
    uint64_t high = 0;
    for (size_t b = 0; b < blocks; ++b) {
      high |= st_.classes[b].high;
      st_.odd[b] = st_.classes[b].high & ~st_.classes[b].pair;
      const uint64_t x = st_.classes[b].word | st_.classes[b].high;
      const uint64_t before = (x << 1) | carry_;  // bit j: byte j-1 is in a run
      const size_t base = window + b * 64;
      Flatten(x & ~before, base, st_.starts, &num_starts);
      Flatten(~x & before, base, st_.ends, &num_ends);
      carry_ = x >> 63;
    }
    st_.odd[blocks] = 0;
    ascii_window_ = high == 0;
    if (window + len == n_ && carry_ != 0 && n_ % 64 == 0) st_.ends[num_ends++] = n_;
    assert(num_ends <= num_starts && num_starts <= num_ends + 1);
    open_ = num_starts > num_ends;
    if (open_) open_start_ = st_.starts[num_ends];
    return num_ends;
  }

  // Step 2: tokenizes the run text[s, e), which ends in the current window.
  [[gnu::always_inline]] void FeedRun(size_t s, size_t e) {
    const bool edge = s == 0 || e == n_;
    // Masks are per window: look the bytes up only when the run lies in
    // this one (a run from an earlier window takes the scalar path).
    if (edge || s < window_) {
      sh_.FeedWordsScalar(text_.substr(s, e - s));
      if (e < n_) sh_.EndWord();
      return;
    }
    // Every non-ASCII character (if any) a two-byte letter (most words of
    // Latin and Cyrillic scripts): one word. For a run of up to 64 bytes,
    // which spans at most two blocks, that is one test without a loop:
    // words with and without accents alternate at random, and a branch on
    // which kind a word is would be mispredicted.
    const size_t rel = s - window_;
    const size_t len = e - s;
    bool plain;
    if (len <= 64) {
      const size_t b = rel / 64;
      const size_t shift = rel % 64;
      uint64_t m = (st_.odd[b] >> shift) | ((st_.odd[b + 1] << 1) << (63 - shift));
      if (len < 64) m &= (uint64_t{1} << len) - 1;
      plain = m == 0;
    } else {
      plain = !AnyBitOutside(st_.classes, rel, e - window_);
    }
    if (plain) {
      PendWord(s, e);
      return;
    }
    FeedMixedRun(s, e);
  }

  // Step 2 for all `num_runs` runs of the window. In a window of ASCII
  // bytes only, every run but those at an edge (the first, if it began
  // before the window or at the text's start; the last, if it ends the
  // text) is a whole word: hashed straight into the token batch.
  [[gnu::always_inline]] void FeedRuns(size_t num_runs) {
    const size_t* starts = st_.starts;
    const size_t* ends = st_.ends;
    size_t r = 0;
    if (!ascii_window_) {
      for (; r < num_runs; ++r) FeedRun(starts[r], ends[r]);
      return;
    }
    if (num_runs > 0 && (starts[0] < window_ || starts[0] == 0)) {
      FeedRun(starts[0], ends[0]);
      ++r;
    }
    const size_t last = num_runs > r && ends[num_runs - 1] == n_ ? num_runs - 1 : num_runs;
    if (last > r) {
      const size_t count = last - r;
      if (sh_.token_text_ != nullptr) AppendTokenText(r, last);
      std::vector<uint64_t>& batch = sh_.token_batch_;
      const size_t at = batch.size();
      batch.resize(at + count);
      uint64_t* out = batch.data() + at;
      if (st_.hash_words != nullptr) {
        st_.hash_words(
            st_.short_words,
            {.text = st_.lowered(), .origin = window_, .starts = starts + r, .ends = ends + r, .count = count}, out);
        r = last;
      } else {
        const unsigned char* lowered = st_.lowered() - window_;  // indexed by text position
        for (; r < last; ++r) *out++ = HashWord(lowered + starts[r], ends[r] - starts[r]);
      }
      sh_.words_ += count;
      sh_.tokens_ += count;
    }
    for (; r < num_runs; ++r) FeedRun(starts[r], ends[r]);
  }

  // The token text of whole words [first, last) of the window's runs, each
  // lowered and followed by a space (as PendWord appends one), at once.
  [[gnu::always_inline]] void AppendTokenText(size_t first, size_t last) {
    const size_t* starts = st_.starts;
    const size_t* ends = st_.ends;
    std::string& out = *sh_.token_text_;
    size_t bytes = 0;
    for (size_t r = first; r < last; ++r) bytes += ends[r] - starts[r] + 1;
    size_t at = out.size();
    // A word of up to kCopy bytes is copied as kCopy bytes (the lowered copy
    // has that much slack past the window; `out` gets it here, cut after).
    constexpr size_t kCopy = State::kLoweredPad;
    out.resize(at + bytes + kCopy);
    const unsigned char* lowered = st_.lowered() - window_;  // indexed by text position
    for (size_t r = first; r < last; ++r) {
      const size_t len = ends[r] - starts[r];
      if (len <= kCopy) {
        std::memcpy(out.data() + at, lowered + starts[r], kCopy);
      } else {
        std::memcpy(out.data() + at, lowered + starts[r], len);
      }
      out[at + len] = ' ';
      at += len + 1;
    }
    out.resize(at);
  }

  // True when the last window ended inside a run (never, after the last).
  bool open() const { return open_; }

 private:
  // Step 2, a run with non-ASCII characters other than two-byte letters:
  // each is decided as the scalar tokenizer decides it, but words are hashed
  // in place, not gathered in word_.
  [[gnu::always_inline]] void FeedMixedRun(size_t s, size_t e) {
    size_t word_start = s;
    size_t i = s;
    while (true) {
      // In a run, ASCII bytes are word characters: skip to the next
      // non-ASCII one.
      i = NextHigh(i, e);
      if (i >= e) break;
      size_t clen = 1;
      const uint8_t cls = internal::CharClasses(DecodeAt(p_ + i, e - i, &clen));
      if ((cls & (internal::kCharWord | internal::kCharNoSpace)) == internal::kCharWord) {
        i += clen;
        continue;
      }
      if (i > word_start) PendWord(word_start, i);
      if ((cls & internal::kCharWord) != 0 && clen == 3 && sh_.token_text_ == nullptr) {
        i = EmitThreeByteWords(i, e);
        word_start = i;
        continue;
      }
      if ((cls & internal::kCharWord) != 0) {
        // A word of its own (Han, kana, Thai...): hashed now.
        ++sh_.words_;
        if (sh_.token_text_ != nullptr) {
          sh_.token_text_->append(text_.data() + i, clen).push_back(' ');
        }
        sh_.EmitToken(HashBytes(p_ + i, clen, sh_.seed_));
      }
      i += clen;
      word_start = i;
    }
    if (e > word_start) PendWord(word_start, e);
  }

  // FeedMixedRun's loop for the words of one character of three bytes (most
  // ideographs and kana) from text[i], a first one, on: hashed straight into
  // the token batch. Returns where they stop, before e.
  [[gnu::always_inline]] size_t EmitThreeByteWords(size_t i, size_t e) {
    constexpr uint8_t kOwnWord = internal::kCharWord | internal::kCharNoSpace;
    std::vector<uint64_t>& batch = sh_.token_batch_;
    const size_t at = batch.size();
    batch.resize(at + (e - i) / 3);
    uint64_t* const begin = batch.data() + at;
    uint64_t* out = begin;
    do {
      *out++ = st_.short_words.HashThreeBytes(p_ + i);
      i += 3;
      if (i + 3 > e) break;
      // Lead bytes E1..EC, EE, EF take any two continuation bytes (E0 and
      // ED, with narrower ranges, end the loop: FeedMixedRun decodes them).
      const unsigned lead = p_[i];
      if (lead - 0xE1u > 0xEFu - 0xE1u || lead == 0xED) break;
      if (((p_[i + 1] & 0xC0u) != 0x80) || ((p_[i + 2] & 0xC0u) != 0x80)) break;
      const auto cp = static_cast<int32_t>(((lead & 0x0Fu) << 12) | ((p_[i + 1] & 0x3Fu) << 6) | (p_[i + 2] & 0x3Fu));
      if ((internal::CharClasses(cp) & kOwnWord) != kOwnWord) break;
    } while (true);
    const auto count = static_cast<size_t>(out - begin);
    batch.resize(at + count);
    sh_.words_ += count;
    sh_.tokens_ += count;
    return i;
  }

  // Hashes the word text[ws, we), which lies in the current window, from
  // the window's lowered copy.
  [[gnu::always_inline]] void PendWord(size_t ws, size_t we) {
    const unsigned char* w = st_.lowered() + (ws - window_);
    const size_t wlen = we - ws;
    ++sh_.words_;
    if (sh_.token_text_ != nullptr) {
      sh_.token_text_->append(reinterpret_cast<const char*>(w), wlen).push_back(' ');
    }
    sh_.EmitToken(HashWord(w, wlen));
  }

  // XXH3-64 of the lowered word w[0..len) with the seed (HashBytes).
  [[gnu::always_inline]] uint64_t HashWord(const unsigned char* w, size_t len) const {
    using internal::ShortWordHasher;
    if (len > 16) [[unlikely]]
      return HashBytes(w, len, sh_.seed_);
    return st_.short_words.Hash(ShortWordHasher::Load(w), ShortWordHasher::Load(w + len - 8), len);
  }

  // The first non-ASCII byte in text[from, limit), or limit. REQUIRES: both
  // in the current window.
  [[gnu::always_inline]] size_t NextHigh(size_t from, size_t limit) const {
    return window_ + NextBit(st_.classes, &internal::ByteClasses::high, from - window_, limit - window_);
  }

  Shingler& sh_;
  State& st_;
  const std::string_view text_;
  const unsigned char* const p_;
  const size_t n_;
  size_t window_ = 0;      // start of the current window
  size_t open_start_ = 0;  // start of a run that began in an earlier window
  bool open_ = false;
  bool ascii_window_ = false;  // the current window has no byte >= 0x80
  uint64_t carry_ = 0;         // 1 when the byte before the next block is in a run
};

// Words from the classifier's masks. The text is cut into runs of bytes that
// are ASCII word characters or non-ASCII; every other byte separates words.
// A run of ASCII word characters that lies inside the text (neither at its
// start, where it may continue the word of the previous Feed, nor at its end)
// is a whole word, hashed in place. Every other run (with a non-ASCII
// character, or at an edge) goes through the scalar tokenizer, which decides
// each character and keeps the words that continue across calls.
// Compiled a second time for x86-64-v3 (AVX2, BMI, POPCNT), which the
// loader picks where the processor has it: the run lists are read off the
// masks with popcnt, tzcnt and blsr instead of their baseline sequences.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void Shingler::FeedWordsVector(std::string_view text) {
  if (text.empty()) return;
  // The previous Feed's word ends here unless the text starts inside a run.
  const auto first = static_cast<unsigned char>(text[0]);
  if (kAscii.word_class[first] == 0 && first < 0x80) EndWord();
  VectorWords words(this, text);
  for (size_t window = 0; window < text.size(); window += kWindowBlocks * 64) {
    words.FeedRuns(words.FindRuns(window));
  }
  assert(!words.open());
}

// Flattened: with two callers, GCC would otherwise call XXH3 and EndWord
// out of line, which costs a third of the time on one-character words.
[[gnu::flatten]] void Shingler::FeedWordsScalar(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      if (kAscii.word_class[c] == 0) {
        EndWord();
        ++i;
        continue;
      }
      // An ASCII run of word characters; bytes >= 0x80 end the run, but may
      // continue the word.
      bool has_upper = false;
      const size_t j = AsciiWordEnd(p, i, n, &has_upper);
      const bool complete = j < n && p[j] < 0x80;
      if (word_.empty() && !state_->in_long_word && complete && !has_upper) {
        // The common case: a whole lowercase word inside the chunk, hashed in place.
        ++words_;
        if (token_text_ != nullptr) token_text_->append(text.data() + i, j - i).push_back(' ');
        EmitToken(HashBytes(p + i, j - i, seed_));
      } else {
        const size_t old = word_.size();
        word_.append(text.data() + i, j - i);
        if (has_upper) {
          for (size_t w = old; w < word_.size(); ++w) {
            word_[w] = kAscii.lower[static_cast<unsigned char>(word_[w])];
          }
        }
        if (complete) {
          EndWord();
        } else if (word_.size() >= kMaxWordBuffer) {
          SpillWord();
        }
      }
      i = j;
      continue;
    }
    size_t len = 1;
    const int32_t cp = DecodeAt(p + i, n - i, &len);
    const uint8_t cls = internal::CharClasses(cp);
    if ((cls & internal::kCharWord) == 0) {
      EndWord();
    } else if ((cls & internal::kCharNoSpace) != 0) {
      // A word of its own, hashed in place.
      EndWord();
      ++words_;
      if (token_text_ != nullptr) token_text_->append(text.data() + i, len).push_back(' ');
      EmitToken(HashBytes(p + i, len, seed_));
    } else {
      word_.append(text.data() + i, len);
      if (word_.size() >= kMaxWordBuffer) SpillWord();
    }
    i += len;
  }
}

void Shingler::FeedChars(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  const uint64_t char_seed = Mix64(seed_ ^ 0x636861727321ULL);
  size_t i = 0;
  while (i < n) {
    int32_t cp;
    size_t len = 1;
    bool space, word;
    if (p[i] < 0x80) {
      const unsigned char c = p[i];
      cp = static_cast<unsigned char>(kAscii.lower[c]);
      space = c <= 0x20 || c == 0x7f;
      word = kAscii.word[c];
    } else {
      cp = DecodeAt(p + i, n - i, &len);
      const uint8_t cls = internal::CharClasses(cp);
      space = (cls & internal::kCharSpace) != 0;
      word = !space && (cls & internal::kCharWord) != 0;
    }
    i += len;
    // Words are counted in char mode too: they decide emptiness and --min-words.
    if (word && (!in_word_ || (internal::CharClasses(cp) & internal::kCharNoSpace) != 0)) {
      ++words_;
    }
    in_word_ = word;
    if (space) {
      pending_space_ = seen_char_;
      continue;
    }
    if (pending_space_) {
      EmitToken(Mix64(char_seed + ' '));
      if (token_text_ != nullptr) token_text_->push_back(' ');
      pending_space_ = false;
    }
    EmitToken(Mix64(char_seed + static_cast<uint64_t>(cp)));
    if (token_text_ != nullptr) {
      if (len == 1) {
        token_text_->push_back(static_cast<char>(cp));
      } else {
        token_text_->append(text.data() + i - len, len);
      }
    }
    seen_char_ = true;
  }
}

// Shingles are hashed here, a batch at a time, rather than token by token as
// the words are found: each shingle's hash is a chain of k dependent
// multiplies, and in this tight loop the chains of successive shingles
// overlap in the CPU instead of stalling the tokenizer.
void Shingler::FlushTokenBatch() {
  const size_t n = token_batch_.size();
  if (n == carried_) return;
  state_->content.Update(token_batch_.data() + carried_, (n - carried_) * sizeof(uint64_t));
  // New shingles are those ending at a new token: at token_batch_[first-1..n).
  const auto k = static_cast<size_t>(k_);
  const size_t first = std::max(carried_ + 1, k);
  if (first <= n) {
    const size_t old = shingles_.size();
    shingles_.resize(old + (n + 1 - first));
    uint64_t* out = shingles_.data() + old;
    const uint64_t* tokens = token_batch_.data();
    if (state_->hash_shingles != nullptr) {
      state_->hash_shingles(tokens + first - k, n + 1 - first, k_, seed_, out);
    } else {
      HashShinglesScalar(tokens, first, n, out);
    }
  }
  // Keep the last k-1 tokens: the start of the shingles of the next batch.
  carried_ = std::min(n, k - 1);
  token_batch_.erase(token_batch_.begin(), token_batch_.end() - static_cast<ptrdiff_t>(carried_));
}

// FlushTokenBatch's scalar shingle hashes, of those ending at tokens[first-1..n).
void Shingler::HashShinglesScalar(const uint64_t* tokens, size_t first, size_t n, uint64_t* out) const {
  const auto k = static_cast<size_t>(k_);
  // The usual k with the chain unrolled (same hashes), so that the chains
  // of successive shingles overlap in the CPU.
  switch (k_) {
    case 3:
      HashShingles<3>(tokens, first, n, seed_, out);
      break;
    case 4:
      HashShingles<4>(tokens, first, n, seed_, out);
      break;
    case 5:
      HashShingles<5>(tokens, first, n, seed_, out);
      break;
    case 9:  // the char-mode default
      HashShingles<9>(tokens, first, n, seed_, out);
      break;
    default:
      for (size_t end = first; end <= n; ++end) {
        *out++ = ShingleHash(tokens + end - k, k_, seed_);
      }
  }
}

void Shingler::Feed(std::string_view text) {
  if (unit_ == ShingleUnit::kWord) {
    FeedWords(text);
  } else {
    FeedChars(text);
  }
  FlushTokenBatch();
}

void Shingler::Finish() {
  if (unit_ == ShingleUnit::kWord) EndWord();
  word_.clear();
  state_->in_long_word = false;
  FlushTokenBatch();
  if (tokens_ > 0 && tokens_ < static_cast<uint64_t>(k_)) {
    // Short document: one shingle, all of it (all its tokens are carried).
    assert(carried_ == tokens_ && token_batch_.size() == carried_);
    shingles_.push_back(ShingleHash(token_batch_.data(), static_cast<int>(tokens_), seed_));
  }
  state_->content.Digest(&content_.low, &content_.high);
}

std::vector<uint64_t> ShingleSet(std::string_view text, ShingleUnit unit, int k, uint64_t seed) {
  TextDecoder decoder(Encoding::kUtf8);
  std::string utf8;
  decoder.Feed(text, &utf8);
  decoder.Finish(&utf8);
  Shingler shingler(unit, k, seed);
  shingler.Feed(NormalizeText(utf8));
  shingler.Finish();
  std::vector<uint64_t> set;
  if (shingler.words() > 0) set = std::move(shingler.shingles());
  std::sort(set.begin(), set.end());
  set.erase(std::unique(set.begin(), set.end()), set.end());
  return set;
}

}  // namespace neardup
