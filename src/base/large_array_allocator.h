// LargeArrayAllocator: an allocator for the large arrays of a run (the
// signature matrix: 512 bytes per document at 128 permutations; the buffers
// of SortedRuns) whose elements are left uninitialized and whose reserved
// room costs nothing until it is written.
//
// Arrays of at least kLargeArrayMinBytes are mapped on their own
// (MAP_NORESERVE: room that vector::reserve asks for and never touches does
// not count against the heuristic overcommit limit) and unmapped when freed.
// Smaller arrays come from std::allocator. Unlike std::allocator, a
// value-initialized element (as vector::resize(n) makes) is left
// uninitialized, as `new T` would: every row of a matrix is written before
// it is read, and zeroing it first would touch each page twice (and fault it
// in on the thread that resizes, not the ones that fill it).
//
// The arrays are in the kernel's ordinary pages: neardup does not ask for
// transparent huge pages (madvise(MADV_HUGEPAGE)), nor does jemalloc for the
// heap (src/cli/main.cc). On a virtual machine that gives free memory back to
// its host (virtio-balloon free page reporting, which hands back free blocks
// of 2 MiB and more), a huge page is such a block, and its first touch makes
// the host back all of it again: 64 MiB never touched before took 110 to
// 210 ms in 2 MiB pages there, against 25 to 37 ms in 4 KiB pages (which the
// guest takes from memory it kept), and 6 ms in 2 MiB pages only when the
// memory was freed less than about two seconds before. A run from cron or a
// shell meets the first case (docs/performance.md).
//
// Thread safety: stateless; allocate and deallocate from any thread.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace neardup {

// Under AddressSanitizer every array comes from std::allocator, so that the
// sanitizer still sees overruns of the large ones.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr size_t kLargeArrayMinBytes = SIZE_MAX;
#else
inline constexpr size_t kLargeArrayMinBytes = size_t{4} << 20;
#endif

template <typename T>
class LargeArrayAllocator {
 public:
  using value_type = T;

  LargeArrayAllocator() = default;
  template <typename U>
  LargeArrayAllocator(const LargeArrayAllocator<U>&) {}  // NOLINT: allocators convert implicitly

  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
    const size_t bytes = n * sizeof(T);
    if (bytes < kLargeArrayMinBytes) return std::allocator<T>().allocate(n);
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(p);
  }

  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kLargeArrayMinBytes) {
      std::allocator<T>().deallocate(p, n);
      return;
    }
    ::munmap(p, bytes);
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
  bool operator==(const LargeArrayAllocator<U>&) const {
    return true;
  }
};

// Asks the kernel to back [begin, end) with writable pages now, in one call
// (madvise MADV_POPULATE_WRITE), instead of the one page fault a page that
// the first writes would take: on a virtual machine each fault goes through
// the hypervisor's interrupt handling, and filling the signature matrix of
// 100k documents took 12,500 of them. The contents are unchanged (pages not
// yet backed read as zero, as they would). Best effort: returns false when
// the kernel cannot (before Linux 5.14, or no memory for it); the writes then
// fault as before.
inline bool PrefaultForWrite(const void* begin, const void* end) {
#if defined(MADV_POPULATE_WRITE)
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t b = reinterpret_cast<uintptr_t>(begin) & ~(page - 1);
  const uintptr_t e = reinterpret_cast<uintptr_t>(end);
  if (e <= b) return true;
  return ::madvise(reinterpret_cast<void*>(b), e - b, MADV_POPULATE_WRITE) == 0;
#else
  (void)begin;
  (void)end;
  return false;
#endif
}

}  // namespace neardup
