// LshIndex: MinHash signatures -> candidate pairs, by banding.
//
// Each signature is cut into b bands of r rows. For each band, the (band hash,
// row) entries of all signatures are grouped by hash (in hash order, as a sort
// would leave them, but sorting only where hashes repeat:
// internal::ForEachRunOfEqualHashes), and the signatures in one run of equal
// hashes (a bucket) whose r values are really equal are candidates.
// A pair that shares several bands is produced once: in the first band it
// shares. Work is spread over threads by band.
//
// A bucket larger than `large_bucket` (when that callback is given) is handed
// over whole instead of pair by pair, so a caller that only needs connectivity
// can keep the work linear in the bucket's size.
//
// Thread safety: ForEachCandidate calls its callbacks from several threads at
// once, each with its worker index in [0, threads).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "lsh/banding.h"

namespace neardup {

class LshIndex {
 public:
  // `signatures` holds rows of `num_perm` values; `rows_ids` names the rows to
  // index (row k of the index is signatures + rows_ids[k] * num_perm). Both
  // must outlive the index. REQUIRES: bands * rows <= num_perm.
  LshIndex(const uint32_t* signatures, int num_perm, std::span<const uint32_t> row_ids, Banding banding);
  // The same, pairing only rows of different sides: `side` holds 0 or 1 per
  // id (indexed by id, not by row; it must outlive the index), and a bucket
  // yields only its pairs across the two sides (containment's pairs of two
  // strata), with no work spent on the others.
  LshIndex(const uint32_t* signatures, int num_perm, std::span<const uint32_t> row_ids, Banding banding,
           std::span<const uint8_t> side);

  using PairFn = std::function<void(int worker, uint32_t id_a, uint32_t id_b)>;
  using BucketFn = std::function<void(int worker, std::span<const uint32_t> ids)>;

  // Calls `pair(w, a, b)` once per distinct candidate pair (a < b, ids from
  // row_ids), and `bucket(w, ids)` (sorted ids) for each bucket of more than
  // `large_bucket` members when `bucket` is set and large_bucket > 0.
  // Returns the number of distinct pairs visited. Once `stop` (when set)
  // reads true, no band starts and the bands under way end within a row of
  // a bucket: the pairs given are then a part of them.
  uint64_t ForEachCandidate(int threads, const PairFn& pair, size_t large_bucket = 0, const BucketFn& bucket = nullptr,
                            const std::atomic<bool>* stop = nullptr) const;

 private:
  const uint32_t* Row(uint32_t id) const {
    return signatures_ + static_cast<size_t>(id) * static_cast<size_t>(num_perm_);
  }
  struct Entry {
    uint64_t hash;  // of a band's values
    uint32_t id;
    bool operator<(const Entry& o) const { return hash != o.hash ? hash < o.hash : id < o.id; }
  };
  // Fills `entries` with the hash of band `band` of each indexed row, in
  // row_ids order.
  void HashBand(int band, std::vector<Entry>& entries) const;
  uint64_t PairsOfBucket(int worker, std::span<const Entry> bucket, int band, const PairFn& pair,
                         const std::atomic<bool>* stop) const;
  uint64_t CrossPairsOfBucket(int worker, std::span<const Entry> bucket, int band, const PairFn& pair,
                              const std::atomic<bool>* stop) const;

  const uint32_t* signatures_;
  int num_perm_;
  std::span<const uint32_t> row_ids_;
  Banding banding_;
  std::span<const uint8_t> side_;  // empty: every pair
};

}  // namespace neardup
