// HugePageAllocator: an allocator for the large arrays of a run (the
// signature matrix: 512 bytes per document at 128 permutations) that asks the
// kernel for transparent huge pages.
//
// A 4 KiB page costs a page fault the first time it is touched; on virtual
// machines a fault costs several microseconds. A matrix of a million
// documents is 131,072 such faults; in 2 MiB pages it is 256. Arrays of at
// least kHugePageMinBytes are mapped on a 2 MiB boundary with
// madvise(MADV_HUGEPAGE) (honoured when
// /sys/kernel/mm/transparent_hugepage/enabled is "always" or "madvise", the
// usual defaults; ignored where it is "never"). Smaller arrays come from
// std::allocator. Unlike std::allocator, a value-initialized element (as
// vector::resize(n) makes) is left uninitialized, as `new T` would: every
// row of a matrix is written before it is read, and zeroing it first would
// touch each page twice (and fault it in on the thread that resizes, not
// the ones that fill it).
//
// Thread safety: stateless; allocate and deallocate from any thread.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace neardup {

inline constexpr size_t kHugePageSize = size_t{2} << 20;
// Under AddressSanitizer every array comes from std::allocator, so that the
// sanitizer still sees overruns of the large ones.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr size_t kHugePageMinBytes = SIZE_MAX;
#else
inline constexpr size_t kHugePageMinBytes = size_t{4} << 20;
#endif

template <typename T>
class HugePageAllocator {
 public:
  using value_type = T;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}  // NOLINT: allocators convert implicitly

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
    if (bytes < kHugePageMinBytes) return std::allocator<T>().allocate(n);
    const size_t size = RoundUp(bytes);
    // Map one huge page more than needed, and give back the unaligned ends.
    // MAP_NORESERVE: reserved capacity (vector::reserve) that is never
    // touched does not count against the heuristic overcommit limit.
    void* raw = ::mmap(nullptr, size + kHugePageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                       -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (start + kHugePageSize - 1) & ~(uintptr_t{kHugePageSize} - 1);
    if (aligned > start) ::munmap(raw, aligned - start);
    const size_t tail = (start + size + kHugePageSize) - (aligned + size);
    if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + size), tail);
    ::madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
    return reinterpret_cast<T*>(aligned);
  }

  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePageMinBytes) {
      std::allocator<T>().deallocate(p, n);
      return;
    }
    ::munmap(p, RoundUp(bytes));
  }

  // Default-initializes (for a trivial type: leaves the memory as it is).
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }

 private:
  static size_t RoundUp(size_t bytes) { return (bytes + kHugePageSize - 1) & ~(kHugePageSize - 1); }
};

}  // namespace neardup
