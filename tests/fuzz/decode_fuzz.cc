// Fuzz harness: bytes -> TextDecoder -> Normalizer -> Shingler.
//
// The first byte of the input steers (shingle sizes, chunking seed); the rest
// is the document. For both encodings it checks that:
//   - the decoder's output is valid UTF-8, and so is each piece one Feed()
//     appends (pieces end on code point boundaries, as the Normalizer needs);
//   - feeding the bytes in random chunks gives the output and stats of one
//     Feed(); Latin-1 output is the plain Latin-1 -> UTF-8 mapping; valid
//     UTF-8 without a BOM comes out unchanged;
//   - the Normalizer's output is valid UTF-8 and the same in chunks as at once
//     (but for ASCII case, see normalize.h);
//   - the Shingler (word and char) gives the same shingles, counts and
//     content hash in chunks as at once, and one shingle per window of k
//     tokens (or one for a short document);
//   - the whole chain, streamed in random chunks as DocumentReader streams a
//     file, gives the shingles and content hash of one-shot processing.
#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "harnesses.h"
#include "text/decode.h"
#include "text/normalize.h"
#include "text/shingle.h"

namespace neardup::fuzz {
namespace {

constexpr std::string_view kBomUtf8 = "\xEF\xBB\xBF";

// Cuts `s` into pieces of random sizes, some empty. With `code_points`, no
// piece ends inside a UTF-8 sequence (s must be valid UTF-8).
std::vector<std::string_view> Split(std::string_view s, uint64_t seed, bool code_points) {
  SplitMix rng(seed);
  std::vector<std::string_view> pieces;
  size_t pos = 0;
  while (pos < s.size()) {
    const uint64_t r = rng.Next();
    if (r % 16 == 0) {
      pieces.push_back(s.substr(pos, 0));
      continue;
    }
    const size_t len = r % 4 == 1 ? 1 + rng.Below(300) : 1 + rng.Below(6);
    size_t end = std::min(s.size(), pos + len);
    if (code_points) {
      while (end < s.size() && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) ++end;
    }
    pieces.push_back(s.substr(pos, end - pos));
    pos = end;
  }
  return pieces;
}

struct Decoded {
  std::string text;
  DecodeStats stats;
};

bool StatsEqual(const DecodeStats& a, const DecodeStats& b) {
  return a.replaced == b.replaced && a.transcoded == b.transcoded;
}

bool DecodePieces(Encoding encoding, const std::vector<std::string_view>& pieces, Decoded* out) {
  TextDecoder decoder(encoding);
  for (std::string_view piece : pieces) {
    const size_t before = out->text.size();
    decoder.Feed(piece, &out->text);
    NEARDUP_FUZZ_CHECK(IsValidUtf8(std::string_view(out->text).substr(before)));
  }
  const size_t before = out->text.size();
  decoder.Finish(&out->text);
  NEARDUP_FUZZ_CHECK(IsValidUtf8(std::string_view(out->text).substr(before)));
  out->stats = decoder.stats();
  // Reset() starts over: the same input decodes the same way again.
  decoder.Reset();
  std::string again;
  for (std::string_view piece : pieces) decoder.Feed(piece, &again);
  decoder.Finish(&again);
  NEARDUP_FUZZ_CHECK(again == out->text);
  NEARDUP_FUZZ_CHECK(StatsEqual(decoder.stats(), out->stats));
  return true;
}

std::string Latin1ToUtf8(std::string_view bytes) {
  std::string out;
  for (const char ch : bytes) {
    const auto b = static_cast<unsigned char>(ch);
    if (b < 0x80) {
      out.push_back(ch);
    } else {
      out.push_back(static_cast<char>(0xC0 | (b >> 6)));
      out.push_back(static_cast<char>(0x80 | (b & 0x3F)));
    }
  }
  return out;
}

bool CheckDecoder(Encoding encoding, std::string_view bytes, uint64_t seed, std::string* utf8) {
  Decoded whole;
  if (!DecodePieces(encoding, {bytes}, &whole)) return false;
  NEARDUP_FUZZ_CHECK(IsValidUtf8(whole.text));
  Decoded chunked;
  if (!DecodePieces(encoding, Split(bytes, seed, /*code_points=*/false), &chunked)) return false;
  NEARDUP_FUZZ_CHECK(chunked.text == whole.text);
  NEARDUP_FUZZ_CHECK(StatsEqual(chunked.stats, whole.stats));
  if (encoding == Encoding::kLatin1) {
    NEARDUP_FUZZ_CHECK(whole.text == Latin1ToUtf8(bytes));
    NEARDUP_FUZZ_CHECK(whole.stats.replaced == 0 && !whole.stats.transcoded);
  } else {
    const bool utf16_bom = bytes.starts_with("\xFF\xFE") || bytes.starts_with("\xFE\xFF");
    NEARDUP_FUZZ_CHECK(whole.stats.transcoded == utf16_bom);
    if (IsValidUtf8(bytes) && !bytes.starts_with(kBomUtf8)) {
      NEARDUP_FUZZ_CHECK(whole.text == bytes);
      NEARDUP_FUZZ_CHECK(whole.stats.replaced == 0);
    }
    // Without replacements, nothing but the BOM is lost.
    if (!utf16_bom && whole.stats.replaced == 0) {
      NEARDUP_FUZZ_CHECK(whole.text == (bytes.starts_with(kBomUtf8) ? bytes.substr(3) : bytes));
    }
  }
  *utf8 = std::move(whole.text);
  return true;
}

std::string AsciiLower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

bool CheckNormalizer(std::string_view utf8, uint64_t seed, std::string* normalized) {
  Normalizer normalizer;
  std::string whole;
  normalizer.Feed(utf8, &whole);
  normalizer.Finish(&whole);
  NEARDUP_FUZZ_CHECK(IsValidUtf8(whole));

  normalizer.Reset();
  std::string chunked;
  for (std::string_view piece : Split(utf8, seed, /*code_points=*/true)) {
    normalizer.Feed(piece, &chunked);
    NEARDUP_FUZZ_CHECK(IsValidUtf8(chunked));  // each piece ends on a boundary
  }
  normalizer.Finish(&chunked);
  // Equal but for ASCII case: an uppercase ASCII letter next to a cut may or
  // may not fall in a Unicode segment (normalize.h); the tokenizer folds it.
  NEARDUP_FUZZ_CHECK(AsciiLower(chunked) == AsciiLower(whole));
  // NormalizeText is the same plus ASCII lowercasing.
  NEARDUP_FUZZ_CHECK(NormalizeText(utf8) == AsciiLower(whole));
  *normalized = std::move(whole);
  return true;
}

struct Shingled {
  std::vector<uint64_t> shingles;
  uint64_t words = 0;
  uint64_t tokens = 0;
  ContentHash content;
};

void Drain(Shingler& shingler, Shingled* out) {
  auto& batch = shingler.shingles();
  out->shingles.insert(out->shingles.end(), batch.begin(), batch.end());
  batch.clear();
}

void Finish(Shingler& shingler, Shingled* out) {
  shingler.Finish();
  Drain(shingler, out);
  out->words = shingler.words();
  out->tokens = shingler.tokens();
  out->content = shingler.content_hash();
}

bool SameShingles(const Shingled& a, const Shingled& b) {
  return a.shingles == b.shingles && a.words == b.words && a.tokens == b.tokens && a.content == b.content;
}

Shingled ShinglePieces(ShingleUnit unit, int k, const std::vector<std::string_view>& pieces) {
  Shingler shingler(unit, k, /*seed=*/7);
  Shingled out;
  for (std::string_view piece : pieces) {
    shingler.Feed(piece);
    Drain(shingler, &out);
  }
  Finish(shingler, &out);
  return out;
}

// Bytes -> decoder -> normalizer -> shingler, piece by piece, as
// DocumentReader streams a file.
Shingled StreamPieces(Encoding encoding, ShingleUnit unit, int k, const std::vector<std::string_view>& pieces) {
  TextDecoder decoder(encoding);
  Normalizer normalizer;
  Shingler shingler(unit, k, /*seed=*/7);
  Shingled out;
  std::string utf8;
  std::string normalized;
  for (std::string_view piece : pieces) {
    utf8.clear();
    decoder.Feed(piece, &utf8);
    normalized.clear();
    normalizer.Feed(utf8, &normalized);
    shingler.Feed(normalized);
    Drain(shingler, &out);
  }
  utf8.clear();
  decoder.Finish(&utf8);
  normalized.clear();
  normalizer.Feed(utf8, &normalized);
  normalizer.Finish(&normalized);
  shingler.Feed(normalized);
  Finish(shingler, &out);
  return out;
}

bool CheckStreaming(Encoding encoding, ShingleUnit unit, int k, std::string_view bytes, uint64_t seed) {
  const Shingled whole = StreamPieces(encoding, unit, k, {bytes});
  const Shingled chunked = StreamPieces(encoding, unit, k, Split(bytes, seed, /*code_points=*/false));
  NEARDUP_FUZZ_CHECK(SameShingles(chunked, whole));
  return true;
}

bool CheckShingler(ShingleUnit unit, int k, std::string_view text, uint64_t seed) {
  const Shingled whole = ShinglePieces(unit, k, {text});
  const Shingled chunked = ShinglePieces(unit, k, Split(text, seed, /*code_points=*/true));
  NEARDUP_FUZZ_CHECK(SameShingles(chunked, whole));
  const auto kk = static_cast<uint64_t>(k);
  const uint64_t expected = whole.tokens == 0 ? 0 : whole.tokens < kk ? 1 : whole.tokens - kk + 1;
  NEARDUP_FUZZ_CHECK(whole.shingles.size() == expected);
  if (unit == ShingleUnit::kWord) NEARDUP_FUZZ_CHECK(whole.tokens == whole.words);
  // Char mode never starts or ends on a space, and counts at least one
  // character per word.
  if (unit == ShingleUnit::kChar) NEARDUP_FUZZ_CHECK(whole.tokens >= whole.words);
  return true;
}

bool Run(const uint8_t* data, size_t size) {
  if (size == 0) return true;
  const uint8_t control = data[0];
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const uint64_t seed = (uint64_t{control} << 32) ^ size;
  const int word_k = 1 + (control & 7);
  const int char_k = 1 + ((control >> 3) & 15);
  for (const Encoding encoding : {Encoding::kUtf8, Encoding::kLatin1}) {
    std::string utf8;
    if (!CheckDecoder(encoding, bytes, seed, &utf8)) return false;
    std::string normalized;
    if (!CheckNormalizer(utf8, seed + 1, &normalized)) return false;
    if (!CheckShingler(ShingleUnit::kWord, word_k, normalized, seed + 2)) return false;
    if (!CheckShingler(ShingleUnit::kChar, char_k, normalized, seed + 3)) return false;
    if (!CheckStreaming(encoding, ShingleUnit::kWord, word_k, bytes, seed + 4)) return false;
    if (!CheckStreaming(encoding, ShingleUnit::kChar, char_k, bytes, seed + 5)) return false;
  }
  // The one-shot convenience used by exact verification: sorted, unique.
  const std::vector<uint64_t> set = ShingleSet(bytes, ShingleUnit::kWord, word_k, 7);
  NEARDUP_FUZZ_CHECK(std::adjacent_find(set.begin(), set.end(), std::greater_equal<uint64_t>()) == set.end());
  return true;
}

}  // namespace

int DecodeFuzz(const uint8_t* data, size_t size) {
  Run(data, size);
  return 0;
}

}  // namespace neardup::fuzz

#ifndef NEARDUP_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return neardup::fuzz::DecodeFuzz(data, size);
}
#endif
