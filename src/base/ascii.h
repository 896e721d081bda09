// ASCII scanning shared by the decoder and the normalizer: most text is
// ASCII, and both skip it 16 bytes at a time. CountByte counts a byte (the
// newlines of every file a stage task or the index hashes) 16 at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// Number of bytes of p[0..n) equal to c. std::count widens each match to 64
// bits; here 16 bytes are compared at once and their matches summed in
// bytes, 255 rounds at most before they are added up.
inline uint64_t CountByte(const char* p, size_t n, char c) {
  uint64_t total = 0;
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i needle = _mm_set1_epi8(c);
  while (n - i >= 16) {
    const size_t rounds = std::min<size_t>((n - i) / 16, 255);
    __m128i in_lanes = _mm_setzero_si128();
    for (size_t r = 0; r < rounds; ++r, i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      in_lanes = _mm_sub_epi8(in_lanes, _mm_cmpeq_epi8(v, needle));  // a match is -1
    }
    const __m128i sums = _mm_sad_epu8(in_lanes, _mm_setzero_si128());  // two 64-bit sums
    total += static_cast<uint64_t>(_mm_cvtsi128_si64(sums)) +
             static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  for (; i < n; ++i) total += p[i] == c ? 1 : 0;
  return total;
}

}  // namespace neardup
