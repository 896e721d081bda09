#include "base/large_array_allocator.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <numeric>
#include <vector>

namespace neardup {
namespace {

// A large array is mapped on its own (page-aligned); its contents are kept
// through growth and it is usable to its last element.
TEST(LargeArrayAllocatorTest, LargeArraysKeepTheirContentsWhenTheyGrow) {
  std::vector<uint32_t, LargeArrayAllocator<uint32_t>> v;
  const size_t n =
      (kLargeArrayMinBytes == SIZE_MAX ? (size_t{12} << 20) : kLargeArrayMinBytes * 3 + 12345) / sizeof(uint32_t);
  for (size_t k = 0; k < n; ++k) v.push_back(static_cast<uint32_t>(k * 2654435761u));
  if (kLargeArrayMinBytes != SIZE_MAX) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % 4096, 0u);
  }
  for (size_t k = 0; k < n; ++k) ASSERT_EQ(v[k], static_cast<uint32_t>(k * 2654435761u)) << k;
  v.resize(n * 3, 7);
  EXPECT_EQ(v[n - 1], static_cast<uint32_t>((n - 1) * 2654435761u));
  EXPECT_EQ(v.back(), 7u);
  v.clear();
  v.shrink_to_fit();
  EXPECT_EQ(v.capacity(), 0u);
}

// The resident set of this process in bytes (/proc/self/statm).
size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// Room reserved and elements made by resize(n) cost no memory until they are
// written: the matrix of a run is reserved for every document and filled
// row by row.
TEST(LargeArrayAllocatorTest, ReservedAndResizedRoomIsNotTouched) {
  if (kLargeArrayMinBytes == SIZE_MAX) GTEST_SKIP() << "AddressSanitizer: every array from std::allocator";
  const size_t before = ResidentBytes();
  ASSERT_GT(before, 0u);
  std::vector<uint32_t, LargeArrayAllocator<uint32_t>> v;
  v.reserve((size_t{512} << 20) / sizeof(uint32_t));
  v.resize((size_t{256} << 20) / sizeof(uint32_t));
  EXPECT_LT(ResidentBytes(), before + (size_t{16} << 20));
  // Writing a quarter of it makes about that much resident.
  for (size_t k = 0; k < v.size() / 4; k += 1024) v[k] = 1;
  EXPECT_GT(ResidentBytes(), before + (size_t{48} << 20));
}

// Prefaulted room is resident before any write, and reads as it did: the
// signature matrix is backed a chunk at a time ahead of the rows appended.
TEST(LargeArrayAllocatorTest, PrefaultedRoomIsResidentAndUnchanged) {
  if (kLargeArrayMinBytes == SIZE_MAX) GTEST_SKIP() << "AddressSanitizer: every array from std::allocator";
  std::vector<uint32_t, LargeArrayAllocator<uint32_t>> v;
  v.reserve((size_t{256} << 20) / sizeof(uint32_t));
  v.resize((size_t{64} << 20) / sizeof(uint32_t));
  v[0] = 5;
  const size_t before = ResidentBytes();
  if (!PrefaultForWrite(v.data() + 1, v.data() + v.size())) GTEST_SKIP() << "no MADV_POPULATE_WRITE here";
  EXPECT_GT(ResidentBytes(), before + (size_t{60} << 20));
  EXPECT_LT(ResidentBytes(), before + (size_t{80} << 20));  // only the range asked for
  EXPECT_EQ(v[0], 5u);
  EXPECT_EQ(v.back(), 0u);
  EXPECT_TRUE(PrefaultForWrite(v.data(), v.data()));  // an empty range asks nothing
}

// Small arrays come from std::allocator; equal allocators compare equal, so
// containers swap and move storage.
TEST(LargeArrayAllocatorTest, SmallArraysAndMovesWork) {
  std::vector<uint64_t, LargeArrayAllocator<uint64_t>> small(100);
  std::iota(small.begin(), small.end(), 1);
  EXPECT_EQ(std::accumulate(small.begin(), small.end(), uint64_t{0}), 5050u);
  std::vector<uint64_t, LargeArrayAllocator<uint64_t>> large((size_t{4} << 20) / sizeof(uint64_t) + 1, 9);
  const uint64_t* data = large.data();
  std::vector<uint64_t, LargeArrayAllocator<uint64_t>> moved = std::move(large);
  EXPECT_EQ(moved.data(), data);
  EXPECT_EQ(moved.back(), 9u);
  moved.swap(small);
  EXPECT_EQ(small.back(), 9u);
  EXPECT_EQ(moved.size(), 100u);
}

}  // namespace
}  // namespace neardup
