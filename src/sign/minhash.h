// MinHasher: shingle hashes -> a MinHash signature of num_perm 32-bit values.
//
// The i-th value of a signature is the minimum over the document's shingles x
// of h_i(x) = a_i * x + b_i mod 2^32 (x the low 32 bits of the shingle's
// 64-bit hash), with a_i odd and b_i drawn from the seed (splitmix64): a
// multiply-add hash family per permutation, evaluated for 16 permutations at
// a time in 32-bit lanes so the compiler vectorizes it (AVX-512, AVX2 or
// SSE2, chosen at run time). This is MinHash definition 1 (kMinHashVersion,
// sign/signature_table.h). Definition 0, before it, mixed each value
// (v ^ (v >> 16)) before its minimum: the same estimates, variance and
// S-curve, at 1.4-1.6x the kernel's time; its stored signatures are never
// compared with definition 1's.
// Two signatures agree in position i with probability J(A, B) (up to 32-bit
// collisions), so the share of agreeing positions estimates the Jaccard
// similarity with standard error sqrt(J(1-J)/num_perm).
//
// Thread safety: a MinHasher is immutable after construction; Update() may be
// called from many threads on different signatures.
//
//   MinHasher mh(128, /*seed=*/1);
//   std::vector<uint32_t> sig = mh.Sign(shingles);
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace neardup {

class MinHasher {
 public:
  // REQUIRES: 1 <= num_perm <= 4096.
  MinHasher(int num_perm, uint64_t seed);

  int num_perm() const { return num_perm_; }

  // Sets the num_perm values at `sig` to the empty-set value (UINT32_MAX).
  void Init(uint32_t* sig) const;
  // Folds `n` shingle hashes into the signature at `sig` (num_perm values).
  // Repeated shingles are harmless.
  void Update(const uint64_t* shingles, size_t n, uint32_t* sig) const;
  // Init + Update over a whole set.
  std::vector<uint32_t> Sign(const std::vector<uint64_t>& shingles) const;

 private:
  int num_perm_;
  int padded_;               // num_perm rounded up to a multiple of 16
  std::vector<uint32_t> a_;  // padded_ odd multipliers
  std::vector<uint32_t> b_;  // padded_ offsets
};

// Share of the `n` positions where x and y agree: the Jaccard estimate.
double SignatureAgreement(const uint32_t* x, const uint32_t* y, int n);

}  // namespace neardup
