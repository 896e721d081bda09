#include "text/normalize.h"

#include <gtest/gtest.h>
#include <utf8proc.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "text/tokenize_kernel.h"

namespace neardup {
namespace {

// Feeds `text` in pieces cut at `cuts` (sorted offsets on code point
// boundaries).
std::string NormalizeInPieces(std::string_view text, const std::vector<size_t>& cuts) {
  Normalizer normalizer;
  std::string out;
  size_t from = 0;
  for (size_t cut : cuts) {
    normalizer.Feed(text.substr(from, cut - from), &out);
    from = cut;
  }
  normalizer.Feed(text.substr(from), &out);
  normalizer.Finish(&out);
  return out;
}

std::string NormalizeWhole(std::string_view text) { return NormalizeInPieces(text, {}); }

// utf8proc on the whole string at once: the reference for Feed's segments.
std::string Utf8procMap(std::string_view text) {
  utf8proc_uint8_t* mapped = nullptr;
  const utf8proc_ssize_t len = utf8proc_map(
      reinterpret_cast<const utf8proc_uint8_t*>(text.data()), static_cast<utf8proc_ssize_t>(text.size()), &mapped,
      static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD));
  std::string out;
  if (len >= 0) {
    out.assign(reinterpret_cast<const char*>(mapped), static_cast<size_t>(len));
  }
  std::free(mapped);
  return out;
}

// Offsets where a UTF-8 code point starts (excluding 0).
std::vector<size_t> CodePointStarts(std::string_view text) {
  std::vector<size_t> starts;
  for (size_t i = 1; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  return starts;
}

std::vector<size_t> RandomCuts(const std::vector<size_t>& starts, size_t count, std::mt19937* rng) {
  std::vector<size_t> cuts;
  if (starts.empty()) return cuts;
  std::uniform_int_distribution<size_t> pick(0, starts.size() - 1);
  for (size_t i = 0; i < count; ++i) cuts.push_back(starts[pick(*rng)]);
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

TEST(NormalizeTextTest, FoldsCompatibilityFormsAndCase) {
  EXPECT_EQ(NormalizeText("\uFB01le"), "file");                  // ligature fi
  EXPECT_EQ(NormalizeText("\uFF26\uFF29\uFF2C\uFF25"), "file");  // fullwidth
  EXPECT_EQ(NormalizeText("File"), "file");
  EXPECT_EQ(NormalizeText("Stra\u00DFe"), "strasse");
  EXPECT_EQ(NormalizeText("\u2460"), "1");  // circled digit one
  EXPECT_EQ(NormalizeText("x\u00B2"), "x2");
}

TEST(NormalizeTextTest, FoldsGreekCaseIncludingAccentedCapitals) {
  // ΣΊΣΥΦΟΣ: full case folding maps every sigma to σ (no final-sigma rule)
  // and Ί (U+038A) to ί (U+03AF).
  EXPECT_EQ(NormalizeText("\u03A3\u038A\u03A3\u03A5\u03A6\u039F\u03A3"), "\u03C3\u03AF\u03C3\u03C5\u03C6\u03BF\u03C3");
  EXPECT_EQ(NormalizeText("\u03C3\u03AF\u03C3\u03C5\u03C6\u03BF\u03C2"), "\u03C3\u03AF\u03C3\u03C5\u03C6\u03BF\u03C3");
}

TEST(NormalizeTextTest, ComposesCombiningMarks) {
  EXPECT_EQ(NormalizeText("e\u0301"), "\u00E9");
  EXPECT_EQ(NormalizeText("E\u0301"), "\u00E9");
  // Marks out of canonical order are reordered, then composed:
  // a + dot below (ccc 220) composes first, acute stays a mark.
  EXPECT_EQ(NormalizeText("a\u0301\u0323"), "\u1EA1\u0301");
  // Conjoining Hangul jamo L V T compose to one syllable.
  EXPECT_EQ(NormalizeText("\u1100\u1161\u11A8"), "\uAC01");
}

TEST(NormalizeTextTest, WidensHalfwidthKatakana) {
  EXPECT_EQ(NormalizeText("\uFF76\uFF80\uFF76\uFF85"), "\u30AB\u30BF\u30AB\u30CA");
  // The halfwidth voiced mark composes with the kana before it: ｶﾞ -> ガ.
  EXPECT_EQ(NormalizeText("\uFF76\uFF9E"), "\u30AC");
}

TEST(NormalizeTextTest, LeavesCjkAndLowercaseUnchanged) {
  EXPECT_EQ(NormalizeText("\u4E2D\u6587 \u3072\u3089\u304C\u306A \uD55C\uAD6D"),
            "\u4E2D\u6587 \u3072\u3089\u304C\u306A \uD55C\uAD6D");
  EXPECT_EQ(NormalizeText("already normal"), "already normal");
  EXPECT_EQ(NormalizeText(""), "");
}

// The normalizer's tables are built from the planes that may decompose
// only: no code point of the others has a canonical decomposition in the
// utf8proc linked (a newer one that gave one would fail here, not change
// documents' shingles unseen).
TEST(NormalizerTest, OnlyTheScannedPlanesHoldCanonicalDecompositions) {
  std::vector<bool> scanned(17, false);
  for (const int plane : internal::kDecomposingPlanes) scanned[static_cast<size_t>(plane)] = true;
  int found = 0;
  for (int32_t cp = 0; cp < 0x110000; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    if (!internal::HasCanonicalDecomposition(cp)) continue;
    ++found;
    EXPECT_TRUE(scanned[static_cast<size_t>(cp >> 16)]) << "U+" << std::hex << cp;
  }
  EXPECT_GT(found, 2000);  // U+00C0 and the like: the tables are really read
}

TEST(NormalizerTest, FeedPassesAsciiThroughWithoutLowercasing) {
  EXPECT_EQ(NormalizeWhole("Hello, World! 123\n\t"), "Hello, World! 123\n\t");
  const std::string long_ascii(100000, 'Q');
  EXPECT_EQ(NormalizeWhole(long_ascii), long_ascii);
}

TEST(NormalizerTest, FeedNormalizesOnlyAroundNonAsciiText) {
  // ASCII far from non-ASCII keeps its case; ASCII inside a Unicode segment
  // (the base of a mark, single spaces between non-ASCII) is folded with it.
  EXPECT_EQ(NormalizeWhole("Caf\u00E9 \uFB01le ABC"), "Caf\u00E9 file ABC");
  EXPECT_EQ(NormalizeWhole("ABC\u00C9 DEF"), "ABc\u00E9 DEF");
  EXPECT_EQ(NormalizeWhole("Stra\u00DFe"), "Strasse");
}

TEST(NormalizerTest, CombiningMarkAfterAsciiLetterComposes) {
  EXPECT_EQ(NormalizeWhole("cafe\u0301 au lait"), "caf\u00E9 au lait");
  // The same with the mark in the next chunk.
  EXPECT_EQ(NormalizeInPieces("cafe\u0301", {4}), "caf\u00E9");
  Normalizer normalizer;
  std::string out;
  normalizer.Feed("cafe", &out);
  EXPECT_EQ(out, "caf");  // the 'e' might still take a mark
  normalizer.Feed("\u0301", &out);
  normalizer.Feed(" x", &out);
  normalizer.Finish(&out);
  EXPECT_EQ(out, "caf\u00E9 x");
}

TEST(NormalizerTest, ResetDropsTheHeldBackTail) {
  Normalizer normalizer;
  std::string out;
  normalizer.Feed("abc", &out);
  normalizer.Reset();
  normalizer.Feed("x", &out);
  normalizer.Finish(&out);
  EXPECT_EQ(out, "abx");
}

TEST(NormalizerTest, InvalidUtf8IsCopiedNotDropped) {
  EXPECT_EQ(NormalizeWhole("\xFF\xFE abc"), "\xFF\xFE abc");
  EXPECT_EQ(NormalizeWhole("abc\xE2\x82"), "abc\xE2\x82");
  EXPECT_EQ(NormalizeText("\xC0\xAF"), "\xC0\xAF");
  // Text around it is still normalized.
  EXPECT_EQ(NormalizeText("\xFF  \uFF21"), "\xFF  a");
}

// Fragments that exercise every kind of segment boundary.
const std::vector<std::string>& Fragments() {
  static const std::vector<std::string> fragments = {
      "the ",         "quick ",       "brown ", " ", "  ", "\n", "a", "e", "o", "i", "\u0301", "\u0323", "\u0308",
      "\u0327",  // combining marks
      "\u0316",       "\u05B0",
      "\u0345",  // not composable
      "\u00E9",       "\u00DF",       "\u0130",
      "\u03A3\u038A",  // é ß İ ΣΊ
      "\uFB01",       "\uFF26\uFF29", "\u2460",
      "\u00B2",  // ﬁ ＦＩ ① ²
      "\u4E2D\u6587", "\u3072\u3089",
      "\uD55C\uAD6D",  // CJK, hiragana, Hangul
      "\u1100",       "\u1161",
      "\u11A8",  // conjoining jamo
      "\uFF76",       "\uFF80",       "\uFF9E",
      "\uFF9F",  // halfwidth kana, marks
      "\u0BC6",       "\u0BBE",       "\u0915",
      "\u093C",  // Tamil, Devanagari
      "\U0001F600",   "\U00011099",
      "\U000110BA",  // emoji, Kaithi + nukta
      "\u212B",       "\u2126",
      "\u1E9B\u0323",  // Å Ω ẛ̣
  };
  return fragments;
}

std::string RandomText(std::mt19937* rng, size_t pieces) {
  const auto& fragments = Fragments();
  std::uniform_int_distribution<size_t> pick(0, fragments.size() - 1);
  std::string text;
  for (size_t i = 0; i < pieces; ++i) text += fragments[pick(*rng)];
  return text;
}

TEST(NormalizerTest, SegmentsMatchNormalizingTheWholeText) {
  // No uppercase ASCII in the fragments, so Feed's output must equal utf8proc
  // on the whole text: cutting at our boundaries changes nothing.
  std::mt19937 rng(12345);
  for (int round = 0; round < 300; ++round) {
    const std::string text = RandomText(&rng, 1 + static_cast<size_t>(round % 60));
    ASSERT_EQ(NormalizeWhole(text), Utf8procMap(text)) << "round " << round;
  }
}

TEST(NormalizerTest, EveryBmpCodePointIsSegmentedCorrectly) {
  // Each code point c of the BMP, next to itself, an ASCII base and marks,
  // streamed one code point at a time, gives what utf8proc gives for the
  // whole string. This checks the boundary and "unchanged" tables.
  int checked = 0;
  for (int32_t cp = 0x80; cp < 0x10000; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    utf8proc_uint8_t buf[4];
    const auto len = utf8proc_encode_char(cp, buf);
    const std::string c(reinterpret_cast<const char*>(buf), static_cast<size_t>(len));
    const std::string text = "e" + c + "\u0301" + c + c + "\u0308 " + c + "a";
    const std::string expected = Utf8procMap(text);
    ASSERT_EQ(NormalizeWhole(text), expected) << std::hex << cp;
    ASSERT_EQ(NormalizeInPieces(text, CodePointStarts(text)), expected) << std::hex << cp;
    ++checked;
  }
  EXPECT_EQ(checked, 0x10000 - 0x80 - 0x800);
}

TEST(NormalizerTest, ChunkBoundariesNeverChangeTheOutput) {
  std::mt19937 rng(4242);
  for (int round = 0; round < 200; ++round) {
    const std::string text = RandomText(&rng, 200);
    const std::string whole = NormalizeWhole(text);
    const std::vector<size_t> starts = CodePointStarts(text);
    for (size_t count : {size_t{1}, size_t{5}, size_t{40}}) {
      ASSERT_EQ(NormalizeInPieces(text, RandomCuts(starts, count, &rng)), whole)
          << "round " << round << " cuts " << count;
    }
    if (round % 20 == 0) {  // one code point at a time
      ASSERT_EQ(NormalizeInPieces(text, starts), whole) << "round " << round;
    }
  }
}

TEST(NormalizerTest, LongCjkTextIsStreamedWithASmallTail) {
  // 1 MiB of ideographs, kana and Hangul syllables (all unchanged by NFKC
  // case folding), no ASCII, fed in chunks of about 1 KiB.
  const std::string block =
      "\u4E2D\u6587\u6587\u672C\u3072\u3089\u304C\u306A\u30AB\u30BF\uD55C"
      "\uAD6D";
  std::string text;
  while (text.size() < (1u << 20)) text += block;
  Normalizer normalizer;
  std::string out;
  size_t fed = 0;
  size_t max_held = 0;
  while (fed < text.size()) {
    size_t end = std::min(text.size(), fed + 1024);
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
      --end;  // back to a code point boundary
    }
    normalizer.Feed(std::string_view(text).substr(fed, end - fed), &out);
    fed = end;
    ASSERT_LE(out.size(), fed);
    max_held = std::max(max_held, fed - out.size());
  }
  normalizer.Finish(&out);
  EXPECT_TRUE(out == text);  // (EXPECT_EQ would print 1 MiB on failure)
  EXPECT_LE(max_held, 3u);   // just the last character, which could take a mark
}

TEST(NormalizerTest, LongRunWithoutBoundaryIsCutAtFixedPlaces) {
  // "a" and then 5000 combining acute accents: no boundary anywhere, so the
  // held-back tail would grow without bound; it is cut instead, every few
  // hundred bytes, at places that depend only on the text.
  std::string text = "a";
  for (int i = 0; i < 5000; ++i) text += "\u0301";
  text += " end";
  Normalizer normalizer;
  std::string out;
  size_t fed = 0;
  size_t max_held = 0;
  for (size_t cut : CodePointStarts(text)) {
    if (cut % 7 != 0) continue;  // uneven chunks of ~7 bytes
    normalizer.Feed(std::string_view(text).substr(fed, cut - fed), &out);
    fed = cut;
    ASSERT_LE(out.size(), fed + 2);  // "a\u0301" -> "\u00E1" shrinks by 1
    max_held = std::max(max_held, fed + 1 - out.size());
  }
  normalizer.Feed(std::string_view(text).substr(fed), &out);
  normalizer.Finish(&out);
  EXPECT_LE(max_held, 300u);
  // The first mark composes with the 'a'; the rest stay marks.
  std::string expected = "\u00E1";
  for (int i = 1; i < 5000; ++i) expected += "\u0301";
  expected += " end";
  // (EXPECT_TRUE: a failing EXPECT_EQ would print 10 KB of accents.)
  EXPECT_TRUE(out == expected);
  EXPECT_TRUE(NormalizeWhole(text) == expected);
  std::mt19937 rng(99);
  EXPECT_TRUE(NormalizeInPieces(text, RandomCuts(CodePointStarts(text), 30, &rng)) == expected);
}

TEST(NormalizerTest, ForcedCutsDoNotDependOnChunking) {
  // Marks of classes 230 and 220 alternating: normalizing the whole run at
  // once would sort all the 220s first. The forced cuts limit reordering to
  // pieces of the run, so the result differs from utf8proc on the whole text,
  // but it must be the same however the text is fed.
  std::string text = "x a";
  for (int i = 0; i < 2000; ++i) text += "\u0301\u0323";
  text += " y";
  const std::string whole = NormalizeWhole(text);
  EXPECT_TRUE(whole != Utf8procMap(text));    // (EXPECT_NE would print 8 KB)
  EXPECT_EQ(whole.substr(0, 5), "x \u1EA1");  // a + dot below composed
  EXPECT_EQ(whole.size(), text.size());       // a+U+0323 -> U+1EA1: 3 bytes each
  const std::vector<size_t> starts = CodePointStarts(text);
  EXPECT_TRUE(NormalizeInPieces(text, starts) == whole);
  std::mt19937 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<size_t> cuts = RandomCuts(starts, 1 + static_cast<size_t>(trial) * 3, &rng);
    ASSERT_TRUE(NormalizeInPieces(text, cuts) == whole) << "trial " << trial;
  }
}

// The clean-prefix fast path (src/text/tokenize_kernel.h) copies already
// normalized text in bulk; with TokenizerKernel::kBaseline the Normalizer
// decides every character (the reference). Every kernel must give the
// reference's bytes exactly, uppercase ASCII included.

using internal::TokenizerKernel;

std::vector<TokenizerKernel> FastKernels() {
  std::vector<TokenizerKernel> kernels;
  for (TokenizerKernel k : {TokenizerKernel::kPortable, TokenizerKernel::kAvx2, TokenizerKernel::kAvx512}) {
    if (internal::TokenizerKernelSupported(k)) kernels.push_back(k);
  }
  return kernels;
}

std::string NormalizeOn(TokenizerKernel kernel, std::string_view text, const std::vector<size_t>& cuts) {
  internal::SetTokenizerKernelOverride(kernel);
  std::string out = NormalizeInPieces(text, cuts);
  internal::ClearTokenizerKernelOverride();
  return out;
}

// Pieces of French-like (and some other) text: inert accented letters and
// punctuation the fast path copies, and around them what it must leave to
// the reference path (capitals, NBSP, ß, combining marks, ligatures,
// fullwidth forms, invalid bytes).
const std::vector<std::string>& MixedFragments() {
  static const std::vector<std::string> fragments = {
      "le ",
      "de ",
      "la ",
      "Le ",
      "De ",
      "A",
      "E",
      "e",
      "a",
      "x",
      " ",
      ", ",
      ". ",
      "\n",
      "\u00E9t\u00E9 ",
      "tr\u00E8s ",
      "\u00E0 ",
      "o\u00F9 ",
      "c\u0153ur ",
      "fa\u00E7on ",
      "\u00C9l\u00E8ve ",
      "\u00C0 ",
      "E\u00E9",
      "A\u0153",
      "l\u2019",
      "d\u2019",
      "\u2014",
      "\u201C",
      "\u201D",
      "\u2026",
      "\u00AB\u00A0",
      "\u00A0\u00BB",
      "\u00A0?",
      "\u00DF",
      "stra\u00DFe ",
      "\u00FC\u00F6\u00E4 ",
      "\u00DC",
      "\u0301",
      "\u0327",
      "\u0308",
      "e\u0301",
      "\uFB01",
      "\uFF21",
      "\u00B2",
      "\u0441\u043B\u043E\u0432\u043E ",
      "\u0421\u043B\u043E\u0432\u043E ",
      "\u0451",
      "\u0401",
      "\u03C3\u03AF ",
      "\u03A3",
      "\u0131",
      "\u0130",
      "\u017F",
      "\u0149",
      "\u4E2D\u6587",
      "\xFF",
      "\xC3",
      "\x80",
      "\xE2\x80",
      "\xE2\x80\x99",
      "\xC3\xA9",
      "\xCC\x81",
  };
  return fragments;
}

std::string RandomMixedText(std::mt19937* rng, size_t pieces, size_t common) {
  const auto& fragments = MixedFragments();
  // The first `common` fragments (plain words) are drawn most of the time.
  std::uniform_int_distribution<size_t> any(0, fragments.size() - 1);
  std::uniform_int_distribution<size_t> plain(0, common - 1);
  std::uniform_int_distribution<int> coin(0, 3);
  std::string text;
  for (size_t i = 0; i < pieces; ++i) {
    text += fragments[coin(*rng) == 0 ? any(*rng) : plain(*rng)];
  }
  return text;
}

TEST(NormalizerFastPathTest, CleanPrefixKernelsAgreeOnRandomTablesAndBytes) {
  // The contract is the same for any tables: the AVX2 and AVX-512 scans
  // against the portable one, on byte windows built from the pieces that
  // matter (every offset, so that characters straddle the 32-byte halves).
  // The first ten are clean under dense tables; the rest are drawn rarely,
  // so that runs often reach past 32 and 64 bytes.
  const char* const pieces[] = {"a",
                                "z",
                                " ",
                                "\xC3\xA9",
                                "\xC5\x93",
                                "\xD0\xB0",
                                "\xD1\x8F",
                                "\xCE\xB1",
                                "\xE2\x80\x99",
                                "\xE2\x80\xA6",
                                "A",
                                "Z",
                                "\xC3\x89",
                                "\xC2\xA0",
                                "\xE2\x81\x80",
                                "\xE4\xB8\xAD",
                                "\xCC\x81",
                                "\x80",
                                "\xBF",
                                "\xC3",
                                "\xE2",
                                "\xE2\x80",
                                "\xDF\xBF",
                                "\xC0\x80",
                                "\xF0\x9F\x98\x80"};
  std::mt19937 rng(2024);
  std::uniform_int_distribution<size_t> any(0, std::size(pieces) - 1);
  std::uniform_int_distribution<size_t> common(0, 9);
  std::uniform_int_distribution<int> coin(0, 15);
  std::uniform_int_distribution<int> byte(0, 255);
  int checked = 0;
  for (int round = 0; round < 2000; ++round) {
    internal::CleanTables tables{};
    const int density = round % 4;  // from few to all characters accepted
    for (size_t i = 0; i < 64; ++i) {
      if (i < 32 && byte(rng) % 4 < density + 1) {
        tables.lead[i] = static_cast<uint8_t>(1u << (byte(rng) % 8));
      }
      tables.cont[i] = static_cast<uint8_t>(density == 3 ? 0xFF : byte(rng) & byte(rng));
      tables.e280[i] = byte(rng) % 4 < density + 1 ? 0xFF : 0;
    }
    std::string text;
    while (text.size() < 160) text += pieces[coin(rng) == 0 ? any(rng) : common(rng)];
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    for (size_t at = 0; at + internal::kCleanPrefixReads <= text.size(); ++at) {
      const size_t want = internal::CleanPrefixPortable(p + at, tables);
      ASSERT_LT(want, 64u);
      // The result is the start of a character (not a continuation byte).
      if (want > 0) {
        ASSERT_NE(p[at + want] & 0xC0, 0x80) << round;
      }
#if defined(__x86_64__) && defined(__GNUC__)
      if (internal::TokenizerKernelSupported(TokenizerKernel::kAvx2)) {
        ASSERT_EQ(internal::CleanPrefixAvx2(p + at, tables), want) << "avx2, round " << round << " at " << at;
        ++checked;
      }
      if (internal::TokenizerKernelSupported(TokenizerKernel::kAvx512) &&
          internal::CleanPrefixFor(TokenizerKernel::kAvx512) == &internal::CleanPrefixAvx512) {
        ASSERT_EQ(internal::CleanPrefixAvx512(p + at, tables), want) << "avx512, round " << round << " at " << at;
        ++checked;
      }
#endif
    }
  }
  if (checked == 0) GTEST_SKIP() << "no AVX2: only the portable scan ran";
}

TEST(NormalizerFastPathTest, EveryTwoByteAndGeneralPunctuationCodePointMatchesTheReference) {
  // Each code point c of U+0080..U+07FF and U+2000..U+206F in contexts that
  // put it inside, at the edge of and just past a clean run, after an
  // uppercase ASCII letter and before a combining mark, fed whole and in
  // pieces: the bytes of the reference path.
  const std::string run = "une phrase d\u00E9j\u00E0 normalis\u00E9e, tr\u00E8s longue ";
  for (int32_t cp = 0x80; cp < 0x2070; ++cp) {
    if (cp == 0x800) cp = 0x2000;
    utf8proc_uint8_t buf[4];
    const auto len = utf8proc_encode_char(cp, buf);
    const std::string c(reinterpret_cast<const char*>(buf), static_cast<size_t>(len));
    const std::string text =
        run + c + run + "A" + c + "e" + c + "\u0301" + run + run.substr(3) + c + "Z" + c + c + run + "x" + c;
    const std::string want = NormalizeOn(TokenizerKernel::kBaseline, text, {});
    for (TokenizerKernel kernel : FastKernels()) {
      ASSERT_EQ(NormalizeOn(kernel, text, {}), want) << std::hex << cp;
    }
    // Every offset of the character relative to the 64-byte scan.
    for (size_t shift = 1; shift < 66; shift += 13) {
      const std::string shifted = std::string(shift, 'q') + text;
      const std::string want_shifted = NormalizeOn(TokenizerKernel::kBaseline, shifted, {});
      for (TokenizerKernel kernel : FastKernels()) {
        ASSERT_EQ(NormalizeOn(kernel, shifted, {}), want_shifted) << std::hex << cp << " " << shift;
      }
    }
  }
}

TEST(NormalizerFastPathTest, RandomMixedTextMatchesTheReferenceInAnyChunking) {
  std::mt19937 rng(777);
  for (int round = 0; round < 400; ++round) {
    const std::string text = RandomMixedText(&rng, 1 + static_cast<size_t>(round) * 2, round % 2 == 0 ? 20 : 60);
    const std::vector<size_t> starts = CodePointStarts(text);
    const std::vector<size_t> cuts = RandomCuts(starts, 1 + static_cast<size_t>(round % 30), &rng);
    // (The reference itself may fold an uppercase ASCII letter next to a
    // cut differently, see normalize.h: compare like with like.)
    const std::string want = NormalizeOn(TokenizerKernel::kBaseline, text, {});
    const std::string want_cut = NormalizeOn(TokenizerKernel::kBaseline, text, cuts);
    for (TokenizerKernel kernel : FastKernels()) {
      ASSERT_EQ(NormalizeOn(kernel, text, {}), want) << "round " << round;
      ASSERT_EQ(NormalizeOn(kernel, text, cuts), want_cut) << "round " << round;
    }
  }
}

TEST(NormalizerFastPathTest, LongFrenchTextMatchesTheReference) {
  // A long text in the 1 KiB-ish chunks of the reader.
  std::mt19937 rng(31337);
  const std::string text = RandomMixedText(&rng, 40000, 20);
  std::vector<size_t> cuts;
  for (size_t s : CodePointStarts(text)) {
    if (cuts.empty() ? s >= 1000 : s >= cuts.back() + 1000) cuts.push_back(s);
  }
  const std::string want = NormalizeOn(TokenizerKernel::kBaseline, text, {});
  const std::string want_cut = NormalizeOn(TokenizerKernel::kBaseline, text, cuts);
  for (TokenizerKernel kernel : FastKernels()) {
    EXPECT_TRUE(NormalizeOn(kernel, text, {}) == want);  // (EXPECT_EQ would print it)
    EXPECT_TRUE(NormalizeOn(kernel, text, cuts) == want_cut);
  }
}

}  // namespace
}  // namespace neardup
