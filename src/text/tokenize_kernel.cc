// The tokenizer's vector kernels: byte classifiers, shingle hashes (see
// src/text/tokenize_kernel.h) and word hashes (src/text/word_hash.h).
#include "text/tokenize_kernel.h"

#include <atomic>
#include <cstring>

#include "text/word_hash.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define NEARDUP_X86_KERNELS 1
#endif

namespace neardup::internal {
namespace {

std::atomic<int> g_override{-1};

}  // namespace

void ClassifyPortable(const unsigned char* p, size_t n, ByteClasses* out, unsigned char* lowered) {
  for (size_t base = 0; base < n; base += 64) {
    const size_t len = n - base < 64 ? n - base : 64;
    ByteClasses c{0, 0, 0, 0};
    uint64_t lead = 0, cont = 0, c3 = 0, not_c3 = 0, d2 = 0, not_d2 = 0;
    for (size_t j = 0; j < len; ++j) {
      const unsigned char b = p[base + j];
      const uint64_t bit = uint64_t{1} << j;
      if ((b >= 0xC3 && b <= 0xCA) || (b >= 0xD0 && b <= 0xD3)) lead |= bit;
      if ((b & 0xC0) == 0x80) cont |= bit;
      if (b == 0xC3) c3 |= bit;
      if (b == 0x97 || b == 0xB7) not_c3 |= bit;
      if (b == 0xD2) d2 |= bit;
      if (b == 0x82) not_d2 |= bit;
      const bool upper = b >= 'A' && b <= 'Z';
      const bool word = upper || (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || b == '_';
      lowered[base + j] = upper ? static_cast<unsigned char>(b + ('a' - 'A')) : b;
      if (word) c.word |= bit;
      if (upper) c.upper |= bit;
      if (b >= 0x80) c.high |= bit;
    }
    c.pair = WordPairs(lead, cont, c3, not_c3, d2, not_d2);
    out[base / 64] = c;
  }
}

size_t CleanPrefixPortable(const unsigned char* p, const CleanTables& tables) {
  size_t last = 0;  // start of the last clean character
  size_t j = 0;
  while (j < 64) {
    const unsigned char c = p[j];
    size_t len;
    if (c < 0x80) {
      if (c >= 'A' && c <= 'Z' && p[j + 1] >= 0x80) break;
      len = 1;
    } else if ((c & 0xE0) == 0xC0 && (p[j + 1] & 0xC0) == 0x80 &&
               (tables.lead[c & 0x3F] & tables.cont[p[j + 1] & 0x3F]) != 0) {
      len = 2;
    } else if (c == 0xE2 && p[j + 1] == 0x80 && (p[j + 2] & 0xC0) == 0x80 && tables.e280[p[j + 2] & 0x3F] != 0) {
      len = 3;
    } else {
      break;
    }
    last = j;
    j += len;
  }
  return last;
}

#ifdef NEARDUP_X86_KERNELS

// 0xFF in each byte of x that is <= k, unsigned: min(x, k) == x.
__attribute__((target("avx2"))) static inline __m256i LessEq(__m256i x, char k) {
  return _mm256_cmpeq_epi8(_mm256_min_epu8(x, _mm256_set1_epi8(k)), x);
}

__attribute__((target("avx2"))) static inline uint64_t Mask(__m256i lo, __m256i hi) {
  return static_cast<uint32_t>(_mm256_movemask_epi8(lo)) |
         (uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(hi))} << 32);
}

__attribute__((target("avx2"))) static inline __m256i Eq(__m256i v, char c) {
  return _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c));
}

