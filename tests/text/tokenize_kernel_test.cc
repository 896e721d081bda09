// Every tokenizer kernel gives the scalar tokenizer's hashes.
//
// src/text/tokenize_kernel.cc has byte classifiers for AVX-512BW, AVX2 and
// portable C++; the Shingler picks the best the processor runs, and without
// one keeps the scalar tokenizer (TokenizerKernel::kBaseline), which is the
// reference. Here each classifier this machine supports is checked against
// the portable one mask by mask, and a Shingler on each kernel is checked
// against the scalar one on random texts (ASCII, accented Latin, Cyrillic,
// CJK, combining marks, mixed, invalid bytes, words longer than the 64 KiB
// word buffer) cut into chunks in many ways: same shingles in the same order,
// same word and token counts, same content hash, same token text.
#include "text/tokenize_kernel.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/hash.h"
#include "text/char_classes.h"
#include "text/decode.h"
#include "text/normalize.h"
#include "text/shingle.h"
#include "text/word_hash.h"

namespace neardup {
namespace {

using internal::TokenizerKernel;

uint64_t SplitMix(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::vector<TokenizerKernel> VectorKernels() {
  std::vector<TokenizerKernel> kernels;
  for (TokenizerKernel k : {TokenizerKernel::kPortable, TokenizerKernel::kAvx2, TokenizerKernel::kAvx512}) {
    if (internal::TokenizerKernelSupported(k)) kernels.push_back(k);
  }
  return kernels;
}

const char* Name(TokenizerKernel k) {
  switch (k) {
    case TokenizerKernel::kBaseline:
      return "baseline";
    case TokenizerKernel::kPortable:
      return "portable";
    case TokenizerKernel::kAvx2:
      return "avx2";
    case TokenizerKernel::kAvx512:
      return "avx512";
  }
  return "?";
}

// Makes Shinglers created in its scope use `kernel`.
class KernelScope {
 public:
  explicit KernelScope(TokenizerKernel kernel) { internal::SetTokenizerKernelOverride(kernel); }
  ~KernelScope() { internal::ClearTokenizerKernelOverride(); }
  KernelScope(const KernelScope&) = delete;
  KernelScope& operator=(const KernelScope&) = delete;
};

TEST(TokenizerKernelsTest, ClassifiersAgreeWithPortableOnEveryByteAndLength) {
  uint64_t seed = 7;
  std::string bytes(8192 + 64, '\0');
  for (char& c : bytes) c = static_cast<char>(SplitMix(&seed));
  // Every byte value at every position of a block, too, and every two-byte
  // sequence with a lead byte C2..DF, at odd and even offsets.
  for (size_t i = 0; i < 256; ++i) bytes[i] = static_cast<char>(i);
  size_t at = 300;
  for (int lead = 0xC2; lead <= 0xDF; ++lead) {
    for (int second = 0x70; second <= 0xC5; ++second) {
      bytes[at++] = static_cast<char>(lead);
      bytes[at++] = static_cast<char>(second);
      if (second % 7 == 0) bytes[at++] = 'x';
    }
  }
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  for (TokenizerKernel k : VectorKernels()) {
    const internal::ClassifyFn classify = internal::ClassifierFor(k);
    ASSERT_NE(classify, nullptr);
    for (size_t offset : {size_t{0}, size_t{1}, size_t{31}, size_t{63}}) {
      for (size_t n = 0; n <= 8192; n += (n < 300 ? 1 : 97)) {
        const size_t blocks = (n + 63) / 64;
        std::vector<internal::ByteClasses> want(blocks), got(blocks);
        std::vector<unsigned char> want_lowered(64 * blocks), got_lowered(64 * blocks);
        internal::ClassifyPortable(p + offset, n, want.data(), want_lowered.data());
        classify(p + offset, n, got.data(), got_lowered.data());
        for (size_t i = 0; i < n; ++i) {
          const unsigned char b = p[offset + i];
          const unsigned char lower = b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b;
          ASSERT_EQ(want_lowered[i], lower) << "portable n=" << n << " byte " << i;
          ASSERT_EQ(got_lowered[i], lower) << Name(k) << " n=" << n << " byte " << i;
        }
        for (size_t b = 0; b < blocks; ++b) {
          ASSERT_EQ(got[b].word, want[b].word) << Name(k) << " n=" << n << " block " << b;
          ASSERT_EQ(got[b].high, want[b].high) << Name(k) << " n=" << n << " block " << b;
          ASSERT_EQ(got[b].upper, want[b].upper) << Name(k) << " n=" << n << " block " << b;
          ASSERT_EQ(got[b].pair, want[b].pair) << Name(k) << " n=" << n << " block " << b;
        }
      }
    }
  }
}

// The pair mask marks a two-byte sequence only where the tokenizer's own
// classes make its code point a word character of a spaced script; and it
// marks the usual letters of Latin and Cyrillic text.
TEST(TokenizerKernelsTest, PairMaskMarksOnlyWordCharacters) {
  int marked = 0;
  for (int lead = 0xC2; lead <= 0xDF; ++lead) {
    for (int second = 0x80; second <= 0xBF; ++second) {
      const unsigned char seq[2] = {static_cast<unsigned char>(lead), static_cast<unsigned char>(second)};
      internal::ByteClasses c{};
      unsigned char lowered[64];
      internal::ClassifyPortable(seq, 2, &c, lowered);
      if (c.pair == 0) continue;
      ASSERT_EQ(c.pair, 0b11u);
      const int32_t cp = ((lead & 0x1F) << 6) | (second & 0x3F);
      ASSERT_EQ(internal::CharClassesReference(cp), internal::kCharWord) << "U+" << std::hex << cp;
      ++marked;
    }
  }
  EXPECT_EQ(marked, 64 * 12 - 3);  // C3..CA, D0..D3, but for three
  for (const char* letter : {"\xC3\xA9", "\xC3\x9F", "\xC5\x93", "\xD0\xB4", "\xD1\x8F"}) {
    internal::ByteClasses c{};
    unsigned char lowered[64];
    internal::ClassifyPortable(reinterpret_cast<const unsigned char*>(letter), 2, &c, lowered);
    EXPECT_EQ(c.pair, 0b11u) << letter;
  }
}

TEST(TokenizerKernelsTest, PortableMasksAreTheDocumentedClasses) {
  const std::string text = "aZ_9 -\xC3\xA9";
  internal::ByteClasses c{};
  unsigned char lowered[64];
  internal::ClassifyPortable(reinterpret_cast<const unsigned char*>(text.data()), text.size(), &c, lowered);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(lowered), text.size()), "az_9 -\xC3\xA9");
  EXPECT_EQ(c.word, 0b1111u);
  EXPECT_EQ(c.upper, 0b10u);
  EXPECT_EQ(c.high, 0b11000000u);
}

// The branch-free short-word hash is XXH3-64 with the seed, bit for bit, for
// every length 1..16, whatever bytes surround the word in its two loads.
TEST(TokenizerKernelsTest, ShortWordHashIsXxh3OnEveryLength) {
  uint64_t state = 3;
  for (int round = 0; round < 2000; ++round) {
    const uint64_t seed = round < 4 ? static_cast<uint64_t>(round) : SplitMix(&state);
    const internal::ShortWordHasher hasher(seed);
    unsigned char buffer[48];
    for (unsigned char& b : buffer) b = static_cast<unsigned char>(SplitMix(&state));
    for (size_t len = 1; len <= 16; ++len) {
      const unsigned char* word = buffer + 16;
      const uint64_t want = HashBytes(word, len, seed);
      const uint64_t got =
          hasher.Hash(internal::ShortWordHasher::Load(word), internal::ShortWordHasher::Load(word + len - 8), len);
      ASSERT_EQ(got, want) << "len " << len << " seed " << seed;
    }
    ASSERT_EQ(hasher.HashThreeBytes(buffer), HashBytes(buffer, 3, seed)) << "seed " << seed;
  }
}

// The vector word hasher (src/text/word_hash.h: eight words at a time,
// gathered loads, the three short XXH3 formulas side by side, the
// 64x64->128 multiply from 32-bit products; a word of more than 16 bytes
// takes HashBytes) against HashBytes for words of every length from 1 to 40
// at random places in random bytes, with several seeds and every count of
// words from 0 to 40 (so every mask of the last, partial group of eight).
// Random bytes with 16 bytes of slack on either side of the words, as the
// Shingler's lowered window has, and `count` words of random lengths in
// [1, max_len] at random places among them.
struct Text {
  std::vector<unsigned char> bytes;
  std::vector<size_t> starts;
  std::vector<size_t> ends;
};
Text RandomWords(uint64_t* rng, size_t count, size_t max_len) {
  constexpr size_t kPad = 16;
  Text t;
  t.bytes.resize(kPad + 4096 + kPad);
  for (unsigned char& b : t.bytes) b = static_cast<unsigned char>(SplitMix(rng));
  for (size_t i = 0; i < count; ++i) {
    const size_t len = 1 + SplitMix(rng) % max_len;
    const size_t start = kPad + SplitMix(rng) % (4096 - len);
    t.starts.push_back(start);
    t.ends.push_back(start + len);
  }
  return t;
}

// The kernels with a vector word hasher on this processor.
std::vector<TokenizerKernel> WordHashKernels() {
  std::vector<TokenizerKernel> kernels;
  for (TokenizerKernel k : {TokenizerKernel::kAvx2, TokenizerKernel::kAvx512}) {
    if (internal::TokenizerKernelSupported(k) && internal::WordHasherFor(k) != nullptr) kernels.push_back(k);
  }
  return kernels;
}

TEST(TokenizerKernelsTest, VectorWordHasherIsXxh3ForEveryLengthAndCount) {
  if (WordHashKernels().empty()) GTEST_SKIP() << "this processor has neither AVX2 nor AVX-512";
  for (TokenizerKernel kernel : WordHashKernels()) {
    const internal::WordHashFn hash = internal::WordHasherFor(kernel);
    uint64_t rng = 42;
    for (const uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{0x9e3779b97f4a7c15ULL}, SplitMix(&rng)}) {
      const internal::ShortWordHasher hasher(seed);
      for (size_t count = 0; count <= 40; ++count) {
        const Text t = RandomWords(&rng, count, 40);
        // Positions as the Shingler gives them: from an origin other than 0.
        const size_t origin = 1000;
        std::vector<size_t> starts, ends;
        for (size_t i = 0; i < count; ++i) {
          starts.push_back(t.starts[i] + origin);
          ends.push_back(t.ends[i] + origin);
        }
        std::vector<uint64_t> got(count + 1, 0x5555);
        hash(hasher,
             {.text = t.bytes.data(), .origin = origin, .starts = starts.data(), .ends = ends.data(), .count = count},
             got.data());
        for (size_t i = 0; i < count; ++i) {
          const size_t len = t.ends[i] - t.starts[i];
          ASSERT_EQ(got[i], HashBytes(t.bytes.data() + t.starts[i], len, seed))
              << Name(kernel) << ", seed " << seed << ", word " << i << " of " << count << ", " << len << " bytes";
        }
        EXPECT_EQ(got[count], 0x5555u) << Name(kernel) << ": wrote past the last word";
      }
    }
  }
}

