// ShortWordHasher: XXH3-64 with a seed of a word of 1 to 16 bytes, from two
// 8-byte loads and without a branch on the length. Internal to the core.
//
// XXH3 hashes inputs of 1-3, 4-8 and 9-16 bytes with three different short
// formulas (xxhash.h: XXH3_len_1to3_64b, _4to8_, _9to16_), chosen by
// branches on the length. Word lengths in text are random, so those branches
// are mispredicted about every other word. Here the three formulas are
// computed side by side from the same two loads and the one the length
// calls for is selected; the value is bit-identical to
// HashBytes(word, len, seed) (tests/text/tokenize_kernel_test.cc checks every
// length on random bytes and seeds). The formulas read only bytes inside the
// word, so the bytes the loads take from around it do not matter.
//
// HashWordsAvx512 (in src/text/tokenize_kernel.cc, beside the other vector
// kernels of the tokenizer) computes the same formulas for eight words at a
// time in 64-bit lanes (gathered loads, the 64x64->128 multiply of the 9-16
// byte formula from four 32-bit ones); WordHasherFor() picks it when the
// processor has AVX-512 (F, DQ, BW). HashWordsAvx2
// (src/text/hash_kernel_avx2.cc) does four words at a time with AVX2, for
// processors without AVX-512. tests/text/tokenize_kernel_test.cc checks both
// against HashBytes for every length from 1 to 40 on random bytes and seeds.
//
// Thread safety: immutable after construction; the hashers are pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "base/hash.h"
#include "text/tokenize_kernel.h"

namespace neardup::internal {

class ShortWordHasher {
 public:
  explicit ShortWordHasher(uint64_t seed) : seed_(seed) {
    const auto* s = XXH3_kSecret;
    flip_1to3_ = (XXH_readLE32(s) ^ XXH_readLE32(s + 4)) + seed;
    const uint64_t seed48 = seed ^ (uint64_t{XXH_swap32(static_cast<uint32_t>(seed))} << 32);
    flip_4to8_ = (XXH_readLE64(s + 8) ^ XXH_readLE64(s + 16)) - seed48;
    flip_lo_ = (XXH_readLE64(s + 24) ^ XXH_readLE64(s + 32)) + seed;
    flip_hi_ = (XXH_readLE64(s + 40) ^ XXH_readLE64(s + 48)) - seed;
  }

  // The 8 bytes at p, little-endian.
  static uint64_t Load(const unsigned char* p) {
    uint64_t x;
    std::memcpy(&x, p, 8);
    return XXH_readLE64(&x);
  }

  // HashBytes(word, len, seed), where head = Load(word) and tail =
  // Load(word + len - 8) (bytes outside the word are ignored).
  // REQUIRES: 1 <= len <= 16.
  [[gnu::always_inline]] uint64_t Hash(uint64_t head, uint64_t tail, size_t len) const {
    // 1-3 bytes: the first, middle and last byte, and the length.
    const uint64_t c1 = head & 0xFF;
    const uint64_t c2 = (head >> ((8 * (len >> 1)) & 63)) & 0xFF;
    const uint64_t c3 = tail >> 56;
    const uint64_t combined = (c1 << 16) | (c2 << 24) | c3 | (uint64_t{len} << 8);
    const uint64_t h1to3 = XXH64_avalanche(combined ^ flip_1to3_);
    // 4-8 bytes: the first and the last four.
    const uint64_t input64 = (tail >> 32) + ((head & 0xFFFFFFFFu) << 32);
    const uint64_t h4to8 = XXH3_rrmxmx(input64 ^ flip_4to8_, len);
    // 9-16 bytes: the first and the last eight.
    const uint64_t lo = head ^ flip_lo_;
    const uint64_t hi = tail ^ flip_hi_;
    const uint64_t h9to16 = XXH3_avalanche(len + XXH_swap64(lo) + hi + XXH3_mul128_fold64(lo, hi));
    return Select(len <= 3, h1to3, Select(len <= 8, h4to8, h9to16));
  }

  uint64_t seed() const { return seed_; }
  // The seeded secrets of the three formulas, for the vector hasher.
  uint64_t flip_1to3() const { return flip_1to3_; }
  uint64_t flip_4to8() const { return flip_4to8_; }
  uint64_t flip_lo() const { return flip_lo_; }
  uint64_t flip_hi() const { return flip_hi_; }

  // HashBytes(p, 3, seed): XXH3's formula for 1-3 bytes, for exactly three.
  [[gnu::always_inline]] uint64_t HashThreeBytes(const unsigned char* p) const {
    const uint64_t combined = (uint64_t{p[0]} << 16) | (uint64_t{p[1]} << 24) | p[2] | (3u << 8);
    return XXH64_avalanche(combined ^ flip_1to3_);
  }

 private:
  // cond ? x : y with masks. GCC turns a plain ?: here back into branches
  // that compute one formula each; the empty asm makes the values opaque,
  // so all three are computed and the choice costs no branch.
  [[gnu::always_inline]] static uint64_t Select(bool cond, uint64_t x, uint64_t y) {
    uint64_t mask = 0 - static_cast<uint64_t>(cond);
    asm("" : "+r"(mask), "+r"(x), "+r"(y));
    return (x & mask) | (y & ~mask);
  }

  uint64_t seed_;
  uint64_t flip_1to3_;
  uint64_t flip_4to8_;
  uint64_t flip_lo_;
  uint64_t flip_hi_;
};

// Words of one text, by position: word i is text[starts[i] - origin,
// ends[i] - origin), origin being the position of text[0]. Borrowed: the
// text and both arrays must outlive the call that takes them.
struct WordSpans {
  const unsigned char* text;
  size_t origin;
  const size_t* starts;
  const size_t* ends;
  size_t count;
};

// out[i] = HashBytes(word i, its length, hasher.seed()) for i < words.count.
// REQUIRES: every word is 1 byte long or more, and the 8 bytes from each
// word's start and the 8 ending at its end are readable (the Shingler's
// lowered window has that slack on either side).
using WordHashFn = void (*)(const ShortWordHasher& hasher, const WordSpans& words, uint64_t* out);
#if defined(__x86_64__) && defined(__GNUC__)
void HashWordsAvx512(const ShortWordHasher& hasher, const WordSpans& words, uint64_t* out);
void HashWordsAvx2(const ShortWordHasher& hasher, const WordSpans& words, uint64_t* out);
#endif
// The vector word hasher that goes with `kernel`, or nullptr when there is
// none (the Shingler then hashes a word at a time). REQUIRES: supported.
WordHashFn WordHasherFor(TokenizerKernel kernel);

}  // namespace neardup::internal