// The masks of 64 bytes, loaded as two halves; writes their lowered form.
__attribute__((target("avx2"))) static inline ByteClasses Classify64(__m256i v0, __m256i v1, unsigned char* lowered) {
  __m256i word[2], upper[2], lead[2], cont[2];
  const __m256i v[2] = {v0, v1};
  for (int h = 0; h < 2; ++h) {
    const __m256i folded = _mm256_or_si256(v[h], _mm256_set1_epi8(0x20));
    const __m256i letter = LessEq(_mm256_sub_epi8(folded, _mm256_set1_epi8('a')), 25);
    const __m256i digit = LessEq(_mm256_sub_epi8(v[h], _mm256_set1_epi8('0')), 9);
    word[h] = _mm256_or_si256(_mm256_or_si256(letter, digit), Eq(v[h], '_'));
    upper[h] = LessEq(_mm256_sub_epi8(v[h], _mm256_set1_epi8('A')), 25);
    lead[h] = _mm256_or_si256(LessEq(_mm256_sub_epi8(v[h], _mm256_set1_epi8(static_cast<char>(0xC3))), 7),
                              LessEq(_mm256_sub_epi8(v[h], _mm256_set1_epi8(static_cast<char>(0xD0))), 3));
    cont[h] = Eq(_mm256_and_si256(v[h], _mm256_set1_epi8(static_cast<char>(0xC0))), static_cast<char>(0x80));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(lowered + 32 * h),
                        _mm256_add_epi8(v[h], _mm256_and_si256(upper[h], _mm256_set1_epi8(0x20))));
  }
  const uint64_t high = Mask(v0, v1);
  ByteClasses c;
  c.word = Mask(word[0], word[1]) & ~high;
  c.high = high;
  c.upper = Mask(upper[0], upper[1]) & ~high;
  c.pair = WordPairs(Mask(lead[0], lead[1]), Mask(cont[0], cont[1]),
                     Mask(Eq(v0, static_cast<char>(0xC3)), Eq(v1, static_cast<char>(0xC3))),
                     Mask(_mm256_or_si256(Eq(v0, static_cast<char>(0x97)), Eq(v0, static_cast<char>(0xB7))),
                          _mm256_or_si256(Eq(v1, static_cast<char>(0x97)), Eq(v1, static_cast<char>(0xB7)))),
                     Mask(Eq(v0, static_cast<char>(0xD2)), Eq(v1, static_cast<char>(0xD2))),
                     Mask(Eq(v0, static_cast<char>(0x82)), Eq(v1, static_cast<char>(0x82))));
  return c;
}

__attribute__((target("avx2"))) void ClassifyAvx2(const unsigned char* p, size_t n, ByteClasses* out,
                                                  unsigned char* lowered) {
  size_t base = 0;
  for (; base + 64 <= n; base += 64) {
    out[base / 64] = Classify64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + base)),
                                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + base + 32)), lowered + base);
  }
  if (base < n) {
    // The tail, from a zeroed copy (NUL is in no class).
    alignas(32) unsigned char tail[64] = {};
    std::memcpy(tail, p + base, n - base);
    out[base / 64] = Classify64(_mm256_load_si256(reinterpret_cast<const __m256i*>(tail)),
                                _mm256_load_si256(reinterpret_cast<const __m256i*>(tail + 32)), lowered + base);
  }
}

// tables[idx & 0x3F] in each byte, for a table of 64 bytes (four 16-byte
// pshufb lookups, chosen by bits 4 and 5 of the index).
__attribute__((target("avx2"))) static inline __m256i Lookup64(__m256i idx, const uint8_t* table) {
  const __m256i lo = _mm256_and_si256(idx, _mm256_set1_epi8(0x0F));
  __m256i t[4];
  for (int q = 0; q < 4; ++q) {
    t[q] = _mm256_shuffle_epi8(
        _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(table + 16 * q))), lo);
  }
  // blendv takes the top bit of each byte: bit 4 (or 5) of the index,
  // shifted there (bits shifted in from the byte below land under bit 7).
  const __m256i bit4 = _mm256_slli_epi16(idx, 3);
  const __m256i bit5 = _mm256_slli_epi16(idx, 2);
  return _mm256_blendv_epi8(_mm256_blendv_epi8(t[0], t[1], bit4), _mm256_blendv_epi8(t[2], t[3], bit4), bit5);
}