TEST(TokenizerKernelsTest, VectorWordHasherAgreesInEachLaneForEveryLength) {
  if (WordHashKernels().empty()) GTEST_SKIP() << "this processor has neither AVX2 nor AVX-512";
  for (TokenizerKernel kernel : WordHashKernels()) {
    const internal::WordHashFn hash = internal::WordHasherFor(kernel);
    // Eight words of the same length in one call, for every length: each
    // formula and the choice between them, in every lane.
    uint64_t rng = 7;
    const internal::ShortWordHasher hasher(12345);
    for (size_t len = 1; len <= 40; ++len) {
      Text t = RandomWords(&rng, 0, 1);
      for (size_t i = 0; i < 8; ++i) {
        t.starts.push_back(16 + i * 50);
        t.ends.push_back(16 + i * 50 + len);
      }
      std::vector<uint64_t> got(8);
      hash(hasher, {.text = t.bytes.data(), .origin = 0, .starts = t.starts.data(), .ends = t.ends.data(), .count = 8},
           got.data());
      for (size_t i = 0; i < 8; ++i) {
        ASSERT_EQ(got[i], HashBytes(t.bytes.data() + t.starts[i], len, 12345))
            << Name(kernel) << ", " << len << " bytes, lane " << i;
      }
    }
  }
}

