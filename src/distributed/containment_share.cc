#include "distributed/containment_share.h"

#include <limits>
#include <set>
#include <string>

#include "base/mapped_file.h"
#include "distributed/format/shard_meta.h"
#include "lsh/containment_candidates.h"
#include "lsh/copy_groups.h"
#include "neardup/quote.h"
#include "sign/table_codec.h"

namespace neardup {

namespace {

// The documents that can be contained or contain, over every shard: their
// records and signatures (document k being global id ids[k]).
struct Containable {
  SignatureTable table;
  std::vector<uint64_t> ids;
};

// Adds to *out the documents of shard `s` that can be contained (kOk, at
// least --min-contained distinct shingles) and whose content no earlier
// document had (`seen`: the contents kept so far).
Status AddShard(const WorkFolder& folder, const Options& o, uint32_t s, std::set<ContentHash>* seen, Containable* out) {
  const std::string path = folder.File(StageKind::kSign, s, "table");
  Result<MappedFile> file = MappedFile::Open(path);
  if (!file.ok()) return file.status();
  file->Advise(MappedFile::Access::kSequential);
  size_t read_to = 0;
  RecordWalk walk{.keep =
                      [&](uint64_t, const DocRecord& d) {
                        return d.kind == DocKind::kOk && d.shingles >= o.min_contained &&
                               seen->insert(d.content).second;
                      },
                  .hashed = [&](size_t n) { file->Release(0, n); },
                  .read =
                      [&](size_t n) {
                        file->Release(read_to, n - read_to);
                        read_to = n;
                      },
                  .checksum = true};
  Result<DecodedRecords> part = DecodeRecordsWith(file->bytes(), walk);
  if (!part.ok()) return Damaged(path, part.status().message());
  if (!(part->params == SignatureParams::From(o))) {
    return Status::InvalidArgument(ShellQuoted(path) + ": signed with other parameters");
  }
  const size_t perm = static_cast<size_t>(o.num_perm);
  std::vector<uint32_t> values;
  values.reserve(part->kept.size() * perm);
  for (const uint64_t k : part->kept) {
    const auto row = part->signatures.subspan(k * perm, perm);
    values.insert(values.end(), row.begin(), row.end());
    out->ids.push_back(GlobalId(s, k));
  }
  for (DocRecord& d : part->docs) d.file = 0;  // the table holds no file
  out->table.Append(std::move(part->docs), values);
  file->Release(0, file->size());
  if (out->ids.size() >= std::numeric_limits<DocId>::max()) {
    return Status::InvalidArgument("more documents that can be contained than one bucket task can hold");
  }
  return Status::Ok();
}

}  // namespace

Result<ContainedShare> FindContainedShare(const Run& run, const WorkFolder& folder, uint32_t shards, StageTask t) {
  const Options& o = run.options();
  Containable all{.table = SignatureTable(o.num_perm), .ids = {}};
  std::set<ContentHash> seen;
  for (uint32_t s = 0; s < shards; ++s) {
    if (Status st = AddShard(folder, o, s, &seen, &all); !st.ok()) return st;
  }
  seen.clear();
  // Each document kept is the first of its content: its own group.
  const CopyGroups groups = CopyGroups::Build(all.table);
  Result<Candidates> found =
      FindContainmentCandidates(all.table, groups, o, run.workers(), {.task = t.task, .tasks = t.tasks});
  if (!found.ok()) return found.status();
  ContainedShare out{.visited = found->visited, .pairs = {}};
  for (const Candidate& c : found->pairs) out.pairs.push_back({.a = all.ids[c.a], .b = all.ids[c.b]});
  if (!found->pairs.status().ok()) return found->pairs.status();
  return out;
}

}  // namespace neardup