// CleanPrefixAvx512's `bad` mask for 32 bytes from p.
__attribute__((target("avx2"))) static inline uint32_t CleanBad32(const unsigned char* p, const CleanTables& tables,
                                                                  uint32_t* carry) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 1));
  const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 2));
  const __m256i kc0 = _mm256_set1_epi8(static_cast<char>(0xC0));
  const __m256i k80 = _mm256_set1_epi8(static_cast<char>(0x80));
  const __m256i lead2 = _mm256_cmpeq_epi8(_mm256_and_si256(v, _mm256_set1_epi8(static_cast<char>(0xE0))), kc0);
  const __m256i cont_w = _mm256_cmpeq_epi8(_mm256_and_si256(w, kc0), k80);
  const __m256i cont_x = _mm256_cmpeq_epi8(_mm256_and_si256(x, kc0), k80);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i accepted =
      _mm256_cmpeq_epi8(_mm256_and_si256(Lookup64(v, tables.lead), Lookup64(w, tables.cont)), zero);
  const auto pair =
      static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_andnot_si256(accepted, _mm256_and_si256(lead2, cont_w))));
  const __m256i e2_80 = _mm256_and_si256(Eq(v, static_cast<char>(0xE2)), Eq(w, static_cast<char>(0x80)));
  const __m256i third = _mm256_cmpeq_epi8(Lookup64(x, tables.e280), zero);
  const auto triple =
      static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_andnot_si256(third, _mm256_and_si256(e2_80, cont_x))));
  const auto high = static_cast<uint32_t>(_mm256_movemask_epi8(v));
  const auto upper = static_cast<uint32_t>(_mm256_movemask_epi8(LessEq(_mm256_sub_epi8(v, _mm256_set1_epi8('A')), 25)));
  const uint32_t ok = *carry | pair | (pair << 1) | triple | (triple << 1) | (triple << 2);
  // Bytes of a clean character that started in these 32 and go on past them.
  *carry = (pair >> 31) | (triple >> 30) | (triple >> 31);
  return (high & ~ok) | (upper & static_cast<uint32_t>(_mm256_movemask_epi8(w)));
}

__attribute__((target("avx2"))) size_t CleanPrefixAvx2(const unsigned char* p, const CleanTables& tables) {
  uint32_t carry = 0;
  const uint32_t bad_lo = CleanBad32(p, tables, &carry);
  const uint32_t bad_hi = CleanBad32(p + 32, tables, &carry);
  const uint64_t bad = bad_lo | (uint64_t{bad_hi} << 32);
  if ((bad & 1) != 0) return 0;
  size_t cut = bad == 0 ? 63 : static_cast<size_t>(__builtin_ctzll(bad)) - 1;
  while (cut > 0 && (p[cut] & 0xC0) == 0x80) --cut;
  return cut;
}

__attribute__((target("avx512f,avx512bw"))) static inline uint64_t Eq512(__m512i v, int c) {
  return _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(static_cast<char>(c)));
}