TEST(TokenizerKernelsTest, VectorHashersGoWithTheVectorKernels) {
  EXPECT_EQ(internal::WordHasherFor(TokenizerKernel::kBaseline), nullptr);
  EXPECT_EQ(internal::WordHasherFor(TokenizerKernel::kPortable), nullptr);
  EXPECT_EQ(internal::ShingleHasherFor(TokenizerKernel::kBaseline), nullptr);
  EXPECT_EQ(internal::ShingleHasherFor(TokenizerKernel::kPortable), nullptr);
  if (!internal::TokenizerKernelSupported(TokenizerKernel::kAvx2)) GTEST_SKIP() << "this processor has no AVX2";
#if defined(__x86_64__) && defined(__GNUC__)
  EXPECT_EQ(internal::WordHasherFor(TokenizerKernel::kAvx2), &internal::HashWordsAvx2);
  EXPECT_EQ(internal::ShingleHasherFor(TokenizerKernel::kAvx2), &internal::HashShinglesAvx2);
#endif
}

TEST(TokenizerKernelsTest, VectorShingleHashersFollowTheFormulaForEveryCountAndK) {
  std::vector<TokenizerKernel> kernels;
  for (TokenizerKernel k : {TokenizerKernel::kAvx2, TokenizerKernel::kAvx512}) {
    if (internal::TokenizerKernelSupported(k) && internal::ShingleHasherFor(k) != nullptr) kernels.push_back(k);
  }
  if (kernels.empty()) GTEST_SKIP() << "this processor has neither AVX2 nor AVX-512";
  uint64_t rng = 11;
  std::vector<uint64_t> tokens(60);
  for (uint64_t& t : tokens) t = SplitMix(&rng);
  const uint64_t seed = SplitMix(&rng);
  for (TokenizerKernel kernel : kernels) {
    const internal::ShingleHashFn hash = internal::ShingleHasherFor(kernel);
    for (int k = 1; k <= 12; ++k) {
      for (size_t count = 0; count + static_cast<size_t>(k) <= tokens.size(); ++count) {
        std::vector<uint64_t> got(count + 1, 0x5555);
        hash(tokens.data(), count, k, seed, got.data());
        for (size_t i = 0; i < count; ++i) {
          uint64_t h = seed;
          for (size_t j = i; j < i + static_cast<size_t>(k); ++j) {
            h = (h ^ tokens[j]) * 0x9e3779b97f4a7c15ULL;
            h ^= h >> 29;
          }
          ASSERT_EQ(got[i], Mix64(h)) << Name(kernel) << ", k=" << k << ", shingle " << i << " of " << count;
        }
        EXPECT_EQ(got[count], 0x5555u) << Name(kernel) << ": wrote past the last shingle";
      }
    }
  }
}

