// The MinHash kernel: folds shingles into a signature, 16 permutations (one
// block) at a time. Internal to the core.
//
// src/sign/minhash.cc compiles it into one function with GCC target_clones
// (AVX-512, AVX2, baseline x86-64), and the loader picks the version the
// processor runs. tests/sign/minhash_kernel_test.cc compiles the same body once
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

// Blocks folded in one pass over the shingles: four blocks (64 minima) keep
// the multipliers, offsets and minima in registers on AVX-512 (12 of 32) and
// spread the loop's own cost (the shingle's load and the branch) over 64
// lanes instead of 16: BM_MinHash (tests/bench/signature_bench.cc, 3 KB
// documents, 128 permutations, AVX-512) takes 12% less time than with a pass
// per block. The bound is then the vector operations themselves (multiply,
// add, min), not the loop.
constexpr int kMinHashGroup = 4;

// MinHashBlocks' pass for `kBlocks` consecutive blocks: a, b and sig point
// at the group's first lane.
template <int kBlocks>
[[gnu::always_inline]] inline void MinHashGroup(const uint32_t* a, const uint32_t* b, const uint64_t* shingles,
                                                size_t n, uint32_t* sig) {
  constexpr int kLanes = kBlocks * kMinHashLanes;
  uint32_t m[kLanes];
  uint32_t av[kLanes];
  uint32_t bv[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    m[l] = sig[l];
    av[l] = a[l];
    bv[l] = b[l];
  }
  for (size_t s = 0; s < n; ++s) {
    const auto x = static_cast<uint32_t>(shingles[s]);
    for (int l = 0; l < kLanes; ++l) {
      const uint32_t v = av[l] * x + bv[l];
      m[l] = v < m[l] ? v : m[l];
    }
  }
  for (int l = 0; l < kLanes; ++l) sig[l] = m[l];
}

// For each block `blk` < `blocks` and lane l, with i = blk * 16 + l:
//   sig[i] = min(sig[i], min over s < n of (a[i] * x_s + b[i] mod 2^32)),
// x_s the low 32 bits of shingles[s] (MinHash definition 1: no mix, see
// sign/minhash.h).
// The blocks go kMinHashGroup at a time, then one at a time.
// REQUIRES: a, b and sig hold blocks * 16 values; shingles holds n.
[[gnu::always_inline]] inline void MinHashBlocks(const uint32_t* a, const uint32_t* b, int blocks,
                                                 const uint64_t* shingles, size_t n, uint32_t* sig) {
  int blk = 0;
  for (; blk + kMinHashGroup <= blocks; blk += kMinHashGroup) {
    const int at = blk * kMinHashLanes;
    MinHashGroup<kMinHashGroup>(a + at, b + at, shingles, n, sig + at);
  }
  for (; blk < blocks; ++blk) {
    const int at = blk * kMinHashLanes;
    MinHashGroup<1>(a + at, b + at, shingles, n, sig + at);
  }
}

}  // namespace neardup::internal
