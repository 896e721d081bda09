#include "sign/set_bitmap.h"

#include <algorithm>
#include <bit>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <cstdlib>

namespace neardup {

namespace {

// The 32 bits 2i | 2i+1 of a word, in order.
inline uint64_t FoldWord(uint64_t w) {
  uint64_t x = (w | (w >> 1)) & 0x5555555555555555ULL;
  x = (x | (x >> 1)) & 0x3333333333333333ULL;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
  return x;
}

struct BitCounts {
  uint64_t x = 0;     // bits of x
  uint64_t both = 0;  // bits of x & y
};

// Without the popcnt instruction std::popcount is a library call a word; the
// counts are most of a bound's time, so they are built twice and chosen once.
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("popcnt"))) BitCounts CountBitsPopcnt(const uint64_t* x, const uint64_t* y, size_t n) {
  BitCounts c;
  for (size_t k = 0; k < n; ++k) {
    c.x += static_cast<uint64_t>(__builtin_popcountll(x[k]));
    c.both += static_cast<uint64_t>(__builtin_popcountll(x[k] & y[k]));
  }
  return c;
}
#endif

BitCounts CountBitsPortable(const uint64_t* x, const uint64_t* y, size_t n) {
  BitCounts c;
  for (size_t k = 0; k < n; ++k) {
    c.x += static_cast<uint64_t>(std::popcount(x[k]));
    c.both += static_cast<uint64_t>(std::popcount(x[k] & y[k]));
  }
  return c;
}

#if defined(__x86_64__) && defined(__GNUC__)
// Eight words at a time (VPOPCNTQ), then the tail.
__attribute__((target("avx512f,avx512vpopcntdq,popcnt"))) BitCounts CountBitsAvx512(const uint64_t* x,
                                                                                    const uint64_t* y, size_t n) {
  __m512i in_x = _mm512_setzero_si512(), in_both = _mm512_setzero_si512();
  size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    const __m512i a = _mm512_loadu_si512(x + k);
    const __m512i b = _mm512_loadu_si512(y + k);
    in_x = _mm512_add_epi64(in_x, _mm512_popcnt_epi64(a));
    in_both = _mm512_add_epi64(in_both, _mm512_popcnt_epi64(_mm512_and_si512(a, b)));
  }
  // Lane sums through memory: GCC 12 warns of _mm512_reduce_add_epi64.
  alignas(64) uint64_t lanes_x[8], lanes_both[8];
  _mm512_store_si512(lanes_x, in_x);
  _mm512_store_si512(lanes_both, in_both);
  BitCounts c;
  for (int l = 0; l < 8; ++l) {
    c.x += lanes_x[l];
    c.both += lanes_both[l];
  }
  for (; k < n; ++k) {
    c.x += static_cast<uint64_t>(__builtin_popcountll(x[k]));
    c.both += static_cast<uint64_t>(__builtin_popcountll(x[k] & y[k]));
  }
  return c;
}
#endif

using CountFn = BitCounts (*)(const uint64_t*, const uint64_t*, size_t);

CountFn ChooseCount() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx512vpopcntdq") && __builtin_cpu_supports("avx512f")) return CountBitsAvx512;
  if (__builtin_cpu_supports("popcnt")) return CountBitsPopcnt;
#endif
  return CountBitsPortable;
}

BitCounts CountBits(const uint64_t* x, const uint64_t* y, size_t n) {
  static const CountFn count = ChooseCount();
  return count(x, y, n);
}

}  // namespace

