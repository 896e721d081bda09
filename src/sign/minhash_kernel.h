// The MinHash kernel: folds shingles into a signature, 16 permutations (one
// block) at a time. Internal to the core.
//
// src/sign/minhash.cc compiles it into one function with GCC target_clones
// (AVX-512, AVX2, baseline x86-64), and the loader picks the version the
// processor runs. tests/minhash_kernels_test.cc compiles the same body once
// per target under names of its own and checks that every version gives the
// signatures the dispatched one gives, so the versions this machine never
// picks are tested too. The body is always inlined, so each caller compiles
// it for its own target.
//
// Thread safety: a pure function of its arguments.
#pragma once

#include <cstddef>
#include <cstdint>

namespace neardup::internal {

// Permutations per block: the fixed lane count lets the compiler keep the 16
// minima in one or two vector registers.
constexpr int kMinHashLanes = 16;

// For each block `blk` < `blocks` and lane l, with i = blk * 16 + l:
//   sig[i] = min(sig[i], min over s < n of mix(a[i] * x_s + b[i] mod 2^32)),
// x_s the low 32 bits of shingles[s], mix(v) = v ^ (v >> 16).
// REQUIRES: a, b and sig hold blocks * 16 values; shingles holds n.
[[gnu::always_inline]] inline void MinHashBlocks(const uint32_t* a, const uint32_t* b, int blocks,
                                                 const uint64_t* shingles, size_t n, uint32_t* sig) {
  for (int blk = 0; blk < blocks; ++blk) {
    const uint32_t* ab = a + blk * kMinHashLanes;
    const uint32_t* bb = b + blk * kMinHashLanes;
    uint32_t m[kMinHashLanes];
    uint32_t av[kMinHashLanes];
    uint32_t bv[kMinHashLanes];
    for (int l = 0; l < kMinHashLanes; ++l) {
      m[l] = sig[blk * kMinHashLanes + l];
      av[l] = ab[l];
      bv[l] = bb[l];
    }
    for (size_t s = 0; s < n; ++s) {
      const auto x = static_cast<uint32_t>(shingles[s]);
      for (int l = 0; l < kMinHashLanes; ++l) {
        uint32_t v = av[l] * x + bv[l];
        v ^= v >> 16;
        m[l] = v < m[l] ? v : m[l];
      }
    }
    for (int l = 0; l < kMinHashLanes; ++l) sig[blk * kMinHashLanes + l] = m[l];
  }
}

}  // namespace neardup::internal