__attribute__((target("avx512f,avx512bw"))) void ClassifyAvx512(const unsigned char* p, size_t n, ByteClasses* out,
                                                                unsigned char* lowered) {
  const __m512i k20 = _mm512_set1_epi8(0x20);
  const __m512i ka = _mm512_set1_epi8('a');
  const __m512i kA = _mm512_set1_epi8('A');
  const __m512i k0 = _mm512_set1_epi8('0');
  const __m512i k25 = _mm512_set1_epi8(25);
  const __m512i k9 = _mm512_set1_epi8(9);
  const __m512i kUnder = _mm512_set1_epi8('_');
  for (size_t base = 0; base < n; base += 64) {
    // The tail is loaded under a mask: bytes past n read as 0, never touched.
    const size_t len = n - base;
    const __mmask64 valid = len >= 64 ? ~__mmask64{0} : (__mmask64{1} << len) - 1;
    const __m512i v = _mm512_maskz_loadu_epi8(valid, p + base);
    const __mmask64 hi = _mm512_movepi8_mask(v);
    const __mmask64 letter = _mm512_cmple_epu8_mask(_mm512_sub_epi8(_mm512_or_si512(v, k20), ka), k25);
    const __mmask64 up = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, kA), k25);
    _mm512_storeu_si512(lowered + base, _mm512_mask_add_epi8(v, up, v, k20));
    const __mmask64 digit = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, k0), k9);
    const __mmask64 under = _mm512_cmpeq_epi8_mask(v, kUnder);
    const __mmask64 lead =
        _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8(static_cast<char>(0xC3))), _mm512_set1_epi8(7)) |
        _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8(static_cast<char>(0xD0))), _mm512_set1_epi8(3));
    const __mmask64 cont = _mm512_cmpeq_epi8_mask(_mm512_and_si512(v, _mm512_set1_epi8(static_cast<char>(0xC0))),
                                                  _mm512_set1_epi8(static_cast<char>(0x80)));
    out[base / 64] = {
        (letter | digit | under) & ~hi, hi, up & ~hi,
        WordPairs(lead, cont, Eq512(v, 0xC3), Eq512(v, 0x97) | Eq512(v, 0xB7), Eq512(v, 0xD2), Eq512(v, 0x82))};
  }
}

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) size_t CleanPrefixAvx512(const unsigned char* p,
                                                                                const CleanTables& tables) {
  const __m512i v = _mm512_loadu_si512(p);      // byte j
  const __m512i w = _mm512_loadu_si512(p + 1);  // byte j + 1
  const __m512i x = _mm512_loadu_si512(p + 2);  // byte j + 2
  const __m512i kc0 = _mm512_set1_epi8(static_cast<char>(0xC0));
  const __m512i k80 = _mm512_set1_epi8(static_cast<char>(0x80));
  const __mmask64 high = _mm512_movepi8_mask(v);
  const __mmask64 upper = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8('A')), _mm512_set1_epi8(25));
  const __mmask64 lead2 = _mm512_cmpeq_epi8_mask(_mm512_and_si512(v, _mm512_set1_epi8(static_cast<char>(0xE0))), kc0);
  const __mmask64 cont_w = _mm512_cmpeq_epi8_mask(_mm512_and_si512(w, kc0), k80);
  const __mmask64 cont_x = _mm512_cmpeq_epi8_mask(_mm512_and_si512(x, kc0), k80);
  // vpermb indexes with the low 6 bits of each byte. (The zero-masked form:
  // GCC 12 warns on the plain one's undefined source.)
  const __mmask64 all = ~__mmask64{0};
  const __m512i lead_bits = _mm512_maskz_permutexvar_epi8(all, v, _mm512_load_si512(tables.lead));
  const __m512i cont_bits = _mm512_maskz_permutexvar_epi8(all, w, _mm512_load_si512(tables.cont));
  const __m512i e280_bits = _mm512_maskz_permutexvar_epi8(all, x, _mm512_load_si512(tables.e280));
  const __mmask64 pair = lead2 & cont_w & _mm512_test_epi8_mask(lead_bits, cont_bits);
  const __mmask64 triple = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(static_cast<char>(0xE2))) &
                           _mm512_cmpeq_epi8_mask(w, k80) & cont_x & _mm512_test_epi8_mask(e280_bits, e280_bits);
  const uint64_t ok = pair | (pair << 1) | triple | (triple << 1) | (triple << 2);
  const uint64_t bad = (high & ~ok) | (upper & _mm512_movepi8_mask(w));
  if ((bad & 1) != 0) return 0;
  size_t cut = bad == 0 ? 63 : static_cast<size_t>(__builtin_ctzll(bad)) - 1;
  // Back to the start of the character holding byte `cut`.
  while (cut > 0 && (p[cut] & 0xC0) == 0x80) --cut;
  return cut;
}

// x ^= x >> shift, in each lane.
__attribute__((target("avx512f"))) static inline __m512i XorShift(__m512i x, unsigned shift) {
  // (The masked form: GCC 12 warns on the plain one's undefined source.)
  return _mm512_xor_si512(x, _mm512_maskz_srli_epi64(0xFF, x, shift));
}

