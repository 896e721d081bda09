#include "lsh/lsh_index.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <vector>

#include "base/hash.h"
#include "base/hash_sort.h"
#include "base/parallel.h"
#include "lsh/band_key.h"

namespace neardup {
namespace {

// How many rows ahead HashBand prefetches.
constexpr size_t kPrefetchAhead = 16;

using internal::ForEachRunOfEqualHashes;

}  // namespace

LshIndex::LshIndex(const uint32_t* signatures, int num_perm, std::span<const uint32_t> row_ids, Banding banding)
    : signatures_(signatures), num_perm_(num_perm), row_ids_(row_ids), banding_(banding) {
  assert(banding.bands >= 1 && banding.rows >= 1);
  assert(banding.bands * banding.rows <= num_perm);
}

LshIndex::LshIndex(const uint32_t* signatures, int num_perm, std::span<const uint32_t> row_ids, Banding banding,
                   std::span<const uint8_t> side)
    : LshIndex(signatures, num_perm, row_ids, banding) {
  side_ = side;
}

void LshIndex::HashBand(int band, std::vector<Entry>& entries) const {
  const size_t n = row_ids_.size();
  const size_t off = static_cast<size_t>(band) * static_cast<size_t>(banding_.rows);
  const size_t row_bytes = static_cast<size_t>(banding_.rows) * sizeof(uint32_t);
  entries.resize(n);
  for (size_t k = 0; k < n; ++k) {
    // The rows lie num_perm values apart, a stride the hardware does not
    // prefetch across pages: ask for the band a few rows ahead.
    if (k + kPrefetchAhead < n) {
      const uint32_t* ahead = Row(row_ids_[k + kPrefetchAhead]) + off;
      __builtin_prefetch(ahead);
      __builtin_prefetch(reinterpret_cast<const char*>(ahead) + row_bytes - 1);
    }
    const uint32_t id = row_ids_[k];
    entries[k] = {BandKey(Row(id), banding_, band), id};
  }
}

// The pairs of one bucket whose band is really equal (not a 64-bit hash
// collision) and that share no earlier band, so each pair is produced once.
uint64_t LshIndex::PairsOfBucket(int worker, std::span<const Entry> bucket, int band, const PairFn& pair,
                                 const std::atomic<bool>* stop) const {
  uint64_t count = 0;
  for (size_t x = 0; x < bucket.size(); ++x) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) break;
    for (size_t y = x + 1; y < bucket.size(); ++y) {
      const uint32_t a = bucket[x].id;
      const uint32_t b = bucket[y].id;
      if (!FirstSharedBand(Row(a), Row(b), banding_, band)) continue;
      ++count;
      pair(worker, a, b);
    }
  }
  return count;
}

// PairsOfBucket's pairs across the two sides only: the bucket's members of
// side 0 against those of side 1, smaller id first.
uint64_t LshIndex::CrossPairsOfBucket(int worker, std::span<const Entry> bucket, int band, const PairFn& pair,
                                      const std::atomic<bool>* stop) const {
  thread_local std::vector<uint32_t> sides[2];
  sides[0].clear();
  sides[1].clear();
  for (const Entry& e : bucket) sides[side_[e.id] != 0 ? 1 : 0].push_back(e.id);
  uint64_t count = 0;
  for (const uint32_t x : sides[0]) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) break;
    for (const uint32_t y : sides[1]) {
      const uint32_t a = std::min(x, y), b = std::max(x, y);
      if (!FirstSharedBand(Row(a), Row(b), banding_, band)) continue;
      ++count;
      pair(worker, a, b);
    }
  }
  return count;
}

uint64_t LshIndex::ForEachCandidate(int threads, const PairFn& pair, size_t large_bucket, const BucketFn& bucket,
                                    const std::atomic<bool>* stop) const {
  std::atomic<uint64_t> total{0};
  threads = std::max(1, std::min(threads, banding_.bands));
  // Per worker: the band's entries, the sort's working space and a bucket's
  // ids, reused band after band.
  std::vector<std::vector<Entry>> entries_of(static_cast<size_t>(threads));
  std::vector<std::vector<Entry>> scratch_of(static_cast<size_t>(threads));
  std::vector<std::vector<uint32_t>> ends_of(static_cast<size_t>(threads));
  std::vector<std::vector<uint32_t>> ids_of(static_cast<size_t>(threads));
  auto band_work = [&](int worker, size_t b) {
    const int band = static_cast<int>(b);
    std::vector<Entry>& entries = entries_of[static_cast<size_t>(worker)];
    std::vector<uint32_t>& ids = ids_of[static_cast<size_t>(worker)];
    HashBand(band, entries);
    uint64_t count = 0;
    ForEachRunOfEqualHashes(entries, scratch_of[static_cast<size_t>(worker)], ends_of[static_cast<size_t>(worker)],
                            [&](const Entry* first, size_t size) {
                              if (stop != nullptr && stop->load(std::memory_order_relaxed)) return;
                              if (bucket && large_bucket > 0 && size > large_bucket) {
                                ids.clear();
                                for (size_t k = 0; k < size; ++k) ids.push_back(first[k].id);
                                bucket(worker, ids);
                              } else {
                                const std::span<const Entry> members(first, size);
                                count += side_.empty() ? PairsOfBucket(worker, members, band, pair, stop)
                                                       : CrossPairsOfBucket(worker, members, band, pair, stop);
                              }
                            });
    total += count;
  };
  ParallelFor(Workers{.threads = threads, .tick = {}, .cancel = stop}, static_cast<size_t>(banding_.bands), band_work);
  return total.load();
}

}  // namespace neardup
