// CopyGroups: the documents of a SignatureTable grouped by content hash
// (exact copies, as far as the hash can tell), so that each distinct text
// is indexed and verified once, through its representative.
//
// Only kOk documents are grouped. A group's representative is its smallest
// DocId; groups are kept in ascending order of representative (`slot` k is
// the k-th group), members of a group in ascending DocId. Verification may
// later replace a group's members by those it confirmed (KeepOnly): a
// document left out then belongs to no group.
//
// Thread safety: a plain value.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sign/signature_table.h"

namespace neardup {

class CopyGroups {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // Groups the kOk documents of `table` by content hash.
  static CopyGroups Build(const SignatureTable& table);

  size_t size() const { return reps_.size(); }
  // Representatives, ascending: the rows to index.
  const std::vector<DocId>& representatives() const { return reps_; }
  DocId representative(size_t slot) const { return reps_[slot]; }
  // The group of document `d` (its representative), or kNone.
  uint32_t rep_of(DocId d) const { return rep_of_[d]; }
  // The slot of representative `rep`. REQUIRES: rep is a representative.
  uint32_t slot_of(DocId rep) const { return rep_slot_[rep]; }
  std::span<const DocId> members(size_t slot) const {
    return {members_.data() + start_[slot], start_[slot + 1] - start_[slot]};
  }
  std::span<const DocId> members_of(DocId rep) const { return members(slot_of(rep)); }
  // Documents identical to an earlier one: sum over groups of (members - 1).
  uint64_t copies() const;

  // Replaces the members of group `slots[g]` by `kept[g]` (ascending; may be
  // empty) for every g; the documents dropped belong to no group after.
  void KeepOnly(const std::vector<uint32_t>& slots, const std::vector<std::vector<DocId>>& kept);

 private:
  std::vector<uint32_t> rep_of_;    // DocId -> representative, or kNone
  std::vector<uint32_t> rep_slot_;  // DocId of a representative -> slot, else kNone
  std::vector<DocId> reps_;         // per slot
  std::vector<uint32_t> start_;     // CSR over slots: members of slot k
  std::vector<DocId> members_;
};

}  // namespace neardup
