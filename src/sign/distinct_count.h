// DistinctCounter: the exact number of distinct shingle hashes of one
// document, counted while it is signed: the size |A| of its shingle set,
// which containment, C(A, B) = |A ∩ B| / |A|, divides by.
//
// An open-addressing table of the hashes seen (linear probing, at most half
// full), sized for the document by Reset()'s guess and grown fourfold when
// the guess falls short: a short document costs a clear of 8 KiB, a long one
// about 8 to 32 bytes a distinct shingle while it is read. The count is
// exact: no estimate, so it may be used to prove a containment.
//
// Thread safety: one counter per thread; it reuses its memory between
// documents (up to kKeptSlots slots).
//
//   DistinctCounter counter;
//   counter.Reset();
//   counter.Add(shingler.shingles());
//   uint64_t size = counter.count();
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace neardup {

class DistinctCounter {
 public:
  static constexpr size_t kInitialSlots = 1024;                 // a power of two
  static constexpr size_t kKeptSlots = size_t{1} << 20;         // 8 MiB kept between documents
  static constexpr size_t kMostGuessedSlots = size_t{1} << 22;  // Reset()'s guess sizes up to 32 MiB

  DistinctCounter() { Reset(); }

  // Forgets every hash: the next Add() starts a new document, which is
  // expected to have about `expected` distinct hashes (a guess: 0 when
  // unknown; a wrong one costs time, never exactness).
  void Reset(uint64_t expected = 0);
  // Counts the hashes of `hashes` not seen since Reset().
  void Add(std::span<const uint64_t> hashes);
  // The number of distinct hashes added since Reset().
  uint64_t count() const { return count_ + (zero_seen_ ? 1 : 0); }

 private:
  void Insert(uint64_t h);
  void Grow();

  std::vector<uint64_t> slots_;  // 0: empty (the hash 0 is zero_seen_)
  std::vector<uint64_t> spare_;  // Grow()'s room, kept for reuse
  size_t mask_ = 0;
  uint64_t count_ = 0;  // nonzero hashes in slots_
  bool zero_seen_ = false;
};

}  // namespace neardup