TEST(TokenizerKernelsTest, CharClassTableAgreesWithUtf8procOnEveryCodePoint) {
  for (int32_t cp = -1; cp <= 0x110000; ++cp) {
    ASSERT_EQ(internal::CharClasses(cp), internal::CharClassesReference(cp)) << "U+" << std::hex << cp;
  }
  using internal::kCharNoSpace;
  using internal::kCharSpace;
  using internal::kCharWord;
  EXPECT_EQ(internal::CharClasses(0xE9), kCharWord);                   // é
  EXPECT_EQ(internal::CharClasses(0x0301), kCharWord);                 // combining acute
  EXPECT_EQ(internal::CharClasses(0x4E2D), kCharWord | kCharNoSpace);  // 中
  EXPECT_EQ(internal::CharClasses(0x00A0), kCharSpace);                // no-break space
  EXPECT_EQ(internal::CharClasses(0x2014), 0);                         // em dash
  EXPECT_EQ(internal::CharClasses(0x20000), kCharWord | kCharNoSpace);
}

enum class Flavour { kAscii, kLatin, kCyrillic, kCjk, kMixed, kInvalid };

// A random text of the flavour: words of its script, with capitals, digits,
// '_', punctuation and white space between them.
std::string RandomText(Flavour flavour, size_t bytes, uint64_t seed) {
  static const char* const kLatin[] = {"\xC3\xA9", "\xC3\x89", "\xC3\xA0", "\xC3\x9F",
                                       "\xC3\xBC", "\xC3\x9C", "\xC5\x93", "\xEF\xAC\x81" /* ﬁ */,
                                       "e\xCC\x81" /* e + combining acute */};
  static const char* const kCyrillic[] = {"\xD0\xB0", "\xD0\x91", "\xD0\xB4", "\xD1\x8F",
                                          "\xD0\xAF", "\xD1\x91", "\xD0\x81"};
  static const char* const kCjk[] = {"\xE4\xB8\xAD",
                                     "\xE6\x96\x87",
                                     "\xE3\x81\x82" /* あ */,
                                     "\xE3\x82\xAB" /* カ */,
                                     "\xEA\xB0\x80" /* 가 */,
                                     "\xEF\xBC\xA1" /* Ａ */,
                                     "\xF0\x9F\x98\x80" /* emoji */,
                                     "\xF0\xA0\x80\x80" /* U+20000 */};
  static const char* const kSeparators[] = {
      " ",           " ", " ", ", ", ". ", "\n", "\n\n", "-", "'", "\t", "\xE2\x80\x94" /* — */, "\xC2\xA0" /* nbsp */,
      "\xE3\x80\x82" /* 。 */};
  static const char* const kInvalid[] = {"\xFF",    "\xC3", "\xE4\xB8", "\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80",
                                         "\xC0\xAF"};
  std::string out;
  while (out.size() < bytes) {
    const uint64_t r = SplitMix(&seed);
    const size_t len = 1 + r % 12;
    for (size_t i = 0; i < len; ++i) {
      const uint64_t c = SplitMix(&seed);
      Flavour f = flavour;
      if (flavour == Flavour::kMixed || flavour == Flavour::kInvalid) {
        f = static_cast<Flavour>(c % 4);
      }
      const bool ascii = f == Flavour::kAscii || (c >> 8) % 3 == 0;
      if (ascii) {
        const uint64_t k = (c >> 16) % 40;
        out.push_back(k < 26   ? static_cast<char>('a' + k)
                      : k < 32 ? static_cast<char>('A' + (c >> 24) % 26)
                      : k < 38 ? static_cast<char>('0' + (c >> 24) % 10)
                               : '_');
      } else if (f == Flavour::kLatin) {
        out += kLatin[(c >> 16) % std::size(kLatin)];
      } else if (f == Flavour::kCyrillic) {
        out += kCyrillic[(c >> 16) % std::size(kCyrillic)];
      } else {
        out += kCjk[(c >> 16) % std::size(kCjk)];
      }
      if (flavour == Flavour::kInvalid && (c >> 40) % 16 == 0) {
        out += kInvalid[(c >> 44) % std::size(kInvalid)];
      }
    }
    out += kSeparators[(r >> 32) % std::size(kSeparators)];
  }
  return out;
}

