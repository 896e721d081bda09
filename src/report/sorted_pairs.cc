#include "neardup/sorted_pairs.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <queue>
#include <string>
#include <utility>

#include "base/sorted_runs.h"
#include "base/temp_file.h"

namespace neardup {

namespace {

// Records are written as the raw bytes of Entry: the file is read back by
// this same process only, so no portable encoding is needed.
constexpr size_t kReadAhead = 4096;  // entries buffered per run while merging

Status TempError(const char* what) {
  return Status::IoError(std::string("temporary file for sorting pairs: ") + what + ": " + std::strerror(errno));
}

}  // namespace

// The state of one pass over the runs: a buffered cursor per run and a heap
// of the cursors by their next key.
struct SortedPairs::Merge {
  struct Cursor {
    std::FILE* file = nullptr;  // null: the in-memory run
    const std::vector<Entry>* memory = nullptr;
    std::vector<Entry> buffer;
    size_t pos = 0;
    size_t memory_pos = 0;
    bool Fill(Status* status) {
      if (file == nullptr) {
        if (memory_pos >= memory->size()) return false;
        const size_t n = std::min(kReadAhead, memory->size() - memory_pos);
        buffer.assign(memory->begin() + static_cast<std::ptrdiff_t>(memory_pos),
                      memory->begin() + static_cast<std::ptrdiff_t>(memory_pos + n));
        memory_pos += n;
        pos = 0;
        return true;
      }
      buffer.resize(kReadAhead);
      const size_t n = std::fread(buffer.data(), sizeof(Entry), kReadAhead, file);
      if (n < kReadAhead && std::ferror(file) != 0 && status->ok()) *status = TempError("read");
      buffer.resize(n);
      pos = 0;
      return n > 0;
    }
    const Entry& Head() const { return buffer[pos]; }
  };
  std::vector<Cursor> cursors;
  // Min-heap of cursor indices by their head key.
  std::vector<size_t> heap;
  bool Greater(size_t x, size_t y) const { return cursors[y].Head() < cursors[x].Head(); }
};

SortedPairs::SortedPairs(size_t budget_bytes) : max_in_memory_(std::max<size_t>(budget_bytes / sizeof(Entry), 1)) {}

SortedPairs::SortedPairs(std::initializer_list<ReportedPair> in_order) : SortedPairs() {
  for (const ReportedPair& p : in_order) push_back(p);
}

SortedPairs::~SortedPairs() {
  for (std::FILE* f : runs_) std::fclose(f);
}

SortedPairs::SortedPairs(SortedPairs&& o) noexcept
    : max_in_memory_(o.max_in_memory_),
      count_(o.count_),
      sorted_(o.sorted_),
      memory_(std::move(o.memory_)),
      runs_(std::move(o.runs_)),
      merge_(std::move(o.merge_)),
      status_(std::move(o.status_)) {
  o.runs_.clear();
  o.count_ = 0;
}

SortedPairs& SortedPairs::operator=(SortedPairs&& o) noexcept {
  if (this != &o) {
    for (std::FILE* f : runs_) std::fclose(f);
    max_in_memory_ = o.max_in_memory_;
    count_ = o.count_;
    sorted_ = o.sorted_;
    memory_ = std::move(o.memory_);
    runs_ = std::move(o.runs_);
    merge_ = std::move(o.merge_);
    status_ = std::move(o.status_);
    o.runs_.clear();
    o.count_ = 0;
  }
  return *this;
}

Status SortedPairs::Add(uint64_t key, const ReportedPair& pair) {
  if (!memory_.empty() && key < memory_.back().key) sorted_ = false;
  if (memory_.size() == memory_.capacity()) {
    memory_.reserve(NextBufferCapacity(memory_.capacity(), max_in_memory_, sizeof(Entry)));
  }
  memory_.push_back({key, pair});
  ++count_;
  if (memory_.size() >= max_in_memory_) return Spill();
  return Status::Ok();
}

void SortedPairs::push_back(const ReportedPair& pair) {
  memory_.push_back({count_, pair});
  ++count_;
}

Status SortedPairs::Spill() {
  if (!sorted_) std::sort(memory_.begin(), memory_.end());
  sorted_ = true;
  Result<TempFile> made = TempFile::Create("sorting pairs");
  if (!made.ok()) return made.status();
  std::FILE* f = made->Release();
  runs_.push_back(f);
  if (std::fwrite(memory_.data(), sizeof(Entry), memory_.size(), f) != memory_.size() || std::fflush(f) != 0) {
    return TempError("write");
  }
  memory_.clear();
  if (runs_.size() >= kMaxRuns) return MergeRunsIntoOne();
  return Status::Ok();
}

Status SortedPairs::MergeRunsIntoOne() {
  Result<TempFile> made = TempFile::Create("sorting pairs");
  if (!made.ok()) return made.status();
  std::FILE* out = made->Release();
  // Called right after a spill: everything is in the file runs.
  StartMerge();
  std::vector<Entry> chunk;
  chunk.reserve(kReadAhead);
  Entry e;
  bool more = true;
  while (more) {
    more = NextEntry(&e);
    if (more) chunk.push_back(e);
    if (chunk.size() == kReadAhead || (!more && !chunk.empty())) {
      if (std::fwrite(chunk.data(), sizeof(Entry), chunk.size(), out) != chunk.size()) {
        std::fclose(out);
        return TempError("write");
      }
      chunk.clear();
    }
  }
  merge_.reset();
  if (!status_.ok() || std::fflush(out) != 0) {
    std::fclose(out);
    return status_.ok() ? TempError("write") : status_;
  }
  for (std::FILE* f : runs_) std::fclose(f);
  runs_.assign(1, out);
  return Status::Ok();
}

Status SortedPairs::Finish() {
  if (!sorted_) std::sort(memory_.begin(), memory_.end());
  sorted_ = true;
  return Status::Ok();
}

SortedPairs::Iterator SortedPairs::begin() const {
  StartMerge();
  Iterator it(this);
  it.Advance();
  return it;
}

void SortedPairs::StartMerge() const {
  status_ = Status::Ok();
  merge_ = std::make_unique<Merge>();
  Merge& m = *merge_;
  m.cursors.resize(runs_.size() + 1);
  for (size_t r = 0; r < runs_.size(); ++r) {
    std::rewind(runs_[r]);
    m.cursors[r].file = runs_[r];
  }
  m.cursors.back().memory = &memory_;
  for (size_t c = 0; c < m.cursors.size(); ++c) {
    if (m.cursors[c].Fill(&status_)) m.heap.push_back(c);
  }
  auto greater = [&m](size_t x, size_t y) { return m.Greater(x, y); };
  std::make_heap(m.heap.begin(), m.heap.end(), greater);
}

// Pops the smallest head into `out`; false at the end.
bool SortedPairs::NextEntry(Entry* out) const {
  Merge& m = *merge_;
  if (m.heap.empty()) return false;
  auto greater = [&m](size_t x, size_t y) { return m.Greater(x, y); };
  std::pop_heap(m.heap.begin(), m.heap.end(), greater);
  const size_t c = m.heap.back();
  Merge::Cursor& cur = m.cursors[c];
  *out = cur.Head();
  ++cur.pos;
  if (cur.pos < cur.buffer.size() || cur.Fill(&status_)) {
    std::push_heap(m.heap.begin(), m.heap.end(), greater);
  } else {
    m.heap.pop_back();
  }
  return true;
}

void SortedPairs::Iterator::Advance() {
  if (owner_ == nullptr) return;
  Entry e;
  if (owner_->NextEntry(&e)) {
    current_ = e.pair;
  } else {
    owner_ = nullptr;
  }
}

std::vector<ReportedPair> SortedPairs::ToVector() const {
  std::vector<ReportedPair> all;
  all.reserve(count_);
  for (const ReportedPair& p : *this) all.push_back(p);
  return all;
}

}  // namespace neardup
