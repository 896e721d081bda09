#include "sign/distinct_count.h"

#include <algorithm>
#include <utility>

namespace neardup {

void DistinctCounter::Reset(uint64_t expected) {
  if (slots_.capacity() > kKeptSlots) std::vector<uint64_t>().swap(slots_);
  if (spare_.capacity() > kKeptSlots) std::vector<uint64_t>().swap(spare_);
  size_t slots = kInitialSlots;
  while (slots < kMostGuessedSlots && slots < 2 * expected) slots *= 2;
  slots_.assign(slots, 0);
  mask_ = slots - 1;
  count_ = 0;
  zero_seen_ = false;
}

// Shingle hashes are uniformly random, so their top bits place them; a slot
// holds the hash itself.
void DistinctCounter::Insert(uint64_t h) {
  if (h == 0) {
    zero_seen_ = true;
    return;
  }
  // The multiplication spreads hashes that are not random (a test's) as well.
  size_t at = static_cast<size_t>((h * 0x9E3779B97F4A7C15ULL) >> 32) & mask_;
  for (;;) {
    const uint64_t s = slots_[at];
    if (s == h) return;
    if (s == 0) {
      slots_[at] = h;
      if (++count_ * 2 > slots_.size()) Grow();
      return;
    }
    at = (at + 1) & mask_;
  }
}

void DistinctCounter::Grow() {
  spare_.assign(4 * slots_.size(), 0);
  std::swap(slots_, spare_);
  mask_ = slots_.size() - 1;
  count_ = 0;
  for (const uint64_t h : spare_) {
    if (h != 0) Insert(h);
  }
}

void DistinctCounter::Add(std::span<const uint64_t> hashes) {
  for (const uint64_t h : hashes) Insert(h);
}

}  // namespace neardup