struct Tokens {
  std::vector<uint64_t> shingles;
  uint64_t words = 0;
  uint64_t tokens = 0;
  ContentHash content;
  std::string token_text;
  friend bool operator==(const Tokens& x, const Tokens& y) {
    return x.shingles == y.shingles && x.words == y.words && x.tokens == y.tokens && x.content == y.content &&
           x.token_text == y.token_text;
  }
};

// Feeds `text` to a Shingler on `kernel`, as the given pieces; with
// `token_text`, the Shingler also keeps the token text (as --exact does for
// the members of groups of copies), in the batches of whole words too.
Tokens Shingle(TokenizerKernel kernel, const std::vector<std::string_view>& pieces, int k, bool token_text = true) {
  const KernelScope scope(kernel);
  Shingler shingler(ShingleUnit::kWord, k, 42);
  Tokens t;
  if (token_text) shingler.set_token_text(&t.token_text);
  for (std::string_view piece : pieces) {
    shingler.Feed(piece);
    t.shingles.insert(t.shingles.end(), shingler.shingles().begin(), shingler.shingles().end());
    shingler.shingles().clear();
  }
  shingler.Finish();
  t.shingles.insert(t.shingles.end(), shingler.shingles().begin(), shingler.shingles().end());
  t.words = shingler.words();
  t.tokens = shingler.tokens();
  t.content = shingler.content_hash();
  return t;
}

