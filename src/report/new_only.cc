#include "report/new_only.h"

#include <algorithm>

namespace neardup {

Status KeepOnlyNew(const std::vector<uint8_t>& signed_now, const Options& options, Report* report) {
  Stats& st = report->stats;
  if (report->params.mode == Mode::kPairs) {
    SortedPairs kept(options.pair_memory);
    uint64_t position = 0;
    for (const ReportedPair& p : report->pairs) {
      if (signed_now[p.a] == 0 && signed_now[p.b] == 0) continue;
      if (Status s = kept.Add(position++, p); !s.ok()) return s;
    }
    if (!report->pairs.status().ok()) return report->pairs.status();
    if (Status s = kept.Finish(); !s.ok()) return s;
    st.pairs = kept.size();
    report->pairs = std::move(kept);
    return Status::Ok();
  }
  std::vector<Cluster> clusters;
  std::vector<uint8_t> in_kept(report->docs.size(), 0);
  for (Cluster& c : report->clusters) {
    if (std::none_of(c.members.begin(), c.members.end(), [&](DocId d) { return signed_now[d] != 0; })) continue;
    c.id = static_cast<uint32_t>(clusters.size());
    for (DocId d : c.members) in_kept[d] = 1;
    clusters.push_back(std::move(c));
  }
  report->clusters = std::move(clusters);
  std::erase_if(report->removable, [&](DocId d) { return in_kept[d] == 0; });
  st.clusters = report->clusters.size();
  st.clustered = 0;
  for (const Cluster& c : report->clusters) st.clustered += c.members.size();
  st.removable = report->removable.size();
  st.removable_bytes = 0;
  for (DocId d : report->removable) st.removable_bytes += report->docs[d].size;
  return Status::Ok();
}

}  // namespace neardup
