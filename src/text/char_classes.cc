// The tokenizer's code point classes. See src/text/char_classes.h.
#include "text/char_classes.h"

#include <utf8proc.h>

#include <memory>

namespace neardup::internal {
namespace {

// Letters, marks and numbers make words (plus '_', handled in the ASCII table).
bool IsWordCodePoint(int32_t cp) {
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
    case UTF8PROC_CATEGORY_PC:  // connector punctuation: '_' and its kin
      return true;
    default:
      return false;
  }
}

bool IsSpaceCodePoint(int32_t cp) {
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_ZS:
    case UTF8PROC_CATEGORY_ZL:
    case UTF8PROC_CATEGORY_ZP:
    case UTF8PROC_CATEGORY_CC:
      return true;
    default:
      return false;
  }
}

// Scripts written without spaces between words: Han, Hiragana, Katakana,
// Thai, Lao, Khmer, Myanmar (block ranges from the Unicode Character Database).
bool IsNoSpaceScript(int32_t cp) {
  if (cp < 0x0E00) return false;
  return (cp >= 0x0E00 && cp <= 0x0EFF) ||                                    // Thai, Lao
         (cp >= 0x1000 && cp <= 0x109F) ||                                    // Myanmar
         (cp >= 0x1780 && cp <= 0x17FF) ||                                    // Khmer
         (cp >= 0x19E0 && cp <= 0x19FF) ||                                    // Khmer symbols
         (cp >= 0x2E80 && cp <= 0x2FDF) ||                                    // CJK radicals, Kangxi radicals
         (cp >= 0x3005 && cp <= 0x3007) ||                                    // ideographic iteration mark, number zero
         (cp >= 0x3021 && cp <= 0x3029) ||                                    // Hangzhou numerals
         (cp >= 0x3038 && cp <= 0x303B) || (cp >= 0x3040 && cp <= 0x30FF) ||  // Hiragana, Katakana
         (cp >= 0x31F0 && cp <= 0x31FF) ||                                    // Katakana phonetic extensions
         (cp >= 0x3400 && cp <= 0x4DBF) ||                                    // CJK extension A
         (cp >= 0x4E00 && cp <= 0x9FFF) ||                                    // CJK unified ideographs
         (cp >= 0xA9E0 && cp <= 0xA9FF) ||                                    // Myanmar extended-B
         (cp >= 0xAA60 && cp <= 0xAA7F) ||                                    // Myanmar extended-A
         (cp >= 0xF900 && cp <= 0xFAFF) ||                                    // CJK compatibility ideographs
         (cp >= 0xFF66 && cp <= 0xFF9F) ||                                    // halfwidth Katakana
         (cp >= 0x1B000 && cp <= 0x1B16F) ||                                  // Kana supplement and extensions
         (cp >= 0x20000 && cp <= 0x323AF);                                    // CJK extensions B..H
}

}  // namespace

uint8_t CharClassesReference(int32_t cp) {
  if (cp < 0 || cp > 0x10FFFF) return 0;
  uint8_t c = 0;
  if (IsWordCodePoint(cp)) c |= kCharWord;
  if (IsSpaceCodePoint(cp)) c |= kCharSpace;
  if (IsNoSpaceScript(cp)) c |= kCharNoSpace;
  return c;
}

const uint8_t* BmpCharClasses() {
  static const std::unique_ptr<uint8_t[]> table = [] {
    auto t = std::make_unique<uint8_t[]>(0x10000);
    for (int32_t cp = 0; cp < 0x10000; ++cp) t[static_cast<size_t>(cp)] = CharClassesReference(cp);
    return t;
  }();
  return table.get();
}

}  // namespace neardup::internal