// Cuts `text` into random pieces of up to `max` bytes, each ending on a code
// point boundary (before a byte that is not a continuation byte).
std::vector<std::string_view> RandomPieces(std::string_view text, size_t max, uint64_t seed) {
  std::vector<std::string_view> pieces;
  while (!text.empty()) {
    size_t len = std::min(text.size(), 1 + SplitMix(&seed) % max);
    while (len < text.size() && (static_cast<unsigned char>(text[len]) & 0xC0) == 0x80) ++len;
    pieces.push_back(text.substr(0, len));
    text.remove_prefix(len);
  }
  return pieces;
}

// Decoded and normalized, as the Shingler sees text in the pipeline.
std::string Prepare(std::string_view raw) {
  TextDecoder decoder(Encoding::kUtf8);
  std::string utf8;
  decoder.Feed(raw, &utf8);
  decoder.Finish(&utf8);
  Normalizer normalizer;
  std::string out;
  normalizer.Feed(utf8, &out);
  normalizer.Finish(&out);
  return out;
}

TEST(TokenizerKernelsTest, EveryKernelGivesTheScalarTokensOnRandomTextsAndChunkings) {
  const std::vector<TokenizerKernel> kernels = VectorKernels();
  ASSERT_FALSE(kernels.empty());  // the portable kernel always runs
  uint64_t seed = 1;
  for (Flavour flavour :
       {Flavour::kAscii, Flavour::kLatin, Flavour::kCyrillic, Flavour::kCjk, Flavour::kMixed, Flavour::kInvalid}) {
    for (int round = 0; round < 12; ++round) {
      const size_t bytes = round < 4 ? 1 + SplitMix(&seed) % 200 : 1 + SplitMix(&seed) % 20000;
      const std::string raw = RandomText(flavour, bytes, SplitMix(&seed));
      for (const std::string& text : {raw, Prepare(raw)}) {
        // Whole, then pieces of every size up to 8 bytes, then random ones.
        std::vector<std::vector<std::string_view>> chunkings = {{text}};
        for (size_t max = 1; max <= 8; ++max) {
          chunkings.push_back(RandomPieces(text, max, seed + max));
        }
        chunkings.push_back(RandomPieces(text, 100, SplitMix(&seed)));
        chunkings.push_back(RandomPieces(text, 5000, SplitMix(&seed)));
        const int k = 1 + static_cast<int>(SplitMix(&seed) % 6);
        const Tokens want = Shingle(TokenizerKernel::kBaseline, {text}, k);
        for (const auto& pieces : chunkings) {
          ASSERT_EQ(Shingle(TokenizerKernel::kBaseline, pieces, k), want)
              << "baseline, flavour " << static_cast<int>(flavour) << " round " << round;
          for (TokenizerKernel kernel : kernels) {
            ASSERT_EQ(Shingle(kernel, pieces, k), want) << Name(kernel) << ", flavour " << static_cast<int>(flavour)
                                                        << " round " << round << ", " << pieces.size() << " pieces";
          }
        }
      }
    }
  }
}

