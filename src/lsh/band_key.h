// The two rules of LSH banding that every way of finding candidates shares,
// in one place: the in-process index (lsh_index.h), the stage sign task's
// band keys and the stage report's check of the bucket tasks' pairs
// (distributed/).
//  - BandKey: a band's key is the XXH3-64 of its `rows` values, seeded by the
//    band's number, so equal rows in different bands never share a bucket.
//  - FirstSharedBand: a pair is a candidate once, in the first band whose
//    rows the two signatures really share (a shared key can be a 64-bit
//    collision).
//
// Thread safety: pure functions.
//
//   uint64_t key = BandKey(signature, banding, 3);
//   if (FirstSharedBand(x, y, banding, 3)) emit(a, b);
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/hash.h"
#include "lsh/banding.h"

namespace neardup {

// REQUIRES: `signature` holds at least banding.bands * banding.rows values;
// 0 <= band < banding.bands.
inline uint64_t BandKey(const uint32_t* signature, Banding banding, int band) {
  const size_t rows = static_cast<size_t>(banding.rows);
  return HashBytes(signature + static_cast<size_t>(band) * rows, rows * sizeof(uint32_t), static_cast<uint64_t>(band));
}

// Whether `band` is the first band whose rows x and y share.
// REQUIRES: as BandKey, for both signatures.
inline bool FirstSharedBand(const uint32_t* x, const uint32_t* y, Banding banding, int band) {
  const size_t rows = static_cast<size_t>(banding.rows);
  // A loop of its own rather than std::equal, which calls memcmp for a few
  // bytes: a pair in band b is checked against the b bands before it, and
  // most of those differ in their first row, so the call cost more than the
  // compares (258 M of the 2.2 G instructions of a run on 6,000 mails at
  // -t 0.5, 35 bands of 3 rows).
  auto equal = [&](int j) {
    const size_t at = static_cast<size_t>(j) * rows;
    for (size_t k = at; k < at + rows; ++k) {
      if (x[k] != y[k]) return false;
    }
    return true;
  };
  if (!equal(band)) return false;
  for (int j = 0; j < band; ++j) {
    if (equal(j)) return false;
  }
  return true;
}

}  // namespace neardup
