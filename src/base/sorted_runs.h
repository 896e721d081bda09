// SortedRuns<T>: records in sorted order without repeats, in bounded memory.
//
// A stage can produce a number of records quadratic in the number of
// documents (10,000 near copies of one text are 50 million candidate
// pairs), while memory must not grow with it. Records are added in any
// order; up to a budget of bytes they are kept in memory, and past it the
// buffer is sorted, its repeats dropped, and written as a run to an
// anonymous temporary file (TempFile: under TMPDIR, gone when closed or
// when the process dies). Iterating merges the runs and the buffer (k-way,
// by T's operator<) and drops repeats: each distinct record comes out once,
// in ascending order. At most kMaxRuns runs are kept: past that, they are
// merged into one. Memory is the budget (twice the budget while a buffer of
// records ordered by a `hash` is sorted by radix), plus kReadAhead records
// per run while iterating;
// once finished, a sequence that spilled keeps only the read-ahead.
//
// Two records are repeats when neither is less than the other. REQUIRES:
// repeats are equal records (which one of them is kept is unspecified), so
// the output does not depend on the order of Add() calls.
//
// Usage: Add() (or Absorb()) any number of times, Finish(), then iterate,
// as many passes as needed, one at a time (each begin() starts again from
// the first record). A read error of a temporary file ends a pass early;
// status() says so and must be checked after each pass.
//
// Thread safety: none. Workers that produce records each fill their own
// SortedRuns with a share of the budget, then the owner Absorb()s them.
//
//   SortedRuns<Candidate> pairs(budget_bytes, "sorting candidate pairs");
//   if (Status s = pairs.Add(c); !s.ok()) return s; ...
//   if (Status s = pairs.Finish(); !s.ok()) return s;
//   for (const Candidate& c : pairs) Use(c);
//   if (!pairs.status().ok()) return pairs.status();
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/hash_sort.h"
#include "base/large_array_allocator.h"
#include "base/temp_file.h"
#include "neardup/quote.h"
#include "neardup/status.h"

namespace neardup {

// The capacity a buffer of records of `record_bytes` grows to from
// `capacity`, for at most `max_records`: doubling up to 1 MiB, then
// straight to the most. The pages of a large buffer are touched only as
// records arrive, and the buffer is never copied at its full size (doubling
// all the way would hold 1.5 times the budget for a moment).
inline size_t NextBufferCapacity(size_t capacity, size_t max_records, size_t record_bytes) {
  const size_t small = (size_t{1} << 20) / record_bytes;
  if (capacity >= small) return max_records;
  return std::min(max_records, std::max<size_t>(64, 2 * capacity));
}

template <typename T>
class SortedRuns {
  static_assert(std::is_trivially_copyable_v<T>, "records are written as their bytes");
  // The buffer of records in memory: a large one mapped on its own and given
  // back when freed, its records not zeroed before they are written
  // (large_array_allocator.h).
  using Buffer = std::vector<T, LargeArrayAllocator<T>>;

 public:
  static constexpr size_t kMaxRuns = 64;
  static constexpr size_t kReadAhead = 4096;  // records buffered per run while merging

  // Holds budget_bytes of records in memory (at least one) before a run is
  // written. `purpose` names the data in errors ("sorting candidate pairs").
  SortedRuns(size_t budget_bytes, std::string purpose)
      : max_in_memory_(std::max<size_t>(budget_bytes / sizeof(T), 1)), purpose_(std::move(purpose)) {}
  SortedRuns(SortedRuns&&) noexcept = default;
  SortedRuns& operator=(SortedRuns&&) noexcept = default;
  SortedRuns(const SortedRuns&) = delete;
  SortedRuns& operator=(const SortedRuns&) = delete;

  // Adds a record. IoError when a run cannot be written (then nothing more
  // may be added). REQUIRES: no pass under way.
  [[nodiscard]] Status Add(const T& x) {
    if (memory_.size() == memory_.capacity()) memory_.reserve(NextCapacity(memory_.capacity(), max_in_memory_));
    memory_.push_back(x);
    ++added_;
    if (memory_.size() >= max_in_memory_) return Spill();
    return Status::Ok();
  }

