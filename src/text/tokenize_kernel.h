// The tokenizer's byte classifier: 64 bytes of text at a time into bitmasks,
// as simdjson's stage 1 finds structural characters. Internal to the core.
//
// For text p[0..n), block b covers bytes [64b, 64b + 64); bit j of a block's
// mask stands for byte 64b + j:
//   word   an ASCII word character: letter, digit or '_';
//   high   a byte >= 0x80 (part of a non-ASCII character);
//   upper  an ASCII uppercase letter;
//   pair   a byte of a two-byte character that is surely a word character
//          of a script written with spaces: a lead byte C3..CA or D0..D3
//          (Latin-1 letters, Latin Extended-A/B, IPA, Cyrillic) followed, in
//          the same block, by a continuation byte, except U+00D7 (C3 97),
//          U+00F7 (C3 B7) and U+0482 (D2 82); both bytes are marked.
// Bits past n are 0. Each classifier also writes the text with its ASCII
// capitals lowercased to lowered[0..n) (other bytes copied), and may write
// anything to lowered[n .. 64 * blocks): the Shingler hashes words from this
// copy. (tests/text/tokenize_kernel_test.cc checks every pair
// against the tokenizer's code point classes.) The Shingler (src/text/shingle.cc) finds words from these
// masks with bit arithmetic instead of a branch per byte.
//
// Each classifier is compiled for its own target (AVX-512BW, AVX2) with
// GCC target attributes and chosen at run time from what the processor
// supports (DefaultTokenizerKernel); the portable one is the reference.
// tests/text/tokenize_kernel_test.cc runs every kernel this machine supports
// side by side on the same texts.
//
// Thread safety: pure functions; the kernel override is for tests only and
// must be set before Shinglers are made.
#pragma once

#include <cstddef>
#include <cstdint>

