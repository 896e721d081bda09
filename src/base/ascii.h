// ASCII scanning shared by the decoder and the normalizer: most text is
// ASCII, and both skip it 16 bytes at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace neardup {

// Number of leading bytes of p[0..n) below 0x80.
inline size_t AsciiPrefix(const unsigned char* p, size_t n) {
  constexpr uint64_t kHighBits = 0x8080808080808080ULL;
  size_t i = 0;
  while (i + 16 <= n) {
    uint64_t a;
    uint64_t b;
    std::memcpy(&a, p + i, 8);
    std::memcpy(&b, p + i + 8, 8);
    if (((a | b) & kHighBits) != 0) break;
    i += 16;
  }
  while (i < n && p[i] < 0x80) ++i;
  return i;
}

}  // namespace neardup