  // Takes every record of `other` (which is left empty): its buffer joins
  // this one when both fit in the budget, else it goes out as a run; its
  // runs are taken over. IoError as Add().
  [[nodiscard]] Status Absorb(SortedRuns&& other) {
    if (memory_.size() + other.memory_.size() <= max_in_memory_) {
      memory_.reserve(memory_.size() + other.memory_.size());
      memory_.insert(memory_.end(), other.memory_.begin(), other.memory_.end());
    } else if (!other.memory_.empty()) {
      if (Status s = other.Spill(); !s.ok()) return s;
    }
    other.memory_ = Buffer();  // not `= {}`, which keeps the capacity
    for (TempFile& f : other.runs_) runs_.push_back(std::move(f));
    added_ += other.added_;
    other.runs_.clear();
    other.added_ = 0;
    if (runs_.size() >= kMaxRuns) return MergeRuns();
    return Status::Ok();
  }

  // Ends the adding: when some run went to a file, the buffer goes out as
  // one more run and its memory is let go, so that a finished sequence that
  // spilled holds no more than its read-ahead while the next stage fills its
  // own; else the buffer is sorted, its repeats dropped, and kept. IoError as
  // Add(). Safe to call more than once.
  [[nodiscard]] Status Finish() {
    if (runs_.empty()) {
      SortUnique(&memory_);
      return Status::Ok();
    }
    if (!memory_.empty()) {
      if (Status s = Spill(); !s.ok()) return s;
    }
    memory_ = Buffer();  // not `= {}`, which keeps the capacity
    return Status::Ok();
  }

  // Records added, repeats included.
  uint64_t added() const { return added_; }
  bool empty() const { return added_ == 0; }
  // Whether any run went to a temporary file.
  bool spilled() const { return !runs_.empty(); }
  // OK, or the first error met by the last pass.
  const Status& status() const { return status_; }
  // Every distinct record in order, in memory (tests and small inputs).
  std::vector<T> ToVector() const {
    std::vector<T> all;
    for (const T& x : *this) all.push_back(x);
    return all;
  }

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T*;
    using reference = const T&;
    reference operator*() const { return current_; }
    pointer operator->() const { return &current_; }
    Iterator& operator++() {
      Advance();
      return *this;
    }
    friend bool operator==(const Iterator& x, const Iterator& y) { return x.owner_ == y.owner_; }
    friend bool operator!=(const Iterator& x, const Iterator& y) { return !(x == y); }

   private:
    friend class SortedRuns;
    explicit Iterator(const SortedRuns* owner) : owner_(owner) {}
    void Advance() {
      if (owner_ != nullptr && !owner_->NextDistinct(&current_)) owner_ = nullptr;
    }
    const SortedRuns* owner_;  // null at the end
    T current_{};
  };
  // Starts a pass (ending any other). REQUIRES: Finish() since the last Add().
  Iterator begin() const {
    StartMerge(/*with_memory=*/true);
    Iterator it(this);
    it.Advance();
    return it;
  }
  Iterator end() const { return Iterator(nullptr); }

 private:
  // One run's place in a pass: a buffer read ahead from its file, or the
  // sorted in-memory buffer itself.
  struct Cursor {
    std::FILE* file = nullptr;  // null: the in-memory buffer
    const Buffer* memory = nullptr;
    std::vector<T> buffer;
    size_t pos = 0;
    const T& Head() const { return file == nullptr ? (*memory)[pos] : buffer[pos]; }
  };
  // The state of a pass: the cursors, a min-heap of the live ones by head
  // (ties by cursor index, so the merge order is decided), the last record
  // given out.
  struct Merge {
    std::vector<Cursor> cursors;
    std::vector<size_t> heap;
    bool any = false;
    T last{};
    bool Greater(size_t x, size_t y) const {
      const T& a = cursors[x].Head();
      const T& b = cursors[y].Head();
      if (b < a) return true;
      if (a < b) return false;
      return x > y;
    }
  };

  static size_t NextCapacity(size_t capacity, size_t max_records) {
    return NextBufferCapacity(capacity, max_records, sizeof(T));
  }

  // A record ordered by a uniformly random `hash` first (content_keys.h's
  // KeyId) is sorted by radix, with a scratch copy of the buffer for the
  // moment of the sort: about three times faster than std::sort.
  static void SortUnique(Buffer* v) {
    if constexpr (requires(const T& t) { uint64_t{t.hash}; }) {
      Buffer scratch;
      std::vector<uint32_t> ends;
      internal::SortByHash(*v, scratch, ends);
    } else {
      std::sort(v->begin(), v->end());
    }
    v->erase(std::unique(v->begin(), v->end(), [](const T& x, const T& y) { return !(x < y) && !(y < x); }), v->end());
  }

