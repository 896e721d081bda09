#include "sign/minhash.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "base/hash.h"
#include "sign/minhash_kernel.h"

namespace neardup {

namespace {

constexpr int kLanes = internal::kMinHashLanes;

// One block of 16 permutations over all shingles (src/sign/minhash_kernel.h),
// compiled for each target; the loader picks the best the processor has.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void UpdateBlocks(const uint32_t* a, const uint32_t* b, int blocks, const uint64_t* shingles,
                  size_t n, uint32_t* sig_padded) {
  internal::MinHashBlocks(a, b, blocks, shingles, n, sig_padded);
}

}  // namespace

MinHasher::MinHasher(int num_perm, uint64_t seed)
    : num_perm_(num_perm), padded_((num_perm + kLanes - 1) / kLanes * kLanes) {
  assert(num_perm >= 1 && num_perm <= 4096);
  SplitMix64 rng(seed ^ 0x6d696e68617368ULL);  // "minhash"
  a_.resize(static_cast<size_t>(padded_));
  b_.resize(static_cast<size_t>(padded_));
  for (int i = 0; i < padded_; ++i) {
    const uint64_t r = rng.Next();
    a_[static_cast<size_t>(i)] = static_cast<uint32_t>(r) | 1u;
    b_[static_cast<size_t>(i)] = static_cast<uint32_t>(r >> 32);
  }
}

void MinHasher::Init(uint32_t* sig) const { std::fill(sig, sig + num_perm_, UINT32_MAX); }

void MinHasher::Update(const uint64_t* shingles, size_t n, uint32_t* sig) const {
  if (n == 0) return;
  if (padded_ == num_perm_) {
    UpdateBlocks(a_.data(), b_.data(), padded_ / kLanes, shingles, n, sig);
    return;
  }
  // num_perm is not a multiple of 16: work on a padded copy.
  uint32_t padded[4096 + kLanes];
  std::memcpy(padded, sig, static_cast<size_t>(num_perm_) * sizeof(uint32_t));
  std::fill(padded + num_perm_, padded + padded_, UINT32_MAX);
  UpdateBlocks(a_.data(), b_.data(), padded_ / kLanes, shingles, n, padded);
  std::memcpy(sig, padded, static_cast<size_t>(num_perm_) * sizeof(uint32_t));
}

std::vector<uint32_t> MinHasher::Sign(const std::vector<uint64_t>& shingles) const {
  std::vector<uint32_t> sig(static_cast<size_t>(num_perm_));
  Init(sig.data());
  Update(shingles.data(), shingles.size(), sig.data());
  return sig;
}

// Called once for every candidate pair (hundreds of thousands at low
// thresholds): compiled for each target like the kernel, so that 128
// positions take 8 AVX-512 compares rather than 32 SSE2 ones.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
double
SignatureAgreement(const uint32_t* x, const uint32_t* y, int n) {
  int agree = 0;
  for (int i = 0; i < n; ++i) agree += x[i] == y[i];
  return n > 0 ? static_cast<double>(agree) / n : 0.0;
}

}  // namespace neardup
