// The vector word hasher. See src/text/word_hash.h.
#include "text/word_hash.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define NEARDUP_X86_KERNELS 1
#endif

namespace neardup::internal {

#ifdef NEARDUP_X86_KERNELS
namespace {

#define NEARDUP_WORD_TARGET __attribute__((target("avx512f,avx512dq,avx512bw")))

NEARDUP_WORD_TARGET inline __m512i Set(uint64_t x) { return _mm512_set1_epi64(static_cast<long long>(x)); }

// x ^ (x >> shift) in each lane. (Here and below the masked forms with all
// lanes set: GCC 12 warns that the plain ones' merge source is undefined.)
NEARDUP_WORD_TARGET inline __m512i XorShift(__m512i x, unsigned shift) {
  return _mm512_xor_si512(x, _mm512_maskz_srli_epi64(0xFF, x, shift));
}

// XXH3_mul128_fold64 in each lane: the low and the high 64 bits of the
// 128-bit product a * b, xored, from four 32x32->64 bit products.
NEARDUP_WORD_TARGET inline __m512i Mul128Fold(__m512i a, __m512i b) {
  const __m512i low32 = Set(0xFFFFFFFFu);
  const __m512i a_hi = _mm512_maskz_srli_epi64(0xFF, a, 32);
  const __m512i b_hi = _mm512_maskz_srli_epi64(0xFF, b, 32);
  const __m512i p0 = _mm512_maskz_mul_epu32(0xFF, a, b);
  const __m512i p1 = _mm512_maskz_mul_epu32(0xFF, a, b_hi);
  const __m512i p2 = _mm512_maskz_mul_epu32(0xFF, a_hi, b);
  const __m512i p3 = _mm512_maskz_mul_epu32(0xFF, a_hi, b_hi);
  // The bits 32..95 of the product before the carries into the high half.
  const __m512i mid = _mm512_add_epi64(_mm512_add_epi64(_mm512_maskz_srli_epi64(0xFF, p0, 32),
                                                        _mm512_and_si512(p1, low32)),
                                       _mm512_and_si512(p2, low32));
  const __m512i high = _mm512_add_epi64(
      _mm512_add_epi64(p3, _mm512_maskz_srli_epi64(0xFF, p1, 32)),
      _mm512_add_epi64(_mm512_maskz_srli_epi64(0xFF, p2, 32), _mm512_maskz_srli_epi64(0xFF, mid, 32)));
  const __m512i low = _mm512_or_si512(_mm512_maskz_slli_epi64(0xFF, mid, 32), _mm512_and_si512(p0, low32));
  return _mm512_xor_si512(low, high);
}

// ShortWordHasher::Hash for the eight words whose starts and ends are in
// lanes; `lanes` masks the loads and the store at the end of the range.
// Lanes of words longer than 16 bytes get a value the caller replaces.
NEARDUP_WORD_TARGET inline void HashEight(const ShortWordHasher& hasher, const unsigned char* base,
                                          __m512i start, __m512i end, __mmask8 lanes, uint64_t* out) {
  const __m512i len = _mm512_sub_epi64(end, start);
  const __m512i head = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), lanes, start, base, 1);
  const __m512i tail =
      _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), lanes, _mm512_sub_epi64(end, Set(8)), base, 1);
  const __m512i byte = Set(0xFF);

  // 1-3 bytes: the first, middle and last byte, and the length; XXH64's avalanche.
  const __m512i c1 = _mm512_and_si512(head, byte);
  const __m512i middle = _mm512_and_si512(_mm512_maskz_slli_epi64(0xFF, _mm512_maskz_srli_epi64(0xFF, len, 1), 3),
                                          Set(63));
  const __m512i c2 = _mm512_and_si512(_mm512_maskz_srlv_epi64(0xFF, head, middle), byte);
  const __m512i c3 = _mm512_maskz_srli_epi64(0xFF, tail, 56);
  __m512i h1 = _mm512_or_si512(
      _mm512_or_si512(_mm512_maskz_slli_epi64(0xFF, c1, 16), _mm512_maskz_slli_epi64(0xFF, c2, 24)),
      _mm512_or_si512(c3, _mm512_maskz_slli_epi64(0xFF, len, 8)));
  h1 = XorShift(_mm512_xor_si512(h1, Set(hasher.flip_1to3())), 33);
  h1 = XorShift(_mm512_mullo_epi64(h1, Set(XXH_PRIME64_2)), 29);
  h1 = XorShift(_mm512_mullo_epi64(h1, Set(XXH_PRIME64_3)), 32);

  // 4-8 bytes: the first and the last four; XXH3_rrmxmx.
  __m512i h4 = _mm512_add_epi64(_mm512_maskz_srli_epi64(0xFF, tail, 32), _mm512_maskz_slli_epi64(0xFF, head, 32));
  h4 = _mm512_xor_si512(h4, Set(hasher.flip_4to8()));
  h4 = _mm512_ternarylogic_epi64(h4, _mm512_maskz_rol_epi64(0xFF, h4, 49), _mm512_maskz_rol_epi64(0xFF, h4, 24), 0x96);  // a^b^c
  const __m512i mx2 = Set(0x9FB21C651E98DF25ULL);
  h4 = _mm512_mullo_epi64(h4, mx2);
  h4 = _mm512_xor_si512(h4, _mm512_add_epi64(_mm512_maskz_srli_epi64(0xFF, h4, 35), len));
  h4 = XorShift(_mm512_mullo_epi64(h4, mx2), 28);

  // 9-16 bytes: the first and the last eight; XXH3's avalanche.
  const __m512i lo = _mm512_xor_si512(head, Set(hasher.flip_lo()));
  const __m512i hi = _mm512_xor_si512(tail, Set(hasher.flip_hi()));
  const __m512i swap = _mm512_set4_epi64(0x08090A0B0C0D0E0FLL, 0x0001020304050607LL, 0x08090A0B0C0D0E0FLL,
                                         0x0001020304050607LL);
  __m512i h9 = _mm512_add_epi64(_mm512_add_epi64(len, _mm512_shuffle_epi8(lo, swap)),
                                _mm512_add_epi64(hi, Mul128Fold(lo, hi)));
  h9 = XorShift(h9, 37);
  h9 = XorShift(_mm512_mullo_epi64(h9, Set(0x165667919E3779F9ULL)), 32);

  const __mmask8 up_to_3 = _mm512_cmple_epu64_mask(len, Set(3));
  const __mmask8 up_to_8 = _mm512_cmple_epu64_mask(len, Set(8));
  const __m512i h = _mm512_mask_blend_epi64(up_to_3, _mm512_mask_blend_epi64(up_to_8, h9, h4), h1);
  _mm512_mask_storeu_epi64(out, lanes, h);
}

}  // namespace

