#include "neardup/lsh_index.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <thread>
#include <vector>

#include "hash.h"

namespace neardup {

LshIndex::LshIndex(const uint32_t* signatures, int num_perm, std::span<const uint32_t> row_ids,
                   Banding banding)
    : signatures_(signatures), num_perm_(num_perm), row_ids_(row_ids), banding_(banding) {
  assert(banding.bands >= 1 && banding.rows >= 1);
  assert(banding.bands * banding.rows <= num_perm);
}

bool LshIndex::BandEqual(uint32_t x, uint32_t y, int band) const {
  const size_t off = static_cast<size_t>(band) * static_cast<size_t>(banding_.rows);
  const uint32_t* rx = Row(x) + off;
  const uint32_t* ry = Row(y) + off;
  for (int i = 0; i < banding_.rows; ++i) {
    if (rx[i] != ry[i]) return false;
  }
  return true;
}

uint64_t LshIndex::ForEachCandidate(int threads, const PairFn& pair, size_t large_bucket,
                                    const BucketFn& bucket) const {
  struct Entry {
    uint64_t hash;
    uint32_t id;
    bool operator<(const Entry& o) const { return hash != o.hash ? hash < o.hash : id < o.id; }
  };
  std::atomic<int> next_band{0};
  std::atomic<uint64_t> total{0};
  const size_t row_bytes = static_cast<size_t>(banding_.rows) * sizeof(uint32_t);
  auto work = [&](int worker) {
    std::vector<Entry> entries(row_ids_.size());
    std::vector<uint32_t> ids;
    uint64_t count = 0;
    for (int band = next_band++; band < banding_.bands; band = next_band++) {
      const size_t off = static_cast<size_t>(band) * static_cast<size_t>(banding_.rows);
      for (size_t k = 0; k < row_ids_.size(); ++k) {
        const uint32_t id = row_ids_[k];
        entries[k] = {HashBytes(Row(id) + off, row_bytes, static_cast<uint64_t>(band)), id};
      }
      std::sort(entries.begin(), entries.end());
      for (size_t lo = 0; lo < entries.size();) {
        size_t hi = lo + 1;
        while (hi < entries.size() && entries[hi].hash == entries[lo].hash) ++hi;
        if (hi - lo >= 2) {
          if (bucket && large_bucket > 0 && hi - lo > large_bucket) {
            ids.clear();
            for (size_t k = lo; k < hi; ++k) ids.push_back(entries[k].id);
            bucket(worker, ids);
          } else {
            for (size_t x = lo; x < hi; ++x) {
              for (size_t y = x + 1; y < hi; ++y) {
                const uint32_t a = entries[x].id;
                const uint32_t b = entries[y].id;
                if (!BandEqual(a, b, band)) continue;  // 64-bit hash collision
                bool seen = false;
                for (int earlier = 0; earlier < band && !seen; ++earlier) {
                  seen = BandEqual(a, b, earlier);
                }
                if (seen) continue;
                ++count;
                pair(worker, a, b);
              }
            }
          }
        }
        lo = hi;
      }
    }
    total += count;
  };
  threads = std::max(1, std::min(threads, banding_.bands));
  if (threads == 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (int w = 0; w < threads; ++w) pool.emplace_back(work, w);
    for (auto& t : pool) t.join();
  }
  return total.load();
}

}  // namespace neardup
