#include "lsh/copy_groups.h"

#include <algorithm>
#include <utility>

#include "base/hash_sort.h"

namespace neardup {
namespace {

// A readable document's content hash, high half first (the order of
// ContentHash's operator<), then its id.
struct ContentEntry {
  uint64_t hash;  // ContentHash::high
  uint64_t low;
  DocId id;
  bool operator<(const ContentEntry& o) const {
    if (hash != o.hash) return hash < o.hash;
    return low != o.low ? low < o.low : id < o.id;
  }
};

}  // namespace

CopyGroups CopyGroups::Build(const SignatureTable& table) {
  const auto& docs = table.docs;
  const size_t n = docs.size();
  // The readable documents, by content hash; the groups of equal content are
  // found among them below.
  std::vector<ContentEntry> ok;
  ok.reserve(n);
  for (DocId i = 0; i < n; ++i) {
    if (docs[i].kind == DocKind::kOk) ok.push_back({docs[i].content.high, docs[i].content.low, i});
  }
  CopyGroups g;
  g.rep_of_.assign(n, kNone);
  g.rep_slot_.assign(n, kNone);
  for (const ContentEntry& e : ok) g.rep_of_[e.id] = e.id;  // alone, unless a run below says not
  {
    std::vector<ContentEntry> scratch;
    std::vector<uint32_t> ends;
    // Runs of equal high halves, in operator< order: within one, the runs of
    // equal low halves are the groups, each led by its smallest id.
    internal::ForEachRunOfEqualHashes(ok, scratch, ends, [&](const ContentEntry* run, size_t count) {
      for (size_t lo = 0; lo < count;) {
        size_t hi = lo + 1;
        while (hi < count && run[hi].low == run[lo].low) ++hi;
        for (size_t k = lo; k < hi; ++k) g.rep_of_[run[k].id] = run[lo].id;
        lo = hi;
      }
    });
  }
  // Groups in the order of their representatives, members in id order: a
  // counting pass over the ids, then each id placed after its group's last.
  for (DocId i = 0; i < n; ++i) {
    if (g.rep_of_[i] == i) {
      g.rep_slot_[i] = static_cast<uint32_t>(g.reps_.size());
      g.reps_.push_back(i);
    }
  }
  g.start_.assign(g.reps_.size() + 1, 0);
  for (DocId i = 0; i < n; ++i) {
    if (g.rep_of_[i] != kNone) ++g.start_[g.rep_slot_[g.rep_of_[i]] + 1];
  }
  for (size_t k = 1; k < g.start_.size(); ++k) g.start_[k] += g.start_[k - 1];
  g.members_.resize(ok.size());
  std::vector<uint32_t> next(g.start_.begin(), g.start_.end() - 1);
  for (DocId i = 0; i < n; ++i) {
    if (g.rep_of_[i] != kNone) g.members_[next[g.rep_slot_[g.rep_of_[i]]]++] = i;
  }
  return g;
}

uint64_t CopyGroups::copies() const {
  uint64_t copies = 0;
  for (size_t k = 0; k < reps_.size(); ++k) {
    if (start_[k + 1] > start_[k]) copies += start_[k + 1] - start_[k] - 1;
  }
  return copies;
}

void CopyGroups::KeepOnly(const std::vector<uint32_t>& slots, const std::vector<std::vector<DocId>>& kept) {
  std::vector<const std::vector<DocId>*> kept_of(reps_.size(), nullptr);
  for (size_t g = 0; g < slots.size(); ++g) {
    kept_of[slots[g]] = &kept[g];
    for (DocId d : members(slots[g])) rep_of_[d] = kNone;
  }
  std::vector<uint32_t> start;
  std::vector<DocId> members;
  for (size_t k = 0; k < reps_.size(); ++k) {
    start.push_back(static_cast<uint32_t>(members.size()));
    if (kept_of[k] == nullptr) {
      members.insert(members.end(), members_.begin() + start_[k], members_.begin() + start_[k + 1]);
      continue;
    }
    for (DocId d : *kept_of[k]) {
      members.push_back(d);
      rep_of_[d] = reps_[k];
    }
  }
  start.push_back(static_cast<uint32_t>(members.size()));
  start_ = std::move(start);
  members_ = std::move(members);
}

}  // namespace neardup
