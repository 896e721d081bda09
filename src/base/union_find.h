// UnionFind: disjoint sets over 0..n-1 with path halving and union by size.
// Thread safety: none; one owner.
#pragma once

#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace neardup {

class UnionFind {
 public:
  explicit UnionFind(size_t n) : parent_(n), size_(n, 1) { std::iota(parent_.begin(), parent_.end(), 0u); }

  uint32_t Find(uint32_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }

  // Returns true when x and y were in different sets.
  bool Union(uint32_t x, uint32_t y) {
    x = Find(x);
    y = Find(y);
    if (x == y) return false;
    if (size_[x] < size_[y]) std::swap(x, y);
    parent_[y] = x;
    size_[x] += size_[y];
    return true;
  }

  uint32_t SetSize(uint32_t x) { return size_[Find(x)]; }

 private:
  std::vector<uint32_t> parent_;
  std::vector<uint32_t> size_;
};

}  // namespace neardup