namespace internal {

// Word k is written after words 2k and 2k+1 are read, so in place is safe.
void FoldBitmapPortable(uint64_t* words, size_t n) {
  for (size_t k = 0; k < n / 2; ++k) words[k] = FoldWord(words[2 * k]) | (FoldWord(words[2 * k + 1]) << 32);
}

#if defined(__x86_64__) && defined(__GNUC__)
bool FoldBitmapAvx512Supported() { return __builtin_cpu_supports("avx512f"); }

// Eight words at a time: the same steps as FoldWord in each lane, then the
// lanes' low halves packed into four words (VPMOVQD keeps lane order, so word
// k gets lanes 2k and 2k+1). Words 4j.. are written after words 8j.. are read.
__attribute__((target("avx512f"))) void FoldBitmapAvx512(uint64_t* words, size_t n) {
  // The zero-masked forms: GCC 12 warns of the others' undefined inputs.
  const __mmask8 kAll = 0xFF;
  size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    __m512i x = _mm512_loadu_si512(words + k);
    x = _mm512_and_si512(_mm512_or_si512(x, _mm512_maskz_srli_epi64(kAll, x, 1)),
                         _mm512_set1_epi64(0x5555555555555555LL));
    x = _mm512_and_si512(_mm512_or_si512(x, _mm512_maskz_srli_epi64(kAll, x, 1)),
                         _mm512_set1_epi64(0x3333333333333333LL));
    x = _mm512_and_si512(_mm512_or_si512(x, _mm512_maskz_srli_epi64(kAll, x, 2)),
                         _mm512_set1_epi64(0x0F0F0F0F0F0F0F0FLL));
    x = _mm512_and_si512(_mm512_or_si512(x, _mm512_maskz_srli_epi64(kAll, x, 4)),
                         _mm512_set1_epi64(0x00FF00FF00FF00FFLL));
    x = _mm512_and_si512(_mm512_or_si512(x, _mm512_maskz_srli_epi64(kAll, x, 8)),
                         _mm512_set1_epi64(0x0000FFFF0000FFFFLL));
    x = _mm512_or_si512(x, _mm512_maskz_srli_epi64(kAll, x, 16));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(words + k / 2), _mm512_maskz_cvtepi64_epi32(kAll, x));
  }
  for (; k < n; k += 2) words[k / 2] = FoldWord(words[k]) | (FoldWord(words[k + 1]) << 32);
}

bool FoldBitmapAvx2Supported() { return __builtin_cpu_supports("avx2"); }

// Four words at a time, as the AVX-512 version does eight: the lanes' low
// halves gathered into the vector's low 128 bits (word k gets lanes 2k and
// 2k+1). Words 2j.. are written after words 4j.. are read.
__attribute__((target("avx2"))) void FoldBitmapAvx2(uint64_t* words, size_t n) {
  const __m256i low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0);
  size_t k = 0;
  for (; k + 4 <= n; k += 4) {
    __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + k));
    x = _mm256_and_si256(_mm256_or_si256(x, _mm256_srli_epi64(x, 1)), _mm256_set1_epi64x(0x5555555555555555LL));
    x = _mm256_and_si256(_mm256_or_si256(x, _mm256_srli_epi64(x, 1)), _mm256_set1_epi64x(0x3333333333333333LL));
    x = _mm256_and_si256(_mm256_or_si256(x, _mm256_srli_epi64(x, 2)), _mm256_set1_epi64x(0x0F0F0F0F0F0F0F0FLL));
    x = _mm256_and_si256(_mm256_or_si256(x, _mm256_srli_epi64(x, 4)), _mm256_set1_epi64x(0x00FF00FF00FF00FFLL));
    x = _mm256_and_si256(_mm256_or_si256(x, _mm256_srli_epi64(x, 8)), _mm256_set1_epi64x(0x0000FFFF0000FFFFLL));
    x = _mm256_or_si256(x, _mm256_srli_epi64(x, 16));
    x = _mm256_permutevar8x32_epi32(x, low_halves);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(words + k / 2), _mm256_castsi256_si128(x));
  }
  for (; k < n; k += 2) words[k / 2] = FoldWord(words[k]) | (FoldWord(words[k + 1]) << 32);
}
#else
bool FoldBitmapAvx512Supported() { return false; }
void FoldBitmapAvx512(uint64_t* words, size_t n) { FoldBitmapPortable(words, n); }
bool FoldBitmapAvx2Supported() { return false; }
void FoldBitmapAvx2(uint64_t* words, size_t n) { FoldBitmapPortable(words, n); }
#endif

void FoldBitmap(uint64_t* words, size_t n) {
  using FoldFn = void (*)(uint64_t*, size_t);
  static const FoldFn fold = FoldBitmapAvx512Supported() ? FoldBitmapAvx512
                             : FoldBitmapAvx2Supported() ? FoldBitmapAvx2
                                                         : FoldBitmapPortable;
  fold(words, n);
}

}  // namespace internal

void SetBitmapBuilder::Begin(uint64_t bytes) {
  hashes_ = 0;
  repeats_ = 0;
  met_ = 0;
  if (bytes == 0) {
    level_ = 0;
    return;
  }
  // Twice the bits Finish() keeps at most: 8 bits a byte, so that few
  // different hashes share a bit here, and the repeats are told from them.
  level_ = std::clamp(static_cast<int>(std::bit_width(bytes)) + 2, kMinLevel, kMaxLevel);
  scratch_.assign(size_t{1} << (level_ - 6), 0);
  find_repeats_ = level_ <= kSlotLevel;
  if (find_repeats_ && slots_.size() < (size_t{1} << level_)) slots_.resize(size_t{1} << level_);
}

