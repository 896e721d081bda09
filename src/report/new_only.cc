#include "report/new_only.h"

#include <algorithm>

namespace neardup {

Result<SortedPairs> PairsWith(const std::vector<uint8_t>& flagged, const SortedPairs& all, size_t pair_memory) {
  SortedPairs kept(pair_memory);
  uint64_t position = 0;
  for (const ReportedPair& p : all) {
    if (flagged[p.a] == 0 && flagged[p.b] == 0) continue;
    if (Status s = kept.Add(position++, p); !s.ok()) return s;
  }
  if (!all.status().ok()) return all.status();
  if (Status s = kept.Finish(); !s.ok()) return s;
  return kept;
}

Clustering ClustersWith(const std::vector<uint8_t>& flagged, Clustering all) {
  Clustering out;
  std::vector<uint8_t> in_kept(flagged.size(), 0);
  for (Cluster& c : all.clusters) {
    if (std::none_of(c.members.begin(), c.members.end(), [&](DocId d) { return flagged[d] != 0; })) continue;
    c.id = static_cast<uint32_t>(out.clusters.size());
    for (DocId d : c.members) in_kept[d] = 1;
    out.clusters.push_back(std::move(c));
  }
  out.removable = std::move(all.removable);
  std::erase_if(out.removable, [&](const Removal& r) { return in_kept[r.doc] == 0; });
  return out;
}

}  // namespace neardup
