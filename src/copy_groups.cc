#include "neardup/copy_groups.h"

#include <algorithm>
#include <utility>

namespace neardup {

CopyGroups CopyGroups::Build(const SignatureTable& table) {
  const auto& docs = table.docs;
  const size_t n = docs.size();
  std::vector<DocId> ok;
  for (DocId i = 0; i < n; ++i) {
    if (docs[i].kind == DocKind::kOk) ok.push_back(i);
  }
  std::sort(ok.begin(), ok.end(), [&](DocId x, DocId y) {
    if (!(docs[x].content == docs[y].content)) return docs[x].content < docs[y].content;
    return x < y;
  });
  CopyGroups g;
  g.rep_of_.assign(n, kNone);
  g.rep_slot_.assign(n, kNone);
  std::vector<std::pair<DocId, DocId>> rep_member;
  for (size_t lo = 0; lo < ok.size();) {
    size_t hi = lo + 1;
    while (hi < ok.size() && docs[ok[hi]].content == docs[ok[lo]].content) ++hi;
    const DocId rep = ok[lo];  // smallest id of the group
    for (size_t k = lo; k < hi; ++k) {
      g.rep_of_[ok[k]] = rep;
      rep_member.emplace_back(rep, ok[k]);
    }
    lo = hi;
  }
  std::sort(rep_member.begin(), rep_member.end());
  for (size_t k = 0; k < rep_member.size(); ++k) {
    if (k == 0 || rep_member[k].first != rep_member[k - 1].first) {
      g.rep_slot_[rep_member[k].first] = static_cast<uint32_t>(g.reps_.size());
      g.reps_.push_back(rep_member[k].first);
      g.start_.push_back(static_cast<uint32_t>(g.members_.size()));
    }
    g.members_.push_back(rep_member[k].second);
  }
  g.start_.push_back(static_cast<uint32_t>(g.members_.size()));
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