namespace neardup::internal {

enum class TokenizerKernel {
  kBaseline,  // the scalar tokenizer, byte by byte (no classifier): the reference
  kPortable,  // masks computed a byte at a time, portable C++
  kAvx2,      // masks from 32-byte AVX2 compares
  kAvx512,    // masks from 64-byte AVX-512BW compares
};

struct ByteClasses {
  uint64_t word;
  uint64_t high;
  uint64_t upper;
  uint64_t pair;
};

// The `pair` mask from per-byte masks of one block: lead (C3..CA, D0..D3),
// cont (80..BF), c3 / d2 (the lead bytes with exceptions), not_c3 (97, B7)
// and not_d2 (82), the second bytes those leads do not take.
inline uint64_t WordPairs(uint64_t lead, uint64_t cont, uint64_t c3, uint64_t not_c3, uint64_t d2, uint64_t not_d2) {
  const uint64_t first = lead & (cont >> 1) & ~(c3 & (not_c3 >> 1)) & ~(d2 & (not_d2 >> 1));
  return first | (first << 1);
}

// Fills out[0 .. blocks) and lowered[0 .. 64 * blocks) for p[0..n), where
// blocks = (n + 63) / 64. The kernel must be supported.
using ClassifyFn = void (*)(const unsigned char* p, size_t n, ByteClasses* out, unsigned char* lowered);

void ClassifyPortable(const unsigned char* p, size_t n, ByteClasses* out, unsigned char* lowered);
#if defined(__x86_64__) && defined(__GNUC__)
void ClassifyAvx2(const unsigned char* p, size_t n, ByteClasses* out, unsigned char* lowered);
void ClassifyAvx512(const unsigned char* p, size_t n, ByteClasses* out, unsigned char* lowered);
#endif

// Shingle hashes: out[i] = the hash of the shingle tokens[i .. i + k), for
// i in [0, count), with the formula of src/text/shingle.cc's ShingleHash (a
// multiply-xorshift chain over the k token hashes from `seed`, then Mix64).
using ShingleHashFn = void (*)(const uint64_t* tokens, size_t count, int k, uint64_t seed, uint64_t* out);
#if defined(__x86_64__) && defined(__GNUC__)
// Eight shingles at a time in 64-bit lanes (AVX-512F + DQ: vpmullq).
void HashShinglesAvx512(const uint64_t* tokens, size_t count, int k, uint64_t seed, uint64_t* out);
// Four at a time (AVX2; the 64-bit multiplies from 32-bit ones), in
// src/text/hash_kernel_avx2.cc.
void HashShinglesAvx2(const uint64_t* tokens, size_t count, int k, uint64_t seed, uint64_t* out);
#endif
// The vector shingle hasher that goes with `kernel`, or nullptr when there
// is none (the Shingler's scalar loop is then used). REQUIRES: supported.
ShingleHashFn ShingleHasherFor(TokenizerKernel kernel);

// The Normalizer's clean-prefix scan. A text that is already normalized
// (lowercase ASCII, inert two-byte letters such as U+00E9, inert punctuation
// such as U+2019) needs no work: the Normalizer copies a clean prefix of up
// to 64 bytes at a time instead of deciding it a character at a time.
//
// A character is clean when it is
//   - ASCII, except an uppercase letter followed by a byte >= 0x80 (the
//     Normalizer case folds those, see src/text/normalize.cc);
//   - two bytes L C with lead[L & 0x1F] & cont[C & 0x3F] != 0 (L in C0..DF,
//     C a continuation byte);
//   - three bytes E2 80 C with e280[C & 0x3F] != 0 (U+2000..U+203F).
// The Normalizer fills the tables from its own classes: only characters that
// normalize to themselves and may be cut before (inert) are accepted.
struct CleanTables {
  alignas(64) uint8_t lead[64];  // [L & 0x3F] for L in C0..DF: one bit per
                                 // accepted lead byte; entries 32..63 are 0
  alignas(64) uint8_t cont[64];  // [C & 0x3F]: the bits of the leads L for
                                 // which L C is clean
  alignas(64) uint8_t e280[64];  // [C & 0x3F]: 0xFF when E2 80 C is clean
};

// Follows the run of clean characters that starts at p[0] until it ends or
// reaches p[64], and returns where the last of them starts: p[0..result) is
// whole clean characters and the character at p[result] is clean too (so it
// is a boundary: what follows the run may combine with the last clean
// character, never with those before it). 0 when fewer than two characters
// from p[0] on are clean. Reads p[0..66). Results are the same for every
// kernel and any tables (tests/text/normalize_test.cc).
using CleanPrefixFn = size_t (*)(const unsigned char* p, const CleanTables& tables);
// Bytes CleanPrefixFn reads.
inline constexpr size_t kCleanPrefixReads = 66;
size_t CleanPrefixPortable(const unsigned char* p, const CleanTables& tables);
#if defined(__x86_64__) && defined(__GNUC__)
// AVX-512BW + VBMI (byte permutes for the table lookups).
size_t CleanPrefixAvx512(const unsigned char* p, const CleanTables& tables);
// AVX2 (pshufb lookups).
size_t CleanPrefixAvx2(const unsigned char* p, const CleanTables& tables);
#endif
// The clean-prefix scan that goes with `kernel`; nullptr for kBaseline (the
// Normalizer then decides every character, the reference). REQUIRES: supported.
CleanPrefixFn CleanPrefixFor(TokenizerKernel kernel);

// True when this processor (and build) can run `kernel`.
bool TokenizerKernelSupported(TokenizerKernel kernel);
// The classifier of `kernel`; nullptr for kBaseline. REQUIRES: supported.
ClassifyFn ClassifierFor(TokenizerKernel kernel);
// The kernel new Shinglers use: the override if set, else the fastest
// supported one.
TokenizerKernel DefaultTokenizerKernel();
// Tests only: makes Shinglers created afterwards use `kernel` (REQUIRES:
// supported). ClearTokenizerKernelOverride() restores the default.
void SetTokenizerKernelOverride(TokenizerKernel kernel);
void ClearTokenizerKernelOverride();

}  // namespace neardup::internal