// Eight shingles ending at consecutive tokens, in lanes; `lanes` masks the
// loads and the store at the end of the range.
__attribute__((target("avx512f,avx512dq"))) static inline void HashEight(const uint64_t* tokens, int k, __m512i seed,
                                                                         __mmask8 lanes, uint64_t* out) {
  const __m512i mul = _mm512_set1_epi64(static_cast<long long>(0x9e3779b97f4a7c15ULL));
  __m512i h = seed;
  for (int j = 0; j < k; ++j) {
    const __m512i t = _mm512_maskz_loadu_epi64(lanes, tokens + j);
    h = XorShift(_mm512_mullo_epi64(_mm512_xor_si512(h, t), mul), 29);
  }
  // Mix64, the MurmurHash3 finalizer (src/base/hash.h).
  h = XorShift(h, 33);
  h = _mm512_mullo_epi64(h, _mm512_set1_epi64(static_cast<long long>(0xff51afd7ed558ccdULL)));
  h = XorShift(h, 33);
  h = _mm512_mullo_epi64(h, _mm512_set1_epi64(static_cast<long long>(0xc4ceb9fe1a85ec53ULL)));
  h = XorShift(h, 33);
  _mm512_mask_storeu_epi64(out, lanes, h);
}

__attribute__((target("avx512f,avx512dq"))) void HashShinglesAvx512(const uint64_t* tokens, size_t count, int k,
                                                                    uint64_t seed, uint64_t* out) {
  const __m512i s = _mm512_set1_epi64(static_cast<long long>(seed));
  size_t i = 0;
  for (; i + 8 <= count; i += 8) HashEight(tokens + i, k, s, 0xFF, out + i);
  if (i < count) {
    HashEight(tokens + i, k, s, static_cast<__mmask8>((1u << (count - i)) - 1), out + i);
  }
}

// Word hashes (src/text/word_hash.h), eight words at a time.
#define NEARDUP_WORD_TARGET __attribute__((target("avx512f,avx512dq,avx512bw")))

NEARDUP_WORD_TARGET static inline __m512i Set(uint64_t x) { return _mm512_set1_epi64(static_cast<long long>(x)); }

// XXH3_mul128_fold64 in each lane: the low and the high 64 bits of the
// 128-bit product a * b, xored, from four 32x32->64 bit products.
NEARDUP_WORD_TARGET static inline __m512i Mul128Fold(__m512i a, __m512i b) {
  const __m512i low32 = Set(0xFFFFFFFFu);
  const __m512i a_hi = _mm512_maskz_srli_epi64(0xFF, a, 32);
  const __m512i b_hi = _mm512_maskz_srli_epi64(0xFF, b, 32);
  const __m512i p0 = _mm512_maskz_mul_epu32(0xFF, a, b);
  const __m512i p1 = _mm512_maskz_mul_epu32(0xFF, a, b_hi);
  const __m512i p2 = _mm512_maskz_mul_epu32(0xFF, a_hi, b);
  const __m512i p3 = _mm512_maskz_mul_epu32(0xFF, a_hi, b_hi);
  // The bits 32..95 of the product before the carries into the high half.
  const __m512i mid =
      _mm512_add_epi64(_mm512_add_epi64(_mm512_maskz_srli_epi64(0xFF, p0, 32), _mm512_and_si512(p1, low32)),
                       _mm512_and_si512(p2, low32));
  const __m512i high =
      _mm512_add_epi64(_mm512_add_epi64(p3, _mm512_maskz_srli_epi64(0xFF, p1, 32)),
                       _mm512_add_epi64(_mm512_maskz_srli_epi64(0xFF, p2, 32), _mm512_maskz_srli_epi64(0xFF, mid, 32)));
  const __m512i low = _mm512_or_si512(_mm512_maskz_slli_epi64(0xFF, mid, 32), _mm512_and_si512(p0, low32));
  return _mm512_xor_si512(low, high);
}

