// The vector word hasher gives XXH3's value for every word.
//
// src/text/word_hash.cc hashes eight words at a time (gathered loads, the
// three short XXH3 formulas side by side, the 64x64->128 multiply from
// 32-bit products); a word of more than 16 bytes takes HashBytes. Here its
// output is compared with HashBytes for words of every length from 1 to 40
// at random places in random bytes, with several seeds and every count of
// words from 0 to 40 (so every mask of the last, partial group of eight).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "base/hash.h"
#include "text/tokenize_kernel.h"
#include "text/word_hash.h"

namespace neardup {
namespace {

using internal::TokenizerKernel;

uint64_t SplitMix(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Random bytes with 16 bytes of slack on either side of the words, as the
// Shingler's lowered window has, and `count` words of random lengths in
// [1, max_len] at random places among them.
struct Text {
  std::vector<unsigned char> bytes;
  std::vector<size_t> starts;
  std::vector<size_t> ends;
};
Text RandomWords(uint64_t* rng, size_t count, size_t max_len) {
  constexpr size_t kPad = 16;
  Text t;
  t.bytes.resize(kPad + 4096 + kPad);
  for (unsigned char& b : t.bytes) b = static_cast<unsigned char>(SplitMix(rng));
  for (size_t i = 0; i < count; ++i) {
    const size_t len = 1 + SplitMix(rng) % max_len;
    const size_t start = kPad + SplitMix(rng) % (4096 - len);
    t.starts.push_back(start);
    t.ends.push_back(start + len);
  }
  return t;
}

TEST(WordHashTest, VectorHasherIsXxh3ForEveryLengthAndCount) {
  const internal::WordHashFn hash = internal::WordHasherFor(TokenizerKernel::kAvx512);
  if (!internal::TokenizerKernelSupported(TokenizerKernel::kAvx512) || hash == nullptr) {
    GTEST_SKIP() << "this processor has no AVX-512 (F, DQ, BW)";
  }
  uint64_t rng = 42;
  for (const uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{0x9e3779b97f4a7c15ULL}, SplitMix(&rng)}) {
    const internal::ShortWordHasher hasher(seed);
    for (size_t count = 0; count <= 40; ++count) {
      const Text t = RandomWords(&rng, count, 40);
      // Positions as the Shingler gives them: from an origin other than 0.
      const size_t origin = 1000;
      std::vector<size_t> starts, ends;
      for (size_t i = 0; i < count; ++i) {
        starts.push_back(t.starts[i] + origin);
        ends.push_back(t.ends[i] + origin);
      }
      std::vector<uint64_t> got(count + 1, 0x5555);
      hash(hasher, {.text = t.bytes.data(), .origin = origin, .starts = starts.data(), .ends = ends.data(),
                    .count = count},
           got.data());
      for (size_t i = 0; i < count; ++i) {
        const size_t len = t.ends[i] - t.starts[i];
        ASSERT_EQ(got[i], HashBytes(t.bytes.data() + t.starts[i], len, seed))
            << "seed " << seed << ", word " << i << " of " << count << ", " << len << " bytes";
      }
      EXPECT_EQ(got[count], 0x5555u) << "wrote past the last word";
    }
  }
}

TEST(WordHashTest, EveryLengthFromOneToFortyAgreesInEachLane) {
  const internal::WordHashFn hash = internal::WordHasherFor(TokenizerKernel::kAvx512);
  if (!internal::TokenizerKernelSupported(TokenizerKernel::kAvx512) || hash == nullptr) {
    GTEST_SKIP() << "this processor has no AVX-512 (F, DQ, BW)";
  }
  // Eight words of the same length in one group, for every length: each
  // formula and the choice between them, in every lane.
  uint64_t rng = 7;
  const internal::ShortWordHasher hasher(12345);
  for (size_t len = 1; len <= 40; ++len) {
    Text t = RandomWords(&rng, 0, 1);
    for (size_t i = 0; i < 8; ++i) {
      t.starts.push_back(16 + i * 50);
      t.ends.push_back(16 + i * 50 + len);
    }
    std::vector<uint64_t> got(8);
    hash(hasher, {.text = t.bytes.data(), .origin = 0, .starts = t.starts.data(), .ends = t.ends.data(), .count = 8},
         got.data());
    for (size_t i = 0; i < 8; ++i) {
      ASSERT_EQ(got[i], HashBytes(t.bytes.data() + t.starts[i], len, 12345)) << len << " bytes, lane " << i;
    }
  }
}

TEST(WordHashTest, NoVectorHasherWithoutTheAvx512Kernel) {
  EXPECT_EQ(internal::WordHasherFor(TokenizerKernel::kBaseline), nullptr);
  EXPECT_EQ(internal::WordHasherFor(TokenizerKernel::kPortable), nullptr);
  EXPECT_EQ(internal::WordHasherFor(TokenizerKernel::kAvx2), nullptr);
}

}  // namespace
}  // namespace neardup