  Status WriteError(const char* what) const {
    return Status::IoError("temporary file for " + purpose_ + " in " + ShellQuoted(TempFile::Folder()) + ": " + what +
                           ": " + std::strerror(errno));
  }

  // The buffer, sorted and without repeats, as a new run.
  Status Spill() {
    SortUnique(&memory_);
    Result<TempFile> f = TempFile::Create(purpose_);
    if (!f.ok()) return f.status();
    if (std::fwrite(memory_.data(), sizeof(T), memory_.size(), f->get()) != memory_.size() ||
        std::fflush(f->get()) != 0) {
      return WriteError("write");
    }
    runs_.push_back(std::move(*f));
    memory_.clear();
    if (runs_.size() >= kMaxRuns) return MergeRuns();
    return Status::Ok();
  }

  // The file runs merged into one (the buffer stays as it is).
  Status MergeRuns() {
    Result<TempFile> out = TempFile::Create(purpose_);
    if (!out.ok()) return out.status();
    StartMerge(/*with_memory=*/false);
    std::vector<T> chunk;
    chunk.reserve(kReadAhead);
    T x;
    bool more = true;
    while (more) {
      more = NextDistinct(&x);
      if (more) chunk.push_back(x);
      if (chunk.size() == kReadAhead || (!more && !chunk.empty())) {
        if (std::fwrite(chunk.data(), sizeof(T), chunk.size(), out->get()) != chunk.size()) {
          merge_.reset();
          return WriteError("write");
        }
        chunk.clear();
      }
    }
    merge_.reset();
    if (!status_.ok()) return status_;
    if (std::fflush(out->get()) != 0) return WriteError("write");
    runs_.clear();
    runs_.push_back(std::move(*out));
    return Status::Ok();
  }

  // Refills a file cursor's buffer; false at its end (or on a read error,
  // recorded in status_).
  bool Fill(Cursor* c) const {
    c->buffer.resize(kReadAhead);
    const size_t n = std::fread(c->buffer.data(), sizeof(T), kReadAhead, c->file);
    if (n < kReadAhead && std::ferror(c->file) != 0 && status_.ok()) {
      status_ = Status::IoError("temporary file for " + purpose_ + ": read failed");
    }
    c->buffer.resize(n);
    c->pos = 0;
    return n > 0;
  }

  void StartMerge(bool with_memory) const {
    status_ = Status::Ok();
    merge_ = std::make_unique<Merge>();
    Merge& m = *merge_;
    m.cursors.resize(runs_.size() + (with_memory ? 1 : 0));
    for (size_t r = 0; r < runs_.size(); ++r) {
      std::rewind(runs_[r].get());
      m.cursors[r].file = runs_[r].get();
      if (Fill(&m.cursors[r])) m.heap.push_back(r);
    }
    if (with_memory) {
      m.cursors.back().memory = &memory_;
      if (!memory_.empty()) m.heap.push_back(m.cursors.size() - 1);
    }
    std::make_heap(m.heap.begin(), m.heap.end(), [&m](size_t x, size_t y) { return m.Greater(x, y); });
  }

  // Pops the smallest head into `out`; false at the end.
  bool NextHead(T* out) const {
    Merge& m = *merge_;
    if (m.heap.empty()) return false;
    auto greater = [&m](size_t x, size_t y) { return m.Greater(x, y); };
    std::pop_heap(m.heap.begin(), m.heap.end(), greater);
    Cursor& cur = m.cursors[m.heap.back()];
    *out = cur.Head();
    ++cur.pos;
    const size_t size = cur.file == nullptr ? cur.memory->size() : cur.buffer.size();
    if (cur.pos < size || (cur.file != nullptr && Fill(&cur))) {
      std::push_heap(m.heap.begin(), m.heap.end(), greater);
    } else {
      m.heap.pop_back();
    }
    return true;
  }

  // The next record that is not a repeat of the last one; false at the end.
  bool NextDistinct(T* out) const {
    Merge& m = *merge_;
    while (NextHead(out)) {
      if (m.any && !(m.last < *out)) continue;  // a repeat (runs are ascending)
      m.any = true;
      m.last = *out;
      return true;
    }
    merge_.reset();
    return false;
  }

  size_t max_in_memory_;
  std::string purpose_;
  uint64_t added_ = 0;
  Buffer memory_;
  std::vector<TempFile> runs_;
  // The state of the pass under way (a pass does not change the records).
  mutable std::unique_ptr<Merge> merge_;
  mutable Status status_;
};

}  // namespace neardup
