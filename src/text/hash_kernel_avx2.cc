// The tokenizer's hash kernels for processors with AVX2 and no AVX-512:
// word hashes (src/text/word_hash.h) and shingle hashes
// (src/text/tokenize_kernel.h), four 64-bit lanes at a time.
//
// AVX2 has no 64x64-bit multiply. MulLo builds the low 64 bits of one from
// three 32x32->64 bit products (vpmuludq), Mul128Fold the whole 128-bit
// product from four. The values are bit-identical to the scalar hashers'
// (tests/text/tokenize_kernel_test.cc).
#include "base/hash.h"
#include "text/tokenize_kernel.h"
#include "text/word_hash.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include <cstring>

namespace neardup::internal {
namespace {

#define NEARDUP_AVX2 __attribute__((target("avx2")))

NEARDUP_AVX2 inline __m256i Set(uint64_t x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }

// x ^= x >> shift, in each lane.
NEARDUP_AVX2 inline __m256i XorShift(__m256i x, int shift) { return _mm256_xor_si256(x, _mm256_srli_epi64(x, shift)); }

// The low 64 bits of a * b, in each lane.
NEARDUP_AVX2 inline __m256i MulLo(__m256i a, __m256i b) {
  const __m256i cross =
      _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b), _mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)));
  return _mm256_add_epi64(_mm256_mul_epu32(a, b), _mm256_slli_epi64(cross, 32));
}

// XXH3_mul128_fold64 in each lane: the low and the high 64 bits of the
// 128-bit product a * b, xored.
NEARDUP_AVX2 inline __m256i Mul128Fold(__m256i a, __m256i b) {
  const __m256i low32 = Set(0xFFFFFFFFu);
  const __m256i a_hi = _mm256_srli_epi64(a, 32);
  const __m256i b_hi = _mm256_srli_epi64(b, 32);
  const __m256i p0 = _mm256_mul_epu32(a, b);
  const __m256i p1 = _mm256_mul_epu32(a, b_hi);
  const __m256i p2 = _mm256_mul_epu32(a_hi, b);
  const __m256i p3 = _mm256_mul_epu32(a_hi, b_hi);
  // The bits 32..95 of the product before the carries into the high half.
  const __m256i mid = _mm256_add_epi64(_mm256_add_epi64(_mm256_srli_epi64(p0, 32), _mm256_and_si256(p1, low32)),
                                       _mm256_and_si256(p2, low32));
  const __m256i high = _mm256_add_epi64(_mm256_add_epi64(p3, _mm256_srli_epi64(p1, 32)),
                                        _mm256_add_epi64(_mm256_srli_epi64(p2, 32), _mm256_srli_epi64(mid, 32)));
  const __m256i low = _mm256_or_si256(_mm256_slli_epi64(mid, 32), _mm256_and_si256(p0, low32));
  return _mm256_xor_si256(low, high);
}

NEARDUP_AVX2 inline __m256i Rotl(__m256i x, int r) {
  return _mm256_or_si256(_mm256_slli_epi64(x, r), _mm256_srli_epi64(x, 64 - r));
}

// The 8 bytes at base + at[i], little-endian, in lane i. (Four loads: on
// the processors this kernel is for, a gather is slower.)
NEARDUP_AVX2 inline __m256i Load4(const unsigned char* base, const size_t* at) {
  return _mm256_set_epi64x(static_cast<long long>(ShortWordHasher::Load(base + at[3])),
                           static_cast<long long>(ShortWordHasher::Load(base + at[2])),
                           static_cast<long long>(ShortWordHasher::Load(base + at[1])),
                           static_cast<long long>(ShortWordHasher::Load(base + at[0])));
}