// Without token text, the whole ASCII words inside a window are hashed in a
// batch (eight at a time on AVX-512): the same shingles, counts and content
// hash as the scalar tokenizer, on texts of many windows (4 KB each) whose
// words take every length from 1 to 24 bytes, in one piece and in pieces.
TEST(TokenizerKernelsTest, BatchedWordHashesGiveTheScalarTokens) {
  uint64_t seed = 11;
  for (Flavour flavour : {Flavour::kAscii, Flavour::kAscii, Flavour::kMixed, Flavour::kLatin}) {
    std::string text;
    while (text.size() < 30000) {
      const size_t len = 1 + SplitMix(&seed) % 24;
      if (flavour == Flavour::kAscii) {
        for (size_t i = 0; i < len; ++i) text.push_back(static_cast<char>('a' + SplitMix(&seed) % 26));
        text += SplitMix(&seed) % 8 == 0 ? ".\n" : " ";
      } else {
        text += RandomText(flavour, len, SplitMix(&seed));
      }
    }
    const std::vector<std::vector<std::string_view>> chunkings = {
        {text}, RandomPieces(text, 100, SplitMix(&seed)), RandomPieces(text, 9000, SplitMix(&seed))};
    for (const int k : {1, 5}) {
      const Tokens want = Shingle(TokenizerKernel::kBaseline, {text}, k, /*token_text=*/false);
      for (const auto& pieces : chunkings) {
        for (TokenizerKernel kernel : VectorKernels()) {
          ASSERT_EQ(Shingle(kernel, pieces, k, /*token_text=*/false), want)
              << Name(kernel) << ", flavour " << static_cast<int>(flavour) << ", k " << k << ", " << pieces.size()
              << " pieces";
        }
      }
    }
  }
}

TEST(TokenizerKernelsTest, WordsLongerThanTheWordBufferHashAlikeOnEveryKernel) {
  // One ASCII word of 200 KB, one mixed with accents, between short words.
  std::string text = "Start ";
  for (int i = 0; i < 200000; ++i) text.push_back(static_cast<char>('a' + i % 26));
  text += " middle ";
  for (int i = 0; i < 50000; ++i) text += i % 7 == 0 ? "\xC3\xA9" : "Ab";
  text += " end.";
  for (size_t max : {size_t{1000}, size_t{65536}, size_t{300000}}) {
    const std::vector<std::string_view> pieces = RandomPieces(text, max, max);
    const Tokens want = Shingle(TokenizerKernel::kBaseline, pieces, 3);
    EXPECT_EQ(want.words, 5u);
    for (TokenizerKernel kernel : VectorKernels()) {
      EXPECT_EQ(Shingle(kernel, pieces, 3), want) << Name(kernel) << " max " << max;
    }
  }
}

// The shingle hash, spelled out: XXH3-64 of each word with the seed, then a
// multiply-xorshift chain over k token hashes and Mix64. Every k, on every
// kernel (the chain is unrolled for the usual k).
TEST(TokenizerKernelsTest, ShingleHashesFollowTheDocumentedFormula) {
  const std::vector<std::string> words = {"the", "quick", "brown", "fox",   "jumps", "over",
                                          "the", "lazy",  "dog",   "again", "and",   "again"};
  std::string text;
  for (const std::string& w : words) text += w + " ";
  const uint64_t seed = 42;
  std::vector<TokenizerKernel> kernels = VectorKernels();
  kernels.push_back(TokenizerKernel::kBaseline);
  for (int k = 1; k <= 10; ++k) {
    std::vector<uint64_t> want;
    for (size_t end = static_cast<size_t>(k); end <= words.size(); ++end) {
      uint64_t h = seed;
      for (size_t j = end - static_cast<size_t>(k); j < end; ++j) {
        h = (h ^ HashBytes(words[j].data(), words[j].size(), seed)) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
      }
      want.push_back(Mix64(h));
    }
    for (TokenizerKernel kernel : kernels) {
      EXPECT_EQ(Shingle(kernel, {text}, k).shingles, want) << Name(kernel) << " k=" << k;
    }
  }
}

TEST(TokenizerKernelsTest, TheDefaultKernelIsTheFastestSupported) {
  const TokenizerKernel k = internal::DefaultTokenizerKernel();
  EXPECT_TRUE(internal::TokenizerKernelSupported(k));
  if (internal::TokenizerKernelSupported(TokenizerKernel::kAvx512)) {
    EXPECT_EQ(k, TokenizerKernel::kAvx512);
  } else if (internal::TokenizerKernelSupported(TokenizerKernel::kAvx2)) {
    EXPECT_EQ(k, TokenizerKernel::kAvx2);
  } else {
    EXPECT_EQ(k, TokenizerKernel::kBaseline);
  }
}

}  // namespace
}  // namespace neardup
