// Hashing primitives: the only file that includes xxhash.h.
//
// Tokens are hashed once with XXH3-64 and the seed; shingles are built from
// their tokens' hashes with Mix64 (no text is hashed twice); a document's
// normalized content is identified by XXH3-128 over its token hashes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace neardup {

inline uint64_t HashBytes(const void* data, size_t len, uint64_t seed) { return XXH3_64bits_withSeed(data, len, seed); }

// The 64-bit finalizer of MurmurHash3: a bijection with full avalanche.
// DocRecord::line_hash of a JSONL line (without its "\n" or "\r\n"): 32
// bits of XXH3-64, never 0 (0 means "not known").
inline uint32_t LineHash(const void* data, size_t len) {
  const auto h = static_cast<uint32_t>(HashBytes(data, len, 0x6b657074) >> 32);
  return h == 0 ? 1 : h;
}

inline uint64_t Mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// splitmix64: the deterministic generator behind every seeded parameter.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

// Streaming XXH3-64 with a seed: gives the same value as HashBytes() over the
// concatenation of what was passed to Update().
class Hasher64 {
 public:
  Hasher64() = default;
  Hasher64(const Hasher64&) = delete;
  Hasher64& operator=(const Hasher64&) = delete;
  void Reset(uint64_t seed) { XXH3_64bits_reset_withSeed(&state_, seed); }
  void Update(const void* data, size_t len) { XXH3_64bits_update(&state_, data, len); }
  uint64_t Digest() const { return XXH3_64bits_digest(&state_); }

 private:
  XXH3_state_t state_;
};

// Streaming XXH3-128, RAII over XXH3_state_t.
class Hasher128 {
 public:
  Hasher128() { Reset(); }
  Hasher128(const Hasher128&) = delete;
  Hasher128& operator=(const Hasher128&) = delete;
  void Reset() { XXH3_128bits_reset(&state_); }
  void Update(const void* data, size_t len) { XXH3_128bits_update(&state_, data, len); }
  void Digest(uint64_t* low, uint64_t* high) const {
    const XXH128_hash_t h = XXH3_128bits_digest(&state_);
    *low = h.low64;
    *high = h.high64;
  }

 private:
  XXH3_state_t state_;
};

}  // namespace neardup