// ShortWordHasher::Hash for the eight words whose starts and ends are in
// lanes; `lanes` masks the loads and the store at the end of the range.
// Returns the lanes of words longer than 16 bytes, whose values the caller
// replaces.
NEARDUP_WORD_TARGET static inline __mmask8 HashEightWords(const ShortWordHasher& hasher, const unsigned char* base,
                                                          __m512i start, __m512i end, __mmask8 lanes, uint64_t* out) {
  const __m512i len = _mm512_sub_epi64(end, start);
  const __m512i head = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), lanes, start, base, 1);
  const __m512i tail =
      _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), lanes, _mm512_sub_epi64(end, Set(8)), base, 1);
  const __m512i byte = Set(0xFF);

  // 1-3 bytes: the first, middle and last byte, and the length; XXH64's
  // avalanche.
  const __m512i c1 = _mm512_and_si512(head, byte);
  const __m512i middle =
      _mm512_and_si512(_mm512_maskz_slli_epi64(0xFF, _mm512_maskz_srli_epi64(0xFF, len, 1), 3), Set(63));
  const __m512i c2 = _mm512_and_si512(_mm512_maskz_srlv_epi64(0xFF, head, middle), byte);
  const __m512i c3 = _mm512_maskz_srli_epi64(0xFF, tail, 56);
  __m512i h1 =
      _mm512_or_si512(_mm512_or_si512(_mm512_maskz_slli_epi64(0xFF, c1, 16), _mm512_maskz_slli_epi64(0xFF, c2, 24)),
                      _mm512_or_si512(c3, _mm512_maskz_slli_epi64(0xFF, len, 8)));
  h1 = XorShift(_mm512_xor_si512(h1, Set(hasher.flip_1to3())), 33);
  h1 = XorShift(_mm512_mullo_epi64(h1, Set(XXH_PRIME64_2)), 29);
  h1 = XorShift(_mm512_mullo_epi64(h1, Set(XXH_PRIME64_3)), 32);

  // 4-8 bytes: the first and the last four; XXH3_rrmxmx.
  __m512i h4 = _mm512_add_epi64(_mm512_maskz_srli_epi64(0xFF, tail, 32), _mm512_maskz_slli_epi64(0xFF, head, 32));
  h4 = _mm512_xor_si512(h4, Set(hasher.flip_4to8()));
  h4 = _mm512_ternarylogic_epi64(h4, _mm512_maskz_rol_epi64(0xFF, h4, 49), _mm512_maskz_rol_epi64(0xFF, h4, 24),
                                 0x96);  // a^b^c
  const __m512i mx2 = Set(0x9FB21C651E98DF25ULL);
  h4 = _mm512_mullo_epi64(h4, mx2);
  h4 = _mm512_xor_si512(h4, _mm512_add_epi64(_mm512_maskz_srli_epi64(0xFF, h4, 35), len));
  h4 = XorShift(_mm512_mullo_epi64(h4, mx2), 28);

  // 9-16 bytes: the first and the last eight; XXH3's avalanche.
  const __m512i lo = _mm512_xor_si512(head, Set(hasher.flip_lo()));
  const __m512i hi = _mm512_xor_si512(tail, Set(hasher.flip_hi()));
  const __m512i swap =
      _mm512_set4_epi64(0x08090A0B0C0D0E0FLL, 0x0001020304050607LL, 0x08090A0B0C0D0E0FLL, 0x0001020304050607LL);
  __m512i h9 =
      _mm512_add_epi64(_mm512_add_epi64(len, _mm512_shuffle_epi8(lo, swap)), _mm512_add_epi64(hi, Mul128Fold(lo, hi)));
  h9 = XorShift(h9, 37);
  h9 = XorShift(_mm512_mullo_epi64(h9, Set(0x165667919E3779F9ULL)), 32);

  const __mmask8 up_to_3 = _mm512_cmple_epu64_mask(len, Set(3));
  const __mmask8 up_to_8 = _mm512_cmple_epu64_mask(len, Set(8));
  const __m512i h = _mm512_mask_blend_epi64(up_to_3, _mm512_mask_blend_epi64(up_to_8, h9, h4), h1);
  _mm512_mask_storeu_epi64(out, lanes, h);
  return _mm512_mask_cmpgt_epu64_mask(lanes, len, Set(16));
}

