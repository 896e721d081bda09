#include "neardup/sorted_pairs.h"

#include <cassert>
#include <utility>

#include "base/sorted_runs.h"

namespace neardup {

// The pairs, as (key, pair) records sorted by key, and the place of the pass
// under way.
struct SortedPairs::Impl {
  struct Entry {
    uint64_t key;
    ReportedPair pair;
    bool operator<(const Entry& o) const { return key < o.key; }
  };
  using Runs = SortedRuns<Entry>;
  static_assert(Runs::kMaxRuns == kMaxRuns);

  explicit Impl(size_t budget_bytes) : runs(budget_bytes, "sorting pairs") {}

  Runs runs;
  // The next record of the pass under way (a pass does not change the pairs).
  Runs::Iterator cursor = runs.end();
};

SortedPairs::SortedPairs(size_t budget_bytes) : impl_(std::make_unique<Impl>(budget_bytes)) {}

SortedPairs::SortedPairs(std::initializer_list<ReportedPair> in_order) : SortedPairs() {
  for (const ReportedPair& p : in_order) push_back(p);
}

SortedPairs::~SortedPairs() = default;

SortedPairs::SortedPairs(SortedPairs&& o) noexcept : count_(o.count_), impl_(std::move(o.impl_)) { o.count_ = 0; }

SortedPairs& SortedPairs::operator=(SortedPairs&& o) noexcept {
  if (this != &o) {
    count_ = o.count_;
    impl_ = std::move(o.impl_);
    o.count_ = 0;
  }
  return *this;
}

Status SortedPairs::Add(uint64_t key, const ReportedPair& pair) {
  assert(impl_ != nullptr);
  ++count_;
  return impl_->runs.Add({key, pair});
}

void SortedPairs::push_back(const ReportedPair& pair) {
  assert(impl_ != nullptr);
  [[maybe_unused]] const Status s = impl_->runs.Add({count_, pair});
  assert(s.ok());
  ++count_;
}

Status SortedPairs::Finish() { return impl_ == nullptr ? Status::Ok() : impl_->runs.Finish(); }

bool SortedPairs::spilled() const { return impl_ != nullptr && impl_->runs.spilled(); }

const Status& SortedPairs::status() const {
  static const Status kOk;
  return impl_ == nullptr ? kOk : impl_->runs.status();
}

SortedPairs::Iterator SortedPairs::begin() const {
  if (impl_ == nullptr) return end();
  impl_->cursor = impl_->runs.begin();
  Iterator it(this);
  it.Advance();
  return it;
}

void SortedPairs::Iterator::Advance() {
  if (owner_ == nullptr) return;
  Impl& m = *owner_->impl_;
  if (m.cursor == m.runs.end()) {
    owner_ = nullptr;
    return;
  }
  current_ = m.cursor->pair;
  ++m.cursor;
}

std::vector<ReportedPair> SortedPairs::ToVector() const {
  std::vector<ReportedPair> all;
  all.reserve(count_);
  for (const ReportedPair& p : *this) all.push_back(p);
  return all;
}

}  // namespace neardup
