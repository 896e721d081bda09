#include "text/decode.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "base/utf8.h"

namespace neardup {
namespace {

using namespace std::string_literals;

constexpr std::string_view kFffd = "\xEF\xBF\xBD";

struct Decoded {
  std::string text;
  DecodeStats stats;
};

Decoded DecodeAll(std::string_view bytes, Encoding encoding = Encoding::kUtf8) {
  TextDecoder decoder(encoding);
  Decoded result;
  decoder.Feed(bytes, &result.text);
  decoder.Finish(&result.text);
  result.stats = decoder.stats();
  return result;
}

// Feeds `bytes` in pieces cut at `cuts` (sorted offsets).
Decoded DecodeInPieces(std::string_view bytes, const std::vector<size_t>& cuts, Encoding encoding = Encoding::kUtf8) {
  TextDecoder decoder(encoding);
  Decoded result;
  size_t from = 0;
  for (size_t cut : cuts) {
    decoder.Feed(bytes.substr(from, cut - from), &result.text);
    from = cut;
  }
  decoder.Feed(bytes.substr(from), &result.text);
  decoder.Finish(&result.text);
  result.stats = decoder.stats();
  return result;
}

std::string Repeat(std::string_view s, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out.append(s);
  return out;
}

// A deliberately simple, byte-at-a-time UTF-8 decoder written from Unicode
// Table 3-7, replacing each maximal subpart of an ill-formed sequence with
// U+FFFD. The decoder under test must agree with it on any input.
Decoded ReferenceDecode(std::string_view s) {
  Decoded result;
  size_t i = 0;
  while (i < s.size()) {
    const auto lead = static_cast<unsigned char>(s[i]);
    int need = 0;
    unsigned lo = 0x80;
    unsigned hi = 0xBF;
    if (lead <= 0x7F) {
      result.text.push_back(s[i]);
      ++i;
      continue;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      need = 1;
    } else if (lead == 0xE0) {
      need = 2;
      lo = 0xA0;
    } else if (lead >= 0xE1 && lead <= 0xEC) {
      need = 2;
    } else if (lead == 0xED) {
      need = 2;
      hi = 0x9F;
    } else if (lead >= 0xEE && lead <= 0xEF) {
      need = 2;
    } else if (lead == 0xF0) {
      need = 3;
      lo = 0x90;
    } else if (lead >= 0xF1 && lead <= 0xF3) {
      need = 3;
    } else if (lead == 0xF4) {
      need = 3;
      hi = 0x8F;
    } else {
      result.text.append(kFffd);
      ++result.stats.replaced;
      ++i;
      continue;
    }
    size_t len = 1;
    bool ok = true;
    for (int k = 1; k <= need; ++k) {
      if (i + len >= s.size()) {
        ok = false;
        break;
      }
      const auto b = static_cast<unsigned char>(s[i + len]);
      if (b < (k == 1 ? lo : 0x80u) || b > (k == 1 ? hi : 0xBFu)) {
        ok = false;
        break;
      }
      ++len;
    }
    if (ok) {
      result.text.append(s.substr(i, len));
    } else {
      result.text.append(kFffd);
      ++result.stats.replaced;
    }
    i += len;
  }
  return result;
}

TEST(TextDecoderTest, ValidUtf8PassesThroughUnchanged) {
  const std::string text =
      "plain ASCII, caf\xC3\xA9, \xE4\xB8\xAD\xE6\x96\x87, \xF0\x9F\x98\x80, "
      "\xF4\x8F\xBF\xBF end";
  const Decoded d = DecodeAll(text);
  EXPECT_EQ(d.text, text);
  EXPECT_EQ(d.stats.replaced, 0u);
  EXPECT_FALSE(d.stats.transcoded);
}

TEST(TextDecoderTest, NulAndControlCharactersPassThrough) {
  const std::string text = "a\0b\x01\x1F\x7F\t\r\nc"s;
  EXPECT_EQ(text.size(), 10u);
  const Decoded d = DecodeAll(text);
  EXPECT_EQ(d.text, text);
  EXPECT_EQ(d.stats.replaced, 0u);
}

TEST(TextDecoderTest, EmptyInputGivesEmptyOutput) {
  const Decoded d = DecodeAll("");
  EXPECT_EQ(d.text, "");
  EXPECT_EQ(d.stats.replaced, 0u);
}

TEST(TextDecoderTest, Utf8BomAtStartIsDropped) {
  EXPECT_EQ(DecodeAll("\xEF\xBB\xBFhello").text, "hello");
  EXPECT_EQ(DecodeAll("\xEF\xBB\xBF").text, "");
  // Only at the start: later it is U+FEFF, valid text.
  EXPECT_EQ(DecodeAll("a\xEF\xBB\xBF").text, "a\xEF\xBB\xBF");
  // Two BOMs: the second one is text.
  EXPECT_EQ(DecodeAll("\xEF\xBB\xBF\xEF\xBB\xBFx").text, "\xEF\xBB\xBFx");
}

TEST(TextDecoderTest, PartialBomIsInvalidUtf8) {
  const Decoded d = DecodeAll("\xEF\xBBx");
  EXPECT_EQ(d.text, std::string(kFffd) + "x");
  EXPECT_EQ(d.stats.replaced, 1u);
  EXPECT_EQ(DecodeAll("\xEF").text, kFffd);
  EXPECT_EQ(DecodeAll("\xFF").text, kFffd);
  EXPECT_EQ(DecodeAll("\xFE").stats.replaced, 1u);
}

TEST(TextDecoderTest, BomSplitOverCallsIsStillDetected) {
  TextDecoder decoder(Encoding::kUtf8);
  std::string out;
  decoder.Feed("\xEF", &out);
  decoder.Feed("", &out);
  decoder.Feed("\xBB", &out);
  decoder.Feed(
      "\xBF"
      "abc",
      &out);
  decoder.Finish(&out);
  EXPECT_EQ(out, "abc");
  EXPECT_EQ(decoder.stats().replaced, 0u);

  decoder.Reset();
  out.clear();
  decoder.Feed("\xFF", &out);
  decoder.Feed("\xFE", &out);
  decoder.Feed("h", &out);
  decoder.Feed(std::string_view("\0i\0", 3), &out);
  decoder.Finish(&out);
  EXPECT_EQ(out, "hi");
  EXPECT_TRUE(decoder.stats().transcoded);
}

TEST(TextDecoderTest, Utf16LeWithBomIsTranscoded) {
  // "hé中😀" : h, U+00E9, U+4E2D, U+1F600 = D83D DE00.
  const std::string bytes = "\xFF\xFEh\0\xE9\0\x2D\x4E\x3D\xD8\x00\xDE"s;
  const Decoded d = DecodeAll(bytes);
  EXPECT_EQ(d.text, "h\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80");
  EXPECT_TRUE(d.stats.transcoded);
  EXPECT_EQ(d.stats.replaced, 0u);
}

TEST(TextDecoderTest, Utf16BeWithBomIsTranscoded) {
  const std::string bytes = "\xFE\xFF\0h\0\xE9\x4E\x2D\xD8\x3D\xDE\x00"s;
  const Decoded d = DecodeAll(bytes);
  EXPECT_EQ(d.text, "h\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80");
  EXPECT_TRUE(d.stats.transcoded);
  EXPECT_EQ(d.stats.replaced, 0u);
}

TEST(TextDecoderTest, Utf16NulCharactersAreKept) {
  const Decoded d = DecodeAll("\xFF\xFE\0\0a\0"s);
  EXPECT_EQ(d.text, "\0a"s);
}

TEST(TextDecoderTest, UnpairedUtf16SurrogatesBecomeReplacementCharacters) {
  // LE: high surrogate then 'A'; lone low surrogate; 'B'; high at the end.
  const std::string bytes =
      "\xFF\xFE\x3D\xD8"
      "A\0\x00\xDE"
      "B\0\x3D\xD8"s;
  const Decoded d = DecodeAll(bytes);
  EXPECT_EQ(d.text, std::string(kFffd) + "A" + std::string(kFffd) + "B" + std::string(kFffd));
  EXPECT_EQ(d.stats.replaced, 3u);
  // Two high surrogates then a low one: the second pair is valid.
  const Decoded pair = DecodeAll("\xFE\xFF\xD8\x3D\xD8\x3D\xDE\x00"s);
  EXPECT_EQ(pair.text, std::string(kFffd) + "\xF0\x9F\x98\x80");
  EXPECT_EQ(pair.stats.replaced, 1u);
}

TEST(TextDecoderTest, OddTrailingUtf16ByteBecomesReplacementCharacter) {
  const Decoded d = DecodeAll("\xFF\xFEh\0i"s);
  EXPECT_EQ(d.text, "h" + std::string(kFffd));
  EXPECT_EQ(d.stats.replaced, 1u);
}

TEST(TextDecoderTest, MaximalSubpartsFollowUnicodeExample) {
  // Unicode 15, section 3.9, Table 3-8: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64
  // gives a FFFD FFFD FFFD b FFFD c FFFD FFFD d.
  const Decoded d = DecodeAll("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64");
  const std::string r(kFffd);
  EXPECT_EQ(d.text, "a" + r + r + r + "b" + r + "c" + r + r + "d");
  EXPECT_EQ(d.stats.replaced, 6u);
}

TEST(TextDecoderTest, OverlongsSurrogatesAndOutOfRangeAreReplacedPerByte) {
  // None of these has a valid two-byte prefix, so each byte is its own
  // maximal subpart.
  EXPECT_EQ(DecodeAll("\xC0\xAF").stats.replaced, 2u);          // overlong '/'
  EXPECT_EQ(DecodeAll("\xC1\xBF").stats.replaced, 2u);          // overlong
  EXPECT_EQ(DecodeAll("\xE0\x80\xAF").stats.replaced, 3u);      // overlong
  EXPECT_EQ(DecodeAll("\xF0\x80\x80\xAF").stats.replaced, 4u);  // overlong
  EXPECT_EQ(DecodeAll("\xED\xA0\x80").stats.replaced, 3u);      // U+D800
  EXPECT_EQ(DecodeAll("\xED\xBF\xBF").stats.replaced, 3u);      // U+DFFF
  EXPECT_EQ(DecodeAll("\xF4\x90\x80\x80").stats.replaced, 4u);  // U+110000
  EXPECT_EQ(DecodeAll("\xF5\x80\x80\x80").stats.replaced, 4u);
  EXPECT_EQ(DecodeAll("\xFF").stats.replaced, 1u);
  EXPECT_EQ(DecodeAll("\xED\xA0\x80").text, Repeat(kFffd, 3));
  // The largest valid values on either side are kept.
  EXPECT_EQ(DecodeAll("\xED\x9F\xBF\xEE\x80\x80\xF4\x8F\xBF\xBF").stats.replaced, 0u);
}

TEST(TextDecoderTest, TruncatedSequencesBecomeOneReplacementCharacter) {
  Decoded d = DecodeAll("a\xE2\x82");  // U+20AC cut short at the end
  EXPECT_EQ(d.text, "a" + std::string(kFffd));
  EXPECT_EQ(d.stats.replaced, 1u);
  d = DecodeAll("\xF0\x9F\x98 x");  // cut short by a space
  EXPECT_EQ(d.text, std::string(kFffd) + " x");
  EXPECT_EQ(d.stats.replaced, 1u);
  d = DecodeAll("\xE2\x82\xE2\x82\xAC");  // cut short by a new lead
  EXPECT_EQ(d.text, std::string(kFffd) + "\xE2\x82\xAC");
  EXPECT_EQ(d.stats.replaced, 1u);
}

TEST(TextDecoderTest, NonAsciiAtEveryOffsetOfTheFastPath) {
  // The ASCII scan reads 16 bytes at a time: put a multibyte character and an
  // invalid byte at each offset around those blocks.
  for (size_t at = 0; at < 40; ++at) {
    std::string text(48, 'x');
    text.insert(at, "\xC3\xA9");
    EXPECT_EQ(DecodeAll(text).text, text) << at;
    std::string bad(48, 'y');
    bad[at] = '\x80';
    std::string expected = bad;
    expected.replace(at, 1, kFffd);
    const Decoded d = DecodeAll(bad);
    EXPECT_EQ(d.text, expected) << at;
    EXPECT_EQ(d.stats.replaced, 1u) << at;
  }
}

TEST(TextDecoderTest, Latin1MapsEveryByteToTheSameCodePoint) {
  const Decoded d = DecodeAll("A\xE9\xFF\x80\x00z"s, Encoding::kLatin1);
  EXPECT_EQ(d.text, "A\xC3\xA9\xC3\xBF\xC2\x80\0z"s);
  EXPECT_EQ(d.stats.replaced, 0u);
  // No BOM detection in Latin-1: EF BB BF are three characters.
  EXPECT_EQ(DecodeAll("\xEF\xBB\xBF", Encoding::kLatin1).text, "\xC3\xAF\xC2\xBB\xC2\xBF");
  EXPECT_FALSE(DecodeAll("\xFF\xFEh\0"s, Encoding::kLatin1).stats.transcoded);
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  const Decoded every = DecodeAll(all, Encoding::kLatin1);
  EXPECT_EQ(every.text.size(), 128u + 2u * 128u);
  EXPECT_EQ(every.text.substr(128, 4), "\xC2\x80\xC2\x81");
}

TEST(TextDecoderTest, ResetStartsANewDocument) {
  TextDecoder decoder(Encoding::kUtf8);
  std::string out;
  decoder.Feed("\xFF\xFEh\0\x3D"s, &out);  // UTF-16, odd byte carried
  decoder.Reset();
  EXPECT_EQ(decoder.stats().replaced, 0u);
  EXPECT_FALSE(decoder.stats().transcoded);
  out.clear();
  decoder.Feed("\xEF\xBB\xBFok", &out);
  decoder.Finish(&out);
  EXPECT_EQ(out, "ok");
  EXPECT_FALSE(decoder.stats().transcoded);
}

TEST(TextDecoderTest, AgreesWithReferenceDecoderOnRandomBytes) {
  std::mt19937 rng(20240601);
  // Bytes biased towards the interesting ones.
  const std::vector<unsigned char> pool = {'a',  ' ',  0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF,
                                           0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF,
                                           0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF, 0xBB, 0xBE};
  std::uniform_int_distribution<size_t> pick(0, pool.size() - 1);
  std::uniform_int_distribution<size_t> length(0, 64);
  for (int round = 0; round < 3000; ++round) {
    std::string bytes = "x";  // never a BOM: the reference knows none
    const size_t n = length(rng);
    for (size_t i = 0; i < n; ++i) bytes.push_back(static_cast<char>(pool[pick(rng)]));
    const Decoded expected = ReferenceDecode(bytes);
    const Decoded actual = DecodeAll(bytes);
    ASSERT_EQ(actual.text, expected.text) << round;
    ASSERT_EQ(actual.stats.replaced, expected.stats.replaced) << round;
    // Output is valid UTF-8: decoding it again changes nothing.
    const Decoded again = DecodeAll(actual.text);
    ASSERT_EQ(again.text, actual.text) << round;
    ASSERT_EQ(again.stats.replaced, 0u) << round;
  }
}

// --- DecodeUtf8Char and AppendUtf8Repaired (src/utf8.h), the decoder that
// the text decoder, normalizer, shingler, glob matcher, JSON writer and
// JSONL reader share.

TEST(Utf8Test, EveryScalarValueRoundTrips) {
  for (uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    std::string bytes;
    AppendUtf8(cp, &bytes);
    const Utf8Char c = DecodeUtf8Char(bytes, 0);
    ASSERT_EQ(c.status, Utf8Status::kValid) << cp;
    ASSERT_EQ(c.code_point, cp);
    ASSERT_EQ(c.length, bytes.size());
    // Cut short, it is truncated, with all its bytes.
    for (size_t n = 1; n < bytes.size(); ++n) {
      const Utf8Char cut = DecodeUtf8Char(reinterpret_cast<const unsigned char*>(bytes.data()), n);
      ASSERT_EQ(cut.status, Utf8Status::kTruncated) << cp;
      ASSERT_EQ(cut.length, n);
    }
  }
}

TEST(Utf8Test, AgreesWithReferenceOnEveryTwoByteStart) {
  // Every lead byte and second byte, followed by continuation bytes: the
  // status and length agree with the reference decoder's replacement.
  for (unsigned lead = 0x80; lead <= 0xFF; ++lead) {
    for (unsigned second = 0; second <= 0xFF; ++second) {
      for (const std::string& tail : {""s, "\x80"s, "\x80\xBF"s, "\x80z"s}) {
        std::string bytes = {static_cast<char>(lead), static_cast<char>(second)};
        bytes += tail;
        const Utf8Char c = DecodeUtf8Char(bytes, 0);
        const Decoded reference = ReferenceDecode(bytes);
        const bool reference_valid = reference.text.substr(0, kFffd.size()) != kFffd;
        ASSERT_EQ(c.status == Utf8Status::kValid, reference_valid) << lead << " " << second;
        if (c.status == Utf8Status::kValid) {
          ASSERT_EQ(reference.text.substr(0, c.length), bytes.substr(0, c.length));
        } else {
          // The maximal subpart: what follows it decodes on its own.
          ASSERT_EQ(std::string(kFffd) + ReferenceDecode(bytes.substr(c.length)).text, reference.text)
              << lead << " " << second;
        }
      }
    }
  }
}

TEST(Utf8Test, RepairedEqualsTheTextDecoderOnRandomBytes) {
  std::mt19937 rng(77);
  const std::vector<unsigned char> pool = {'a',  ' ',  0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1,
                                           0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFF};
  for (int round = 0; round < 3000; ++round) {
    std::string bytes = "x";  // never a BOM
    const size_t n = rng() % 48;
    for (size_t i = 0; i < n; ++i) bytes.push_back(static_cast<char>(pool[rng() % pool.size()]));
    const Decoded expected = ReferenceDecode(bytes);
    std::string repaired = "kept:";
    const uint64_t replaced = AppendUtf8Repaired(bytes, &repaired);
    ASSERT_EQ(repaired, std::string("kept:").append(expected.text)) << round;
    ASSERT_EQ(replaced, expected.stats.replaced) << round;
  }
}

TEST(TextDecoderTest, ChunkBoundariesNeverChangeTheOutput) {
  const std::vector<std::pair<std::string, Encoding>> inputs = {
      {"\xEF\xBB\xBF" + Repeat("caf\xC3\xA9 \xE4\xB8\xAD\xF0\x9F\x98\x80 abc ", 20), Encoding::kUtf8},
      {Repeat("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64\xED\xA0\x80"
              "\xF4\x90\xE2\x82",
              15),
       Encoding::kUtf8},
      {"\xFF\xFE" + Repeat("h\0\xE9\0\x3D\xD8\x00\xDE\x00\xDE\x3D\xD8"s, 20) + "x", Encoding::kUtf8},
      {"\xFE\xFF" + Repeat("\0h\0\xE9\xD8\x3D\xDE\x00\xDE\x00"s, 20) + "\xD8\x3D", Encoding::kUtf8},
      {"\xEF\xBB", Encoding::kUtf8},
      {"\xFF", Encoding::kUtf8},
      {Repeat("\xEF\xBB\xBF\xFF\xFE\x80 Latin-1 \xE9", 20), Encoding::kLatin1},
  };
  std::mt19937 rng(7);
  for (size_t which = 0; which < inputs.size(); ++which) {
    const auto& [bytes, encoding] = inputs[which];
    const Decoded whole = DecodeAll(bytes, encoding);
    EXPECT_GT(whole.text.size(), 0u);
    // One byte at a time.
    std::vector<size_t> every;
    for (size_t i = 1; i < bytes.size(); ++i) every.push_back(i);
    const Decoded bytewise = DecodeInPieces(bytes, every, encoding);
    EXPECT_EQ(bytewise.text, whole.text) << which;
    EXPECT_EQ(bytewise.stats.replaced, whole.stats.replaced) << which;
    EXPECT_EQ(bytewise.stats.transcoded, whole.stats.transcoded) << which;
    // Random splits.
    for (int trial = 0; trial < 200; ++trial) {
      std::uniform_int_distribution<size_t> at(0, bytes.size());
      std::vector<size_t> cuts(static_cast<size_t>(trial % 12));
      for (size_t& cut : cuts) cut = at(rng);
      std::sort(cuts.begin(), cuts.end());
      const Decoded split = DecodeInPieces(bytes, cuts, encoding);
      ASSERT_EQ(split.text, whole.text) << which << " trial " << trial;
      ASSERT_EQ(split.stats.replaced, whole.stats.replaced) << which;
      ASSERT_EQ(split.stats.transcoded, whole.stats.transcoded) << which;
    }
  }
}

TEST(TextDecoderTest, KnownCountsForChunkedInputs) {
  // Pin the one-shot results the chunking test compares against.
  EXPECT_EQ(DecodeAll("\xEF\xBB").stats.replaced, 1u);
  const Decoded utf16 = DecodeAll("\xFF\xFE" + Repeat("h\0\xE9\0\x3D\xD8\x00\xDE\x00\xDE\x3D\xD8"s, 2) + "x");
  // Per repetition: h, é, U+1F600, lone low, then the final high surrogate
  // pairs with nothing ('h' of the next repetition, or the odd byte 'x').
  EXPECT_EQ(utf16.text,
            Repeat("h\xC3\xA9\xF0\x9F\x98\x80" + std::string(kFffd) + std::string(kFffd), 2) + std::string(kFffd));
  EXPECT_EQ(utf16.stats.replaced, 5u);
}

TEST(LooksBinaryTest, NulByteMeansBinary) {
  EXPECT_TRUE(LooksBinary("ELF\0\x01\x02"s));
  EXPECT_TRUE(LooksBinary("\0"s));
  EXPECT_TRUE(LooksBinary("\xEF\xBB\xBFtext\0"s));  // UTF-8 BOM does not excuse
  EXPECT_FALSE(LooksBinary("plain text\n"));
  EXPECT_FALSE(LooksBinary("caf\xC3\xA9 \xFF\xFE"));
  EXPECT_FALSE(LooksBinary(""));
}

TEST(LooksBinaryTest, Utf16BomExcusesNulBytes) {
  EXPECT_FALSE(LooksBinary("\xFF\xFEh\0i\0"s));
  EXPECT_FALSE(LooksBinary("\xFE\xFF\0h\0i"s));
  EXPECT_TRUE(LooksBinary("\xFEh\0i"s));  // half a BOM
  EXPECT_TRUE(LooksBinary("h\0\xFF\xFE"s));
}

}  // namespace
}  // namespace neardup