void SetBitmapBuilder::Add(std::span<const uint64_t> hashes) {
  if (level_ == 0) return;
  hashes_ += hashes.size();
  const int shift = 64 - level_;
  uint64_t* w = scratch_.data();
  if (!find_repeats_) {
    uint64_t met = 0;
    for (const uint64_t h : hashes) {
      const uint64_t i = h >> shift;
      const uint64_t bit = uint64_t{1} << (i & 63);
      met += static_cast<uint64_t>((w[i >> 6] & bit) != 0);
      w[i >> 6] |= bit;
    }
    met_ += met;
    return;
  }
  // Slot i holds the first hash that set bit i, once bit i is set (so stale
  // slots of earlier documents are never read). A hash that meets a
  // different one there is counted as new, even when it repeats: `most`
  // may only be too large.
  uint64_t* slots = slots_.data();
  uint64_t repeats = 0, met = 0;
  for (const uint64_t h : hashes) {
    const uint64_t i = h >> shift;
    const uint64_t bit = uint64_t{1} << (i & 63);
    if ((w[i >> 6] & bit) != 0) {
      ++met;
      repeats += static_cast<uint64_t>(slots[i] == h);
    } else {
      w[i >> 6] |= bit;
      slots[i] = h;
    }
  }
  repeats_ += repeats;
  met_ += met;
}

SetBitmap SetBitmapBuilder::Finish(uint64_t bytes) {
  SetBitmap out;
  const int level = level_;
  level_ = 0;
  if (level == 0 || hashes_ == 0 || bytes == 0) return out;
  size_t n = scratch_.size();
  out.least = hashes_ - met_;  // the bits set
  out.most = hashes_ - repeats_;
  // 8 to 16 bits a member, and no more than 4 bits a byte of text.
  const int by_bytes = std::clamp(static_cast<int>(std::bit_width(bytes)) + 1, kMinLevel, level);
  const int by_size = static_cast<int>(std::bit_width(out.most)) + 3;
  const int target = std::max(kMinLevel, std::min(by_bytes, by_size));
  for (int l = level; l > target; --l) {
    internal::FoldBitmap(scratch_.data(), n);
    n /= 2;
  }
  out.words.assign(scratch_.begin(), scratch_.begin() + static_cast<std::ptrdiff_t>(n));
  out.level = static_cast<uint8_t>(target);
  out.bits = CountBits(out.words.data(), out.words.data(), n).x;
  return out;
}

namespace {

// What JaccardBound() and ContainmentBound() share: an upper bound on
// |A n B| of the sets `a` and `b` were built from (REQUIRES: neither empty).
uint64_t CommonBound(const SetBitmap& a, const SetBitmap& b, std::vector<uint64_t>* scratch) {
  const SetBitmap* fine = &a;
  const SetBitmap* coarse = &b;
  if (fine->level < coarse->level) std::swap(fine, coarse);
  const uint64_t* x = fine->words.data();
  if (fine->level != coarse->level) {
    scratch->assign(fine->words.begin(), fine->words.end());
    size_t n = scratch->size();
    for (int l = fine->level; l > coarse->level; --l) {
      internal::FoldBitmap(scratch->data(), n);
      n /= 2;
    }
    x = scratch->data();
  }
  const BitCounts c = CountBits(x, coarse->words.data(), coarse->words.size());
  // A bit's members beyond its first, in each set, at the common level.
  const uint64_t extra = std::min(fine->most - c.x, coarse->most - coarse->bits);
  return std::min({c.both + extra, fine->most, coarse->most});
}

}  // namespace

double JaccardBound(const SetBitmap& a, const SetBitmap& b, std::vector<uint64_t>* scratch) {
  if (a.empty() || b.empty()) return 1.0;
  const uint64_t common = CommonBound(a, b, scratch);
  const uint64_t sizes = a.least + b.least;  // <= |A| + |B|
  if (2 * common >= sizes) return 1.0;       // the ratio below would be 1 or more
  return static_cast<double>(common) / static_cast<double>(sizes - common);
}

double ContainmentBound(const SetBitmap& a, const SetBitmap& b, std::vector<uint64_t>* scratch) {
  if (a.empty() || b.empty()) return 1.0;
  const uint64_t common = CommonBound(a, b, scratch);
  const uint64_t smaller = std::min(a.least, b.least);  // <= the smaller set's size
  if (common >= smaller) return 1.0;
  return static_cast<double>(common) / static_cast<double>(smaller);
}

}  // namespace neardup
