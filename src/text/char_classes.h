// What the tokenizer needs to know of a code point: does it make words, is it
// white space, is it of a script written without spaces. Internal to the core.
//
// The classes come from utf8proc's general categories (letters, marks,
// numbers and connector punctuation make words; separators and controls are
// space) and from block ranges (Han, Hiragana, Katakana, Thai, Lao, Khmer,
// Myanmar are written without spaces). For the Basic Multilingual Plane they
// are read from a 64 KiB table built once, on first use, from the same
// functions (CharClassesReference), so a lookup replaces a utf8proc call;
// tests/text/tokenizer_kernels_test.cc checks the two agree on every code point.
//
// Thread safety: pure functions (the table is built under a static-local guard).
#pragma once

#include <cstdint>

namespace neardup::internal {

enum : uint8_t {
  kCharWord = 1,     // letter, mark, number or connector punctuation
  kCharSpace = 2,    // Zs, Zl, Zp or Cc
  kCharNoSpace = 4,  // a script written without spaces between words
};

// The classes of `cp` (any int32_t; outside 0..0x10FFFF gives 0), from
// utf8proc and the block ranges directly.
uint8_t CharClassesReference(int32_t cp);

// The BMP table, built on first use.
const uint8_t* BmpCharClasses();

// CharClassesReference(cp), from the table when cp is in the BMP.
inline uint8_t CharClasses(int32_t cp) {
  if (static_cast<uint32_t>(cp) < 0x10000) {
    static const uint8_t* const table = BmpCharClasses();
    return table[cp];
  }
  return CharClassesReference(cp);
}

}  // namespace neardup::internal
