// Every version of the MinHash kernel gives the same signatures.
//
// src/sign/minhash.cc compiles the kernel with GCC target_clones for AVX-512, AVX2
// and baseline x86-64, and the loader runs only the best one the processor
// has: on an AVX-512 machine the other two would never run in a test. Here the
// same body (src/sign/minhash_kernel.h) is compiled once per target under names of
// its own, and each is checked against what MinHasher gives through the
// production dispatch and against a plain scalar reference, on many random
// shingle sets. A version is skipped only when the processor cannot run it.
#include "sign/minhash_kernel.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "sign/minhash.h"

namespace neardup {
namespace {

using internal::kMinHashLanes;
using Kernel = void (*)(const uint32_t*, const uint32_t*, int, const uint64_t*, size_t, uint32_t*);

#if defined(__x86_64__)
__attribute__((target("avx512f"))) void KernelAvx512(const uint32_t* a, const uint32_t* b, int blocks,
                                                     const uint64_t* shingles, size_t n, uint32_t* sig) {
  internal::MinHashBlocks(a, b, blocks, shingles, n, sig);
}
__attribute__((target("avx2"))) void KernelAvx2(const uint32_t* a, const uint32_t* b, int blocks,
                                                const uint64_t* shingles, size_t n, uint32_t* sig) {
  internal::MinHashBlocks(a, b, blocks, shingles, n, sig);
}
#endif
// The test's own flags: baseline x86-64, as target_clones' "default" version.
void KernelBaseline(const uint32_t* a, const uint32_t* b, int blocks, const uint64_t* shingles, size_t n,
                    uint32_t* sig) {
  internal::MinHashBlocks(a, b, blocks, shingles, n, sig);
}

uint64_t SplitMix(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A MinHasher's multipliers and offsets, read back from its signatures of {0}
// (b_i) and {1} (a_i + b_i), padded to whole blocks with arbitrary values
// (their lanes are never compared).
struct Coefficients {
  std::vector<uint32_t> a, b;
};
Coefficients CoefficientsOf(const MinHasher& mh) {
  const int n = mh.num_perm();
  const int padded = (n + kMinHashLanes - 1) / kMinHashLanes * kMinHashLanes;
  const auto at0 = mh.Sign({0});
  const auto at1 = mh.Sign({1});
  Coefficients c{std::vector<uint32_t>(static_cast<size_t>(padded), 12345u),
                 std::vector<uint32_t>(static_cast<size_t>(padded), 678u)};
  for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
    c.b[i] = at0[i];
    c.a[i] = at1[i] - c.b[i];
  }
  return c;
}

// Plain scalar MinHash with the given coefficients.
std::vector<uint32_t> Reference(const Coefficients& c, int num_perm, const std::vector<uint64_t>& set) {
  std::vector<uint32_t> sig(static_cast<size_t>(num_perm), UINT32_MAX);
  for (size_t i = 0; i < sig.size(); ++i) {
    for (const uint64_t s : set) {
      const auto v = static_cast<uint32_t>(uint64_t{c.a[i]} * static_cast<uint32_t>(s) + c.b[i]);
      if (v < sig[i]) sig[i] = v;
    }
  }
  return sig;
}

// Random sets of 0 to ~3000 shingles (repeats included), for several
// signature lengths (multiples of 16 and not) and seeds: the kernel, fed in
// two batches, must give exactly MinHasher's (dispatched) signature and the
// scalar reference.
void CheckKernel(Kernel kernel) {
  uint64_t rng = 2026;
  int sets = 0;
  for (int num_perm : {16, 100, 128, 256, 1000}) {
    for (uint64_t seed : {1ULL, 7ULL, 0xdeadbeefULL}) {
      const MinHasher mh(num_perm, seed);
      const Coefficients c = CoefficientsOf(mh);
      ASSERT_EQ(mh.Sign({42, 43}), Reference(c, num_perm, {42, 43}));  // the read-back is right
      const int blocks = static_cast<int>(c.a.size()) / kMinHashLanes;
      for (int t = 0; t < 40; ++t) {
        std::vector<uint64_t> set(SplitMix(&rng) % (t % 4 == 0 ? 8 : 3000));
        for (auto& x : set) x = SplitMix(&rng);
        if (set.size() > 2) set[1] = set[0];  // a repeat
        std::vector<uint32_t> sig(c.a.size(), UINT32_MAX);
        const size_t half = set.size() / 2;
        kernel(c.a.data(), c.b.data(), blocks, set.data(), half, sig.data());
        kernel(c.a.data(), c.b.data(), blocks, set.data() + half, set.size() - half, sig.data());
        sig.resize(static_cast<size_t>(num_perm));
        ASSERT_EQ(sig, mh.Sign(set)) << num_perm << " permutations, seed " << seed << ", set " << t;
        if (t % 8 == 0) {
          ASSERT_EQ(sig, Reference(c, num_perm, set));
        }
        ++sets;
      }
    }
  }
  EXPECT_EQ(sets, 600);
}

TEST(MinHashKernelTest, Avx512VersionGivesTheDispatchedSignatures) {
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "this processor has no AVX-512";
  CheckKernel(KernelAvx512);
#else
  GTEST_SKIP() << "not x86-64";
#endif
}

TEST(MinHashKernelTest, Avx2VersionGivesTheDispatchedSignatures) {
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "this processor has no AVX2";
  CheckKernel(KernelAvx2);
#else
  GTEST_SKIP() << "not x86-64";
#endif
}

TEST(MinHashKernelTest, BaselineVersionGivesTheDispatchedSignatures) { CheckKernel(KernelBaseline); }

}  // namespace
}  // namespace neardup
