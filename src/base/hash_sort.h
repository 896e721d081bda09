// SortByHash: sorts entries whose key starts with a uniformly random 64-bit
// `hash` (band hashes, content hashes), into the order of their operator<,
// which must order by `hash` first; or plain uniformly random 64-bit values
// (a document's shingle hashes, for --exact). One counting pass and one scatter by the
// hash's top bits leave small partitions, each then sorted on its own: about
// three times faster than std::sort on a million entries, with the same
// result (the order is total, so no stability is needed). Plain hashes are
// then placed by rank (RankPartitions, in hash_sort.cc), without a branch
// that depends on the data.
//
// ForEachRunOfEqualHashes: what a caller of SortByHash wants when it only
// looks at runs of equal hashes (band buckets, copy groups): the same runs,
// in the same order, but a partition is sorted only when two of its entries
// share a hash. Most partitions hold only distinct hashes, so the insertion
// sorts, whose branches the data decide, give way to a few compares whose
// outcome is nearly always "differ".
//
// Thread safety: plain functions; `scratch` and `ends` are the caller's
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

// Plain hashes: a partition of at most this many is placed by rank; a larger
// one (rare: a few hashes per partition on average) is sorted apart.
inline constexpr size_t kRankWindow = 8;

// For each i < n, in partition p = parted[i] >> shift, which spans
// [ends[p], ends[p + 1]) of `parted`: writes parted[i] to out[ends[p] + r],
// r its rank among the first kRankWindow values of its partition (those
// less, and those equal that come before it). So a partition of at most
// kRankWindow values lands in `out` sorted; a larger one must be sorted
// again (each of its values lands inside its range).
// REQUIRES: `parted` holds n + kRankWindow readable values; 1 <= 64 - shift
// <= 16; ends has 2^(64 - shift) + 1 entries, the partitions' bounds.
void RankPartitions(const uint64_t* parted, size_t n, const uint32_t* ends, int shift, uint64_t* out);
// The same, by one of the versions below (tests; the AVX-512 one REQUIRES
// RankPartitionsAvx512Supported(), the AVX2 one RankPartitionsAvx2Supported()).
void RankPartitionsPortable(const uint64_t* parted, size_t n, const uint32_t* ends, int shift, uint64_t* out);
void RankPartitionsAvx512(const uint64_t* parted, size_t n, const uint32_t* ends, int shift, uint64_t* out);
bool RankPartitionsAvx512Supported();
void RankPartitionsAvx2(const uint64_t* parted, size_t n, const uint32_t* ends, int shift, uint64_t* out);
bool RankPartitionsAvx2Supported();

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
// ~2-4 of them and few hold more than kRankWindow; at most 16; 0 (plain
// std::sort) below 64. A partition for every one or two hashes sorts no
// faster (BM_SortShingleSet), one for every 4-8 leaves too many partitions
// larger than the window: 736 hashes take 4.2 us against 2.7.
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

// SortByHash for plain hashes (see RankPartitions).
template <class Alloc>
void SortPlainHashes(std::vector<uint64_t, Alloc>& entries, std::vector<uint64_t, Alloc>& scratch,
                     std::vector<uint32_t>& ends) {
  const size_t n = entries.size();
  const int bits = PlainHashRadixBits(n);
  if (bits == 0) {
    std::sort(entries.begin(), entries.end());
    return;
  }
  const int shift = 64 - bits;
  const size_t parts = size_t{1} << bits;
  // ends[p + 2] counts partition p; after the prefix sums ends[p + 1] is its
  // start, and after the scatter its end, ends[p] its start (ends[0] = 0).
  ends.assign(parts + 2, 0);
  for (const uint64_t h : entries) ++ends[(h >> shift) + 2];
  uint32_t largest = 0;
  for (size_t p = 2; p < ends.size(); ++p) {
    largest = std::max(largest, ends[p]);
    ends[p] += ends[p - 1];
  }
  scratch.resize(n + kRankWindow);
  std::fill(scratch.begin() + static_cast<std::ptrdiff_t>(n), scratch.end(), 0);
  for (const uint64_t h : entries) scratch[ends[(h >> shift) + 1]++] = h;
  RankPartitions(scratch.data(), n, ends.data(), shift, entries.data());
  if (largest <= kRankWindow) return;
  for (size_t p = 0; p < parts; ++p) {
    const uint32_t lo = ends[p], hi = ends[p + 1];
    if (hi - lo <= kRankWindow) continue;
    std::copy(scratch.begin() + lo, scratch.begin() + hi, entries.begin() + lo);
    std::sort(entries.begin() + lo, entries.begin() + hi);
  }
}

