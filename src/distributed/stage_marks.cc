#include "distributed/stage_marks.h"

#include <algorithm>
#include <cassert>
#include <filesystem>
#include <string>
#include <utility>

#include "distributed/format/mark_list.h"
#include "distributed/format/shard_meta.h"
#include "neardup/quote.h"

namespace neardup {

namespace {

std::string MarksPath(const WorkFolder& folder, uint32_t shard) {
  return folder.File(StageKind::kReport, shard, "marks");
}

// Every marked document, by global id ascending, and the kept documents'
// names (each once).
struct GlobalMarks {
  std::vector<std::pair<uint64_t, ShardMark>> marks;  // ShardMark::local not set yet
  std::vector<std::string> names;
};

GlobalMarks MarksOf(const std::vector<uint64_t>& global, const ReportOutcome& reported) {
  GlobalMarks out;
  for (const Cluster& c : reported.clusters) {
    const bool has_duplicates = c.members.size() > 1;
    if (has_duplicates) out.names.push_back(reported.report.docs[c.keep].name);
    for (const DocId d : c.members) {
      out.marks.push_back({global[d],
                           {.local = 0,
                            .cluster = c.id,
                            .name = has_duplicates ? static_cast<uint32_t>(out.names.size() - 1) : 0,
                            .score = 0,
                            .clustered = true,
                            .duplicate = d != c.keep,
                            .scored = false,
                            .kept = true}});
    }
  }
  std::sort(out.marks.begin(), out.marks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  auto mark_of = [&](DocId d) -> ShardMark* {
    const uint64_t id = global[d];
    auto it =
        std::lower_bound(out.marks.begin(), out.marks.end(), id, [](const auto& m, uint64_t x) { return m.first < x; });
    return it != out.marks.end() && it->first == id ? &it->second : nullptr;
  };
  for (const Removal& r : reported.removable) {
    if (ShardMark* m = mark_of(r.doc); m != nullptr) {
      m->score = r.jaccard >= 0 ? r.jaccard : r.estimate;
      m->scored = true;
    }
  }
  for (const DocId d : reported.dropped) {
    if (ShardMark* m = mark_of(d); m != nullptr) m->kept = false;
  }
  return out;
}

}  // namespace

Status WriteMarkLists(const WorkFolder& folder, const Options& o, const std::vector<ShardSpan>& shards,
                      const std::vector<uint64_t>& global, const ReportOutcome& reported) {
  const GlobalMarks all = MarksOf(global, reported);
  const uint64_t fingerprint = DroppedFingerprint(o);
  size_t end = all.marks.size();
  for (uint32_t s = static_cast<uint32_t>(shards.size()); s-- > 0;) {
    MarkList list{.task = {.task = s, .tasks = static_cast<uint32_t>(shards.size())},
                  .fingerprint = fingerprint,
                  .listing = shards[s].listing,
                  .docs = shards[s].docs,
                  .names = {},
                  .marks = {}};
    size_t begin = end;
    while (begin > 0 && ShardOf(all.marks[begin - 1].first) == s) --begin;
    // The shard's names alone, renumbered in order of first use.
    std::vector<uint32_t> renamed(all.names.size(), UINT32_MAX);
    for (size_t k = begin; k < end; ++k) {
      ShardMark m = all.marks[k].second;
      m.local = LocalOf(all.marks[k].first);
      assert(m.local < list.docs);
      if (m.duplicate) {
        if (renamed[m.name] == UINT32_MAX) {
          renamed[m.name] = static_cast<uint32_t>(list.names.size());
          list.names.push_back(all.names[m.name]);
        }
        m.name = renamed[m.name];
      } else {
        m.name = 0;
      }
      list.marks.push_back(m);
    }
    end = begin;
    if (Status st = WriteAtomically(MarksPath(folder, s), EncodeMarkList(list)); !st.ok()) return st;
  }
  assert(end == 0);
  return Status::Ok();
}

Status RemoveMarkLists(const WorkFolder& folder, uint32_t shards) {
  for (uint32_t s = 0; s < shards; ++s) {
    const std::string path = MarksPath(folder, s);
    std::error_code ec;
    std::filesystem::remove(path, ec);
    if (ec) return Status::IoError(ShellQuoted(path) + ": cannot remove: " + ec.message());
  }
  return Status::Ok();
}

bool MarksCurrent(const WorkFolder& folder, const Options& o, StageTask t, uint64_t listing) {
  Result<std::string> bytes = ReadWholeFile(MarksPath(folder, t.task));
  if (!bytes.ok()) return false;
  Result<MarkList> list = DecodeMarkList(*bytes);
  return list.ok() && list->fingerprint == DroppedFingerprint(o) && list->listing == listing &&
         list->task.task == t.task && list->task.tasks == t.tasks;
}

Status AddShardMarks(const WorkFolder& folder, const Options& o, StageTask t, const ShardDocs& shard,
                     AnnotateMarks* out) {
  const std::string path = MarksPath(folder, t.task);
  Result<std::string> bytes = ReadWholeFile(path);
  if (!bytes.ok()) return bytes.status();
  Result<MarkList> list = DecodeMarkList(*bytes);
  if (!list.ok()) return Damaged(path, list.status().message());
  if (list->task.task != t.task || list->task.tasks != t.tasks || list->docs != shard.docs.size()) {
    return Damaged(path, "made for another shard");
  }
  if (list->listing != shard.listing || list->fingerprint != DroppedFingerprint(o)) {
    return Status::InvalidArgument(ShellQuoted(path) + ": made from other sign tasks or with other options");
  }
  const uint32_t first_name = static_cast<uint32_t>(out->names.size());
  for (std::string& name : list->names) out->names.push_back(std::move(name));
  size_t next = 0;  // the next mark, by local id
  for (uint64_t d = 0; d < shard.docs.size(); ++d) {
    const KeptSources::Doc& doc = shard.docs[d];
    const int64_t f = shard.file_of(doc.file);
    const bool marked = next < list->marks.size() && list->marks[next].local == d;
    if (f >= 0 && WritableKind(doc.kind)) {
      out->AddLine(static_cast<uint32_t>(f), doc.line);
      if (marked) {
        const ShardMark& m = list->marks[next];
        out->files[static_cast<size_t>(f)].marks.push_back({.line = doc.line,
                                                            .cluster = m.cluster,
                                                            .name = first_name + m.name,
                                                            .score = m.score,
                                                            .clustered = m.clustered,
                                                            .duplicate = m.duplicate,
                                                            .scored = m.scored,
                                                            .kept = m.kept});
      }
    }
    if (marked) ++next;
  }
  return Status::Ok();
}

}  // namespace neardup