NEARDUP_WORD_TARGET void HashWordsAvx512(const ShortWordHasher& hasher, const WordSpans& words, uint64_t* out) {
  // Gather indices are relative to `base`, the text's position 0.
  const __m512i origin = Set(words.origin);
  const unsigned char* base = words.text;
  for (size_t i = 0; i < words.count; i += 8) {
    const size_t left = words.count - i;
    const auto lanes = static_cast<__mmask8>(left >= 8 ? 0xFF : (1u << left) - 1);
    const __m512i start = _mm512_sub_epi64(_mm512_maskz_loadu_epi64(lanes, words.starts + i), origin);
    const __m512i end = _mm512_sub_epi64(_mm512_maskz_loadu_epi64(lanes, words.ends + i), origin);
    HashEight(hasher, base, start, end, lanes, out + i);
    // Words of more than 16 bytes (rare in text) are hashed whole.
    auto longer = static_cast<unsigned>(_mm512_mask_cmpgt_epu64_mask(lanes, _mm512_sub_epi64(end, start), Set(16)));
    while (longer != 0) {
      const size_t j = i + static_cast<size_t>(__builtin_ctz(longer));
      longer &= longer - 1;
      const size_t s = words.starts[j] - words.origin;
      out[j] = HashBytes(base + s, words.ends[j] - words.starts[j], hasher.seed());
    }
  }
}

#undef NEARDUP_WORD_TARGET
#endif  // NEARDUP_X86_KERNELS

WordHashFn WordHasherFor(TokenizerKernel kernel) {
#ifdef NEARDUP_X86_KERNELS
  if (kernel == TokenizerKernel::kAvx512 && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw")) {
    return HashWordsAvx512;
  }
#else
  (void)kernel;
#endif
  return nullptr;
}

}  // namespace neardup::internal