// Entries with a `hash` field: copies `entries` into `scratch` grouped by the
// top `bits` bits of their hash, each group in its original order. After it,
// partition p spans [ends[p - 1], ends[p]) of `scratch` (from 0 for p = 0).
template <class E, class Alloc>
void ScatterByTopBits(const std::vector<E, Alloc>& entries, std::vector<E, Alloc>& scratch, std::vector<uint32_t>& ends,
                      int bits) {
  const int shift = 64 - bits;
  // ends[p + 1] counts partition p; the prefix sums make ends[p] its start.
  ends.assign((size_t{1} << bits) + 1, 0);
  for (const E& e : entries) ++ends[(e.hash >> shift) + 1];
  for (size_t p = 1; p < ends.size(); ++p) ends[p] += ends[p - 1];
  scratch.resize(entries.size());
  // Scattering moves ends[p] from partition p's start to its end.
  for (const E& e : entries) scratch[ends[e.hash >> shift]++] = e;
}

template <class E, class Alloc>
void SortByHash(std::vector<E, Alloc>& entries, std::vector<E, Alloc>& scratch, std::vector<uint32_t>& ends) {
  assert(entries.size() <= UINT32_MAX);
  if constexpr (std::is_same_v<E, uint64_t>) {
    SortPlainHashes(entries, scratch, ends);
  } else {
    const int bits = RadixBits(entries.size());
    if (bits == 0) {
      std::sort(entries.begin(), entries.end());
      return;
    }
    ScatterByTopBits(entries, scratch, ends, bits);
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
}

// Calls run(first, count) for each maximal run of count >= 2 entries of
// equal `hash`, its entries in operator< order, the runs in increasing hash:
// the runs that SortByHash(entries) followed by a scan would find. Leaves
// `entries` and `scratch` in an unspecified order.
template <class E, class Alloc, class Fn>
void ForEachRunOfEqualHashes(std::vector<E, Alloc>& entries, std::vector<E, Alloc>& scratch,
                             std::vector<uint32_t>& ends, Fn&& run) {
  assert(entries.size() <= UINT32_MAX);
  // The runs of [first, last), sorted.
  auto runs_of = [&run](const E* first, const E* last) {
    while (first != last) {
      const E* end = first + 1;
      while (end != last && end->hash == first->hash) ++end;
      if (end - first >= 2) run(first, static_cast<size_t>(end - first));
      first = end;
    }
  };
  const int bits = RadixBits(entries.size());
  if (bits == 0) {
    std::sort(entries.begin(), entries.end());
    runs_of(entries.data(), entries.data() + entries.size());
    return;
  }
  ScatterByTopBits(entries, scratch, ends, bits);
  uint32_t lo = 0;
  for (size_t p = 0; p + 1 < ends.size(); ++p) {
    const uint32_t hi = ends[p];
    E* first = scratch.data() + lo;
    E* last = scratch.data() + hi;
    lo = hi;
    if (last - first > static_cast<std::ptrdiff_t>(kInsertionSortMax)) {
      std::sort(first, last);
      runs_of(first, last);
      continue;
    }
    if (last - first < 2) continue;
    // Every pair compared, without a branch on the outcome until the end.
    bool shared = false;
    for (const E* a = first; a + 1 < last; ++a) {
      for (const E* b = a + 1; b < last; ++b) shared |= a->hash == b->hash;
    }
    if (!shared) continue;
    InsertionSort(first, last);
    runs_of(first, last);
  }
}

}  // namespace neardup::internal