// ShortWordHasher::Hash for the four words [start[i], end[i]) of base, into
// out[0..4). Returns a bit per lane whose word is longer than 16 bytes (its
// value is the caller's to replace).
NEARDUP_AVX2 inline unsigned HashFourWords(const ShortWordHasher& hasher, const unsigned char* base,
                                           const size_t* start, const size_t* end, uint64_t* out) {
  size_t tail_at[4];
  for (int i = 0; i < 4; ++i) tail_at[i] = end[i] - 8;
  const __m256i head = Load4(base, start);
  const __m256i tail = Load4(base, tail_at);
  const __m256i len = _mm256_sub_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(end)),
                                       _mm256_loadu_si256(reinterpret_cast<const __m256i*>(start)));
  const __m256i byte = Set(0xFF);

  // 1-3 bytes: the first, middle and last byte, and the length; XXH64's
  // avalanche.
  const __m256i c1 = _mm256_and_si256(head, byte);
  const __m256i middle = _mm256_and_si256(_mm256_slli_epi64(_mm256_srli_epi64(len, 1), 3), Set(63));
  const __m256i c2 = _mm256_and_si256(_mm256_srlv_epi64(head, middle), byte);
  const __m256i c3 = _mm256_srli_epi64(tail, 56);
  __m256i h1 = _mm256_or_si256(_mm256_or_si256(_mm256_slli_epi64(c1, 16), _mm256_slli_epi64(c2, 24)),
                               _mm256_or_si256(c3, _mm256_slli_epi64(len, 8)));
  h1 = XorShift(_mm256_xor_si256(h1, Set(hasher.flip_1to3())), 33);
  h1 = XorShift(MulLo(h1, Set(XXH_PRIME64_2)), 29);
  h1 = XorShift(MulLo(h1, Set(XXH_PRIME64_3)), 32);

  // 4-8 bytes: the first and the last four; XXH3_rrmxmx.
  __m256i h4 = _mm256_add_epi64(_mm256_srli_epi64(tail, 32), _mm256_slli_epi64(head, 32));
  h4 = _mm256_xor_si256(h4, Set(hasher.flip_4to8()));
  h4 = _mm256_xor_si256(h4, _mm256_xor_si256(Rotl(h4, 49), Rotl(h4, 24)));
  const __m256i mx2 = Set(0x9FB21C651E98DF25ULL);
  h4 = MulLo(h4, mx2);
  h4 = _mm256_xor_si256(h4, _mm256_add_epi64(_mm256_srli_epi64(h4, 35), len));
  h4 = XorShift(MulLo(h4, mx2), 28);

  // 9-16 bytes: the first and the last eight; XXH3's avalanche.
  const __m256i lo = _mm256_xor_si256(head, Set(hasher.flip_lo()));
  const __m256i hi = _mm256_xor_si256(tail, Set(hasher.flip_hi()));
  const __m256i swap =
      _mm256_set_epi64x(0x08090A0B0C0D0E0FLL, 0x0001020304050607LL, 0x08090A0B0C0D0E0FLL, 0x0001020304050607LL);
  __m256i h9 =
      _mm256_add_epi64(_mm256_add_epi64(len, _mm256_shuffle_epi8(lo, swap)), _mm256_add_epi64(hi, Mul128Fold(lo, hi)));
  h9 = XorShift(h9, 37);
  h9 = XorShift(MulLo(h9, Set(0x165667919E3779F9ULL)), 32);

  // Lengths are far below 2^63, so the signed compares are unsigned ones.
  const __m256i up_to_3 = _mm256_cmpgt_epi64(Set(4), len);
  const __m256i up_to_8 = _mm256_cmpgt_epi64(Set(9), len);
  const __m256i h = _mm256_blendv_epi8(_mm256_blendv_epi8(h9, h4, up_to_8), h1, up_to_3);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), h);
  return static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(len, Set(16)))));
}

// Four shingles ending at consecutive tokens, into out[0..4); with kMasked,
// only the lanes set in `lanes` are loaded and stored (the last one to
// three shingles of a range).
template <bool kMasked>
NEARDUP_AVX2 inline void HashFourShingles(const uint64_t* tokens, int k, __m256i seed, __m256i lanes, uint64_t* out) {
  const __m256i mul = Set(0x9e3779b97f4a7c15ULL);
  __m256i h = seed;
  for (int j = 0; j < k; ++j) {
    const auto* at = reinterpret_cast<const long long*>(tokens + j);
    const __m256i t =
        kMasked ? _mm256_maskload_epi64(at, lanes) : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
    h = XorShift(MulLo(_mm256_xor_si256(h, t), mul), 29);
  }
  // Mix64, the MurmurHash3 finalizer (src/base/hash.h).
  h = XorShift(h, 33);
  h = MulLo(h, Set(0xff51afd7ed558ccdULL));
  h = XorShift(h, 33);
  h = MulLo(h, Set(0xc4ceb9fe1a85ec53ULL));
  h = XorShift(h, 33);
  if (kMasked) {
    _mm256_maskstore_epi64(reinterpret_cast<long long*>(out), lanes, h);
  } else {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), h);
  }
}

}  // namespace

NEARDUP_AVX2 void HashWordsAvx2(const ShortWordHasher& hasher, const WordSpans& words, uint64_t* out) {
  // Offsets are relative to `base`, the text's position 0.
  const unsigned char* base = words.text - words.origin;
  size_t i = 0;
  for (; i < words.count; i += 4) {
    uint64_t got[4];
    const size_t left = words.count - i;
    unsigned longer;
    if (left >= 4) {
      longer = HashFourWords(hasher, base, words.starts + i, words.ends + i, out + i);
    } else {
      // The last one to three words; the lanes past them repeat the last.
      size_t start[4], end[4];
      for (size_t j = 0; j < 4; ++j) {
        start[j] = words.starts[i + (j < left ? j : left - 1)];
        end[j] = words.ends[i + (j < left ? j : left - 1)];
      }
      longer = HashFourWords(hasher, base, start, end, got) & ((1u << left) - 1);
      std::memcpy(out + i, got, left * sizeof(uint64_t));
    }
    // Words of more than 16 bytes (rare in text) are hashed whole.
    while (longer != 0) {
      const size_t j = i + static_cast<size_t>(__builtin_ctz(longer));
      longer &= longer - 1;
      out[j] = HashBytes(base + words.starts[j], words.ends[j] - words.starts[j], hasher.seed());
    }
  }
}

NEARDUP_AVX2 void HashShinglesAvx2(const uint64_t* tokens, size_t count, int k, uint64_t seed, uint64_t* out) {
  const __m256i s = Set(seed);
  const __m256i all = _mm256_set1_epi64x(-1);
  size_t i = 0;
  for (; i + 4 <= count; i += 4) HashFourShingles<false>(tokens + i, k, s, all, out + i);
  if (i < count) {
    const auto left = static_cast<long long>(count - i);
    const __m256i lanes = _mm256_cmpgt_epi64(_mm256_set1_epi64x(left), _mm256_set_epi64x(3, 2, 1, 0));
    HashFourShingles<true>(tokens + i, k, s, lanes, out + i);
  }
}

#undef NEARDUP_AVX2

}  // namespace neardup::internal

#endif  // defined(__x86_64__) && defined(__GNUC__)
