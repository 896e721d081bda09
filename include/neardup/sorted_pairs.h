// SortedPairs: the reported pairs in output order, in bounded memory.
//
// Pairs mode can report a number of pairs quadratic in the number of copies
// (10,000 copies of one text are 50 million pairs), while memory must not
// be. Pairs are added with a 64-bit sort key in any order; up to a budget of
// bytes they are kept in memory, and past it each full buffer is sorted and
// written to an anonymous temporary file (under TMPDIR, else /tmp: it
// disappears when closed or when the process dies). Iterating merges the
// runs. Keys are unique for distinct pairs, so the order is total and the
// output does not depend on the order of Add() calls. At most kMaxRuns run
// files are kept: past that, the runs are merged into one. The sorting is
// SortedRuns' (base/sorted_runs.h), of (key, pair) records.
//
// Usage: Add() any number of times, then Finish(), then iterate (one pass at
// a time; each begin() starts again from the first pair). A read error of a
// temporary file while iterating ends the iteration early; status() says so.
//
// Thread safety: none; one thread builds it, one thread reads it.
//
//   SortedPairs pairs(options.pair_memory);
//   if (Status s = pairs.Add(key, pair); !s.ok()) return s; ...
//   if (Status s = pairs.Finish(); !s.ok()) return s;
//   for (const ReportedPair& p : pairs) Write(p);
//   if (!pairs.status().ok()) return pairs.status();
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <vector>

#include "neardup/doc_id.h"
#include "neardup/options.h"
#include "neardup/status.h"

namespace neardup {

struct ReportedPair {
  DocId a = 0;  // REQUIRES: docs[a].name < docs[b].name
  DocId b = 0;
  double estimate = 0;  // share of agreeing signature positions
  double jaccard = -1;  // exact Jaccard, or -1 when not computed
  PairKind kind = PairKind::kSimilar;
  // With --relation contains|both: the containment of the smaller document
  // (by distinct shingles) in the other, exact with --exact, else estimated
  // from the estimate and the sizes; -1 otherwise.
  double containment = -1;
};

class SortedPairs {
 public:
  static constexpr size_t kMaxRuns = 64;

  // Holds Options{}.pair_memory bytes of pairs in memory before a run is
  // written out.
  SortedPairs() : SortedPairs(Options{}.pair_memory) {}
  explicit SortedPairs(size_t budget_bytes);
  // Pairs already in order (tests).
  SortedPairs(std::initializer_list<ReportedPair> in_order);
  ~SortedPairs();
  SortedPairs(SortedPairs&&) noexcept;
  SortedPairs& operator=(SortedPairs&&) noexcept;
  SortedPairs(const SortedPairs&) = delete;
  SortedPairs& operator=(const SortedPairs&) = delete;

  // Adds a pair. Pairs come out sorted by `key`. REQUIRES: Finish() not called;
  // keys are unique. IoError when a temporary file cannot be written.
  [[nodiscard]] Status Add(uint64_t key, const ReportedPair& pair);
  // Appends a pair after all others (the key is its position): for pairs
  // that are already in order, as tests build them.
  void push_back(const ReportedPair& pair);
  // Ends the adding: sorts what is in memory, or, when some run went to a
  // file, writes it as one more run. IoError as Add(). Safe to call more
  // than once.
  [[nodiscard]] Status Finish();

  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // Whether any run went to a temporary file.
  bool spilled() const;
  // OK, or the first error met while reading the runs back.
  const Status& status() const;
  // All pairs in order, in memory (tests and small reports).
  std::vector<ReportedPair> ToVector() const;

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = ReportedPair;
    using difference_type = std::ptrdiff_t;
    using pointer = const ReportedPair*;
    using reference = const ReportedPair&;
    reference operator*() const { return current_; }
    pointer operator->() const { return &current_; }
    Iterator& operator++() {
      Advance();
      return *this;
    }
    friend bool operator==(const Iterator& x, const Iterator& y) { return x.owner_ == y.owner_; }
    friend bool operator!=(const Iterator& x, const Iterator& y) { return !(x == y); }

   private:
    friend class SortedPairs;
    explicit Iterator(const SortedPairs* owner) : owner_(owner) {}
    void Advance();
    const SortedPairs* owner_;  // null at the end
    ReportedPair current_;
  };
  Iterator begin() const;
  Iterator end() const { return Iterator(nullptr); }

 private:
  struct Impl;
  size_t count_ = 0;
  std::unique_ptr<Impl> impl_;  // null once moved from
};

}  // namespace neardup