NEARDUP_WORD_TARGET void HashWordsAvx512(const ShortWordHasher& hasher, const WordSpans& words, uint64_t* out) {
  // Gather indices are relative to `base`, the text's position 0.
  const __m512i origin = Set(words.origin);
  const unsigned char* base = words.text;
  for (size_t i = 0; i < words.count; i += 8) {
    const size_t left = words.count - i;
    const auto lanes = static_cast<__mmask8>(left >= 8 ? 0xFF : (1u << left) - 1);
    const __m512i start = _mm512_sub_epi64(_mm512_maskz_loadu_epi64(lanes, words.starts + i), origin);
    const __m512i end = _mm512_sub_epi64(_mm512_maskz_loadu_epi64(lanes, words.ends + i), origin);
    // Words of more than 16 bytes (rare in text) are hashed whole.
    auto longer = static_cast<unsigned>(HashEightWords(hasher, base, start, end, lanes, out + i));
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

ShingleHashFn ShingleHasherFor(TokenizerKernel kernel) {
#ifdef NEARDUP_X86_KERNELS
  if (kernel == TokenizerKernel::kAvx512 && __builtin_cpu_supports("avx512dq")) {
    return HashShinglesAvx512;
  }
  // AVX-512BW implies AVX2.
  if (kernel == TokenizerKernel::kAvx2 || kernel == TokenizerKernel::kAvx512) return HashShinglesAvx2;
#else
  (void)kernel;
#endif
  return nullptr;
}

WordHashFn WordHasherFor(TokenizerKernel kernel) {
#ifdef NEARDUP_X86_KERNELS
  if (kernel == TokenizerKernel::kAvx512 && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw")) {
    return HashWordsAvx512;
  }
  if (kernel == TokenizerKernel::kAvx2 || kernel == TokenizerKernel::kAvx512) return HashWordsAvx2;
#else
  (void)kernel;
#endif
  return nullptr;
}

CleanPrefixFn CleanPrefixFor(TokenizerKernel kernel) {
  switch (kernel) {
    case TokenizerKernel::kBaseline:
      return nullptr;
#ifdef NEARDUP_X86_KERNELS
    case TokenizerKernel::kAvx512:
      if (__builtin_cpu_supports("avx512vbmi")) return CleanPrefixAvx512;
      return CleanPrefixAvx2;  // AVX-512BW implies AVX2
    case TokenizerKernel::kAvx2:
      return CleanPrefixAvx2;
#endif
    default:
      return CleanPrefixPortable;
  }
}

bool TokenizerKernelSupported(TokenizerKernel kernel) {
  switch (kernel) {
    case TokenizerKernel::kBaseline:
    case TokenizerKernel::kPortable:
      return true;
    case TokenizerKernel::kAvx2:
#ifdef NEARDUP_X86_KERNELS
      return __builtin_cpu_supports("avx2");
#else
      return false;
#endif
    case TokenizerKernel::kAvx512:
#ifdef NEARDUP_X86_KERNELS
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#else
      return false;
#endif
  }
  return false;
}

ClassifyFn ClassifierFor(TokenizerKernel kernel) {
  switch (kernel) {
    case TokenizerKernel::kBaseline:
      return nullptr;
    case TokenizerKernel::kPortable:
      return ClassifyPortable;
#ifdef NEARDUP_X86_KERNELS
    case TokenizerKernel::kAvx2:
      return ClassifyAvx2;
    case TokenizerKernel::kAvx512:
      return ClassifyAvx512;
#else
    default:
      break;
#endif
  }
  return nullptr;
}

TokenizerKernel DefaultTokenizerKernel() {
  const int forced = g_override.load(std::memory_order_relaxed);
  if (forced >= 0) return static_cast<TokenizerKernel>(forced);
  static const TokenizerKernel best = [] {
    if (TokenizerKernelSupported(TokenizerKernel::kAvx512)) return TokenizerKernel::kAvx512;
    if (TokenizerKernelSupported(TokenizerKernel::kAvx2)) return TokenizerKernel::kAvx2;
    // Without vector compares, classifying a byte at a time is no faster
    // than the scalar tokenizer.
    return TokenizerKernel::kBaseline;
  }();
  return best;
}

void SetTokenizerKernelOverride(TokenizerKernel kernel) {
  g_override.store(static_cast<int>(kernel), std::memory_order_relaxed);
}

void ClearTokenizerKernelOverride() { g_override.store(-1, std::memory_order_relaxed); }

}  // namespace neardup::internal
