#include "base/huge_page_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace neardup {
namespace {

// A large array is mapped on a huge-page boundary; its contents are kept
// through growth and it is usable to its last element.
TEST(HugePageAllocatorTest, LargeArraysAreAlignedAndKeepTheirContentsWhenTheyGrow) {
  std::vector<uint32_t, HugePageAllocator<uint32_t>> v;
  const size_t n = (kHugePageSize * 3 + 12345) / sizeof(uint32_t);
  for (size_t k = 0; k < n; ++k) v.push_back(static_cast<uint32_t>(k * 2654435761u));
  if (kHugePageMinBytes != SIZE_MAX) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % kHugePageSize, 0u);
  }
  for (size_t k = 0; k < n; ++k) ASSERT_EQ(v[k], static_cast<uint32_t>(k * 2654435761u)) << k;
  v.resize(n * 3, 7);
  EXPECT_EQ(v[n - 1], static_cast<uint32_t>((n - 1) * 2654435761u));
  EXPECT_EQ(v.back(), 7u);
  v.clear();
  v.shrink_to_fit();
  EXPECT_EQ(v.capacity(), 0u);
}

// Small arrays come from std::allocator; equal allocators compare equal, so
// containers swap and move storage.
TEST(HugePageAllocatorTest, SmallArraysAndMovesWork) {
  std::vector<uint64_t, HugePageAllocator<uint64_t>> small(100);
  std::iota(small.begin(), small.end(), 1);
  EXPECT_EQ(std::accumulate(small.begin(), small.end(), uint64_t{0}), 5050u);
  std::vector<uint64_t, HugePageAllocator<uint64_t>> large((size_t{4} << 20) / sizeof(uint64_t) + 1, 9);
  const uint64_t* data = large.data();
  std::vector<uint64_t, HugePageAllocator<uint64_t>> moved = std::move(large);
  EXPECT_EQ(moved.data(), data);
  EXPECT_EQ(moved.back(), 9u);
  moved.swap(small);
  EXPECT_EQ(small.back(), 9u);
  EXPECT_EQ(moved.size(), 100u);
}

}  // namespace
}  // namespace neardup
