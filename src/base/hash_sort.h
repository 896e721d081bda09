// SortByHash: sorts entries whose key starts with a uniformly random 64-bit
// `hash` (band hashes, content hashes), into the order of their operator<,
// which must order by `hash` first; or plain uniformly random 64-bit values
// (a document's shingle hashes, for --exact). One counting pass and one scatter by the
// hash's top bits leave small partitions, each then sorted on its own: about
// three times faster than std::sort on a million entries, with the same
// result (the order is total, so no stability is needed).
//
// Thread safety: a plain function; `scratch` and `ends` are the caller's
// working space (kept per thread for reuse).
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace neardup::internal {

// Partitions of at most this many entries are sorted by insertion.
inline constexpr size_t kInsertionSortMax = 32;

// The radix bits for n entries: about log2(n) - 2, so a partition holds ~4-8
// entries on average; at most 16, so the partition ends (256 KiB) stay in L2;
// 0 (plain std::sort) below 256 entries.
inline int RadixBits(size_t n) {
  if (n < 256) return 0;
  return std::min(16, static_cast<int>(std::bit_width(n)) - 3);
}

// The radix bits for n plain hashes: about log2(n) - 1, so a partition holds
// ~2-4 of them; at most 16; 0 below 64 (a document's shingle set, a few
// hundred to a few thousand, sorts in 1.8 us for 736 against 2.5 us with a
// partition for every one or two of them, BM_SortShingleSet).
inline int PlainHashRadixBits(size_t n) {
  if (n < 64) return 0;
  return std::min(16, static_cast<int>(std::bit_width(n)) - 2);
}

template <class E>
void InsertionSort(E* first, E* last) {
  for (E* i = first + 1; i < last; ++i) {
    const E v = *i;
    E* j = i;
    for (; j > first && v < j[-1]; --j) *j = j[-1];
    *j = v;
  }
}

// The 64-bit hash an entry is ordered by first.
template <class E>
uint64_t HashOf(const E& e) {
  if constexpr (std::is_same_v<E, uint64_t>) {
    return e;
  } else {
    return e.hash;
  }
}

template <class E, class Alloc>
void SortByHash(std::vector<E, Alloc>& entries, std::vector<E, Alloc>& scratch, std::vector<uint32_t>& ends) {
  assert(entries.size() <= UINT32_MAX);
  // Plain hashes (8 bytes, a document's shingles: a few thousand, in L1 or
  // L2) are partitioned from fewer entries on.
  const int bits = std::is_same_v<E, uint64_t> ? PlainHashRadixBits(entries.size()) : RadixBits(entries.size());
  if (bits == 0) {
    std::sort(entries.begin(), entries.end());
    return;
  }
  const int shift = 64 - bits;
  // ends[p + 1] counts partition p; the prefix sums make ends[p] its start.
  ends.assign((size_t{1} << bits) + 1, 0);
  for (const E& e : entries) ++ends[(HashOf(e) >> shift) + 1];
  uint32_t largest = 0;
  for (size_t p = 1; p < ends.size(); ++p) {
    largest = std::max(largest, ends[p]);
    ends[p] += ends[p - 1];
  }
  scratch.resize(entries.size());
  // Scattering moves ends[p] from partition p's start to its end.
  for (const E& e : entries) scratch[ends[HashOf(e) >> shift]++] = e;
  if (std::is_same_v<E, uint64_t> && largest <= kInsertionSortMax) {
    // Plain hashes in small partitions only: one insertion sort over the
    // whole array moves each hash only within its partition, and its branch
    // is almost never taken, unlike a loop over the partitions.
    InsertionSort(scratch.data(), scratch.data() + scratch.size());
    entries.swap(scratch);
    return;
  }
  uint32_t lo = 0;
  for (size_t p = 0; p + 1 < ends.size(); ++p) {
    const uint32_t hi = ends[p];
    if (hi - lo > kInsertionSortMax) {
      std::sort(scratch.begin() + lo, scratch.begin() + hi);
    } else if (hi - lo > 1) {
      InsertionSort(scratch.data() + lo, scratch.data() + hi);
    }
    lo = hi;
  }
  entries.swap(scratch);
}

}  // namespace neardup::internal
