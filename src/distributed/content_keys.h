// Content keys: a 64-bit key (the low half of a content hash, or the hash of
// a JSONL id) and a global id, sorted in bounded memory to find the groups of
// documents that share a key. The report finds the groups of copies and the
// JSONL ids taken twice with them; a verify task with --exact, the groups of
// copies it reads again.
//
// Two documents of one key are a group to look at: an equal content or name
// is then decided on the whole record, so a key shared by chance only reads
// one document more.
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <vector>

#include "base/sorted_runs.h"
#include "neardup/status.h"

namespace neardup {

// Ordered by `hash` first, a uniformly random value: SortedRuns sorts its
// buffers by radix (SortByHash, hash_sort.h).
struct KeyId {
  uint64_t hash = 0;  // the key
  uint64_t id = 0;
  bool operator<(const KeyId& o) const { return hash != o.hash ? hash < o.hash : id < o.id; }
};

// Memory for one sort over every document's keys; past it, it spills.
inline constexpr size_t kKeysMemory = size_t{8} << 20;

// Calls `group` with the ids of every run of more than one equal key (ids
// ascending), after finishing `keys`. Errors: the sort's (IoError).
template <typename GroupFn>
Status ForEachKeyGroup(SortedRuns<KeyId>* keys, GroupFn group) {
  if (Status s = keys->Finish(); !s.ok()) return s;
  std::vector<uint64_t> ids;
  uint64_t key = 0;
  auto flush = [&] {
    if (ids.size() > 1) group(ids);
    ids.clear();
  };
  for (const KeyId& k : *keys) {
    if (!ids.empty() && k.hash != key) flush();
    key = k.hash;
    ids.push_back(k.id);
  }
  flush();
  return keys->status();
}

}  // namespace neardup
