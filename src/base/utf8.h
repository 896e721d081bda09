// UTF-8 decoding shared by the decoder, the normalizer, the shingler, the
// glob matcher and the JSON writer: one definition of a well-formed sequence
// and of how much of an ill-formed one to replace.
//
// Well-formed means Unicode Table 3-7: no overlong forms (C0, C1, E0 80..9F,
// F0 80..8F), no surrogates (ED A0..BF), nothing above U+10FFFF (F4 90..BF,
// F5..FF). An ill-formed sequence is reported with the length of its maximal
// subpart (Unicode section 3.9, the W3C Encoding Standard's practice): the
// bytes that one U+FFFD stands for; decoding resumes at the byte that broke
// the sequence, which may itself start a valid one.
//
// Inline and branchy on purpose: text is mostly ASCII (callers skip it with
// AsciiPrefix() from ascii.h), and in the rest a lead byte's length is
// predictable.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/ascii.h"

namespace neardup {

// U+FFFD REPLACEMENT CHARACTER in UTF-8.
inline constexpr std::string_view kUtf8Replacement = "\xEF\xBF\xBD";

enum class Utf8Status : uint8_t {
  kValid,      // a well-formed sequence of `length` bytes
  kInvalid,    // ill-formed: its maximal subpart is `length` bytes (1..3)
  kTruncated,  // well-formed so far, but the input ends inside it: all
               // `length` bytes left are its start (1..3)
};

struct Utf8Char {
  uint32_t code_point;  // when kValid; 0 otherwise
  uint32_t length;      // bytes, >= 1
  Utf8Status status;
};

namespace utf8_internal {

// DecodeUtf8Char() once its fast path has failed: a lead byte that wants
// `need` continuation bytes, the first in [lo, hi], and an input that is
// short or has a bad byte among them.
[[gnu::noinline, gnu::cold]] inline Utf8Char Slow(const unsigned char* p, size_t n, uint32_t need, uint32_t lo,
                                                  uint32_t hi) {
  if (n < 2) return {0, 1, Utf8Status::kTruncated};
  if (p[1] < lo || p[1] > hi) return {0, 1, Utf8Status::kInvalid};
  uint32_t cp = p[0] & (0x7Fu >> (need + 1));
  cp = (cp << 6) | (p[1] & 0x3Fu);
  for (uint32_t k = 2; k <= need; ++k) {
    if (k >= n) return {0, k, Utf8Status::kTruncated};
    if ((p[k] & 0xC0) != 0x80) return {0, k, Utf8Status::kInvalid};
    cp = (cp << 6) | (p[k] & 0x3Fu);
  }
  return {cp, need + 1, Utf8Status::kValid};
}

}  // namespace utf8_internal

// Decodes the sequence that starts at p[0], looking at no byte past p[n).
// REQUIRES: n >= 1.
inline Utf8Char DecodeUtf8Char(const unsigned char* p, size_t n) {
  const uint32_t c = p[0];
  if (c < 0x80) return {c, 1, Utf8Status::kValid};
  // Each length is checked in full on a fast path; the rest (short input, a
  // bad byte) is sorted out by Slow().
  if (c - 0xC2 <= 0xDF - 0xC2) {
    if (n >= 2 && (p[1] & 0xC0) == 0x80) {
      return {((c & 0x1F) << 6) | (p[1] & 0x3Fu), 2, Utf8Status::kValid};
    }
    return utf8_internal::Slow(p, n, 1, 0x80, 0xBF);
  }
  if (c - 0xE0 <= 0xEF - 0xE0) {
    const uint32_t lo = c == 0xE0 ? 0xA0 : 0x80;  // no overlongs
    const uint32_t hi = c == 0xED ? 0x9F : 0xBF;  // no surrogates
    if (n >= 3 && p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80) {
      return {((c & 0x0F) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu), 3, Utf8Status::kValid};
    }
    return utf8_internal::Slow(p, n, 2, lo, hi);
  }
  if (c - 0xF0 <= 0xF4 - 0xF0) {
    const uint32_t lo = c == 0xF0 ? 0x90 : 0x80;  // no overlongs
    const uint32_t hi = c == 0xF4 ? 0x8F : 0xBF;  // nothing above U+10FFFF
    if (n >= 4 && p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80) {
      return {((c & 0x07) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu), 4,
              Utf8Status::kValid};
    }
    return utf8_internal::Slow(p, n, 3, lo, hi);
  }
  // 80..C1 (a continuation byte or an overlong lead) and F5..FF never start
  // a sequence: the maximal subpart is this byte alone.
  return {0, 1, Utf8Status::kInvalid};
}

inline Utf8Char DecodeUtf8Char(std::string_view s, size_t pos) {
  return DecodeUtf8Char(reinterpret_cast<const unsigned char*>(s.data()) + pos, s.size() - pos);
}

// Appends code point `cp` as UTF-8. REQUIRES: cp <= 0x10FFFF (a surrogate is
// encoded as it is; callers that may hold one check first).
inline void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    const char buf[2] = {static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};
    out->append(buf, 2);
  } else if (cp < 0x10000) {
    const char buf[3] = {static_cast<char>(0xE0 | (cp >> 12)), static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
                         static_cast<char>(0x80 | (cp & 0x3F))};
    out->append(buf, 3);
  } else {
    const char buf[4] = {static_cast<char>(0xF0 | (cp >> 18)), static_cast<char>(0x80 | ((cp >> 12) & 0x3F)),
                         static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), static_cast<char>(0x80 | (cp & 0x3F))};
    out->append(buf, 4);
  }
}

// Appends `s` to `*out` with each ill-formed sequence (a truncated one at
// the end included) replaced by one U+FFFD. Returns the number replaced.
inline uint64_t AppendUtf8Repaired(std::string_view s, std::string* out) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  uint64_t replaced = 0;
  size_t run = 0;  // start of the valid bytes not yet appended
  size_t i = 0;
  while (true) {
    i += AsciiPrefix(p + i, n - i);
    if (i >= n) break;
    const Utf8Char c = DecodeUtf8Char(p + i, n - i);
    if (c.status != Utf8Status::kValid) {
      out->append(s.data() + run, i - run);
      out->append(kUtf8Replacement);
      ++replaced;
      run = i + c.length;
    }
    i += c.length;
  }
  out->append(s.data() + run, n - run);
  return replaced;
}

}  // namespace neardup
