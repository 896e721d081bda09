#include "distributed/format/id_lists.h"

#include <utility>

namespace neardup {

void PutIdLists(std::string* out, const std::vector<std::vector<uint64_t>>& lists) {
  PutFixed64(out, lists.size());
  for (const std::vector<uint64_t>& list : lists) {
    PutFixed64(out, list.size());
    PutFixed64s(out, list);
  }
}

bool ReadIdLists(Decoder& r, std::vector<std::vector<uint64_t>>* lists) {
  const uint64_t n = r.Count("the id list count", 8);
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    std::vector<uint64_t> list(r.Count("an id list's size", 8));
    r.U64s(list, "an id list's ids");
    if (r.ok()) lists->push_back(std::move(list));
  }
  return r.ok();
}

}  // namespace neardup
