#include "distributed/stage_verify.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <unordered_map>

#include "base/coding.h"
#include "base/hash.h"
#include "base/large_array_allocator.h"
#include "base/mapped_file.h"
#include "distributed/content_keys.h"
#include "distributed/format/bucket_pairs.h"
#include "distributed/format/shard_bitmaps.h"
#include "distributed/format/shard_meta.h"
#include "distributed/format/verify_output.h"
#include "distributed/shards.h"
#include "distributed/stage_bucket.h"
#include "distributed/task_frame.h"
#include "distributed/work_folder.h"
#include "lsh/band_key.h"
#include "lsh/candidates.h"
#include "lsh/copy_groups.h"
#include "lsh/similarity.h"
#include "neardup/quote.h"
#include "scan/run.h"
#include "sign/table_codec.h"

namespace neardup {

namespace {

// The bytes of a bucket output read at once.
constexpr size_t kStreamBuffer = size_t{1} << 20;

// The task's share of every bucket output, each checked as the report
// checked them; `ids` gets the documents of its pairs.
struct Share {
  std::vector<BucketPair> pairs;  // ascending by (a, b, band)
  std::vector<std::vector<uint64_t>> large;
  // --relation contains|both: the containment candidates of the share,
  // ascending, and the containment pairs every bucket task visited (counted
  // by task 0 alone).
  std::vector<ContainedPair> contained;
  uint64_t contained_visited = 0;
};

// The pairs of one bucket output (format/bucket_pairs.h) streamed into
// `share`, each checked as CheckBucketOutput() checks them. The first
// error is returned once the file is read through: its checksum's (as
// DecodeBucketOutput() says it) before any other.
Status StreamBucketOutput(FileSource& in, const PairsLimits& limits, StageTask t, Share* share) {
  BucketPair last{};
  ContainedPair last_contained{};
  BucketPairsVisitor visit{.header = [&](uint64_t large_bucket) -> Status {
                             if (large_bucket != limits.large_bucket)
                               return Status::InvalidArgument("made for another --mode");
                             return Status::Ok();
                           },
                           .pair = [&](uint64_t k, const BucketPair& p) -> Status {
                             Status s;
                             if (k > 0 && !(last < p))
                               s = Status::Corrupt("its pairs are out of order");
                             else if (p.a >= p.b)
                               s = Status::Corrupt("a pair out of order");
                             else if (!IdInRange(p.a, limits.shard_docs) || !IdInRange(p.b, limits.shard_docs)) {
                               s = Status::Corrupt("a document id out of range");
                             } else if (p.band < limits.bands.first || p.band >= limits.bands.last) {
                               s = Status::Corrupt("a band out of range");
                             }
                             last = p;
                             if (VerifyTaskOf(p.a, t.tasks) == t.task) share->pairs.push_back(p);
                             return s;
                           },
                           .list = [&](std::vector<uint64_t> list) -> Status {
                             std::vector<std::vector<uint64_t>> one(1, std::move(list));
                             Status s = CheckLargeBuckets(one, limits.shard_docs, limits.large_bucket);
                             if (!one[0].empty() && VerifyTaskOf(one[0].front(), t.tasks) == t.task) {
                               share->large.push_back(std::move(one[0]));
                             }
                             return s;
                           },
                           .contained_visited = [&](uint64_t visited) -> Status {
                             share->contained_visited += visited;
                             return Status::Ok();
                           },
                           .contained = [&](uint64_t k, const ContainedPair& p) -> Status {
                             Status s = CheckContainedPair(k > 0 ? &last_contained : nullptr, p, limits.shard_docs);
                             last_contained = p;
                             if (VerifyTaskOf(p.a, t.tasks) == t.task) share->contained.push_back(p);
                             return s;
                           }};
  return StreamBucketPairs(in, visit);
}

Result<Share> ReadShare(const WorkFolder& folder, const Options& o, uint32_t buckets, uint64_t bands,
                        const std::vector<uint64_t>& shard_docs, StageTask t) {
  Share share;
  PairsLimits limits{.shard_docs = shard_docs, .bands = {}, .large_bucket = LargeBucketOf(o)};
  for (uint32_t j = 0; j < buckets; ++j) {
    FileSource in(folder.File(StageKind::kBucket, j, "pairs"), kStreamBuffer);
    if (Status s = in.Open(); !s.ok()) return s;
    limits.bands = BandsOfTask({.task = j, .tasks = buckets}, bands);
    if (Status s = StreamBucketOutput(in, limits, t, &share); !s.ok()) {
      const std::string path = folder.File(StageKind::kBucket, j, "pairs");
      if (s.code() == Status::Code::kInvalidArgument) {
        return Status::InvalidArgument(ShellQuoted(path) + ": made for another --mode; run the bucket tasks again");
      }
      return Damaged(path, s.message());
    }
  }
  std::sort(share.pairs.begin(), share.pairs.end());
  std::sort(share.contained.begin(), share.contained.end());
  if (t.task != 0) share.contained_visited = 0;  // counted once, by task 0
  return share;
}

// The signatures of the documents `ids` (ascending, each of a shard),
// row k being ids[k]'s, read by id from the shard tables: each row where
// the header puts it (table_codec.h), with one pread. Neither the records
// nor the rest of the matrix are read, and nothing is mapped: the report
// checks every table whole before it trusts a pair.
Result<std::vector<uint32_t>> ReadRows(const WorkFolder& folder, const Options& o, const std::vector<uint64_t>& ids) {
  if constexpr (std::endian::native != std::endian::little) {  // the rows are read as their bytes
    return Status::InvalidArgument("signatures cannot be read in place on a big-endian host");
  }
  const size_t perm = static_cast<size_t>(o.num_perm);
  std::vector<uint32_t> rows(ids.size() * perm);
  size_t next = 0;
  while (next < ids.size()) {
    const uint32_t s = ShardOf(ids[next]);
    const std::string path = folder.File(StageKind::kSign, s, "table");
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::IoError(ShellQuoted(path) + ": cannot open: " + std::strerror(errno));
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    char head[kTableHeaderSize];
    if (!ReadAt(fd, 0, head, sizeof head)) return Damaged(path, "truncated");
    Result<TableHeader> header = PeekHeader(std::string_view(head, sizeof head));
    if (!header.ok()) return Damaged(path, header.status().message());
    struct stat st {};
    if (::fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) != header->total_size) {
      return Damaged(path, "its size does not match its header");
    }
    if (!(header->params == SignatureParams::From(o))) {
      return Status::InvalidArgument(ShellQuoted(path) + ": signed with other parameters");
    }
    for (; next < ids.size() && ShardOf(ids[next]) == s; ++next) {
      const uint64_t k = ids[next] - GlobalId(s, 0);
      if (k >= header->doc_count) return Damaged(path, "fewer documents than its bands name");
      if (!ReadAt(fd, header->signatures_offset + k * perm * 4, rows.data() + next * perm, perm * 4)) {
        return Damaged(path, "truncated");
      }
    }
  }
  return rows;
}

// The verified pairs of `share`, by the run's banding and candidate floor.
VerifyOutput Score(const Run& run, Share share, const std::vector<uint64_t>& ids, const std::vector<uint32_t>& rows) {
  const size_t perm = static_cast<size_t>(run.options().num_perm);
  auto row = [&](uint64_t id) {
    return rows.data() + static_cast<size_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin()) * perm;
  };
  VerifyOutput out{.reread = false,
                   .large_bucket = LargeBucketOf(run.options()),
                   .visited = 0,
                   .pairs = {},
                   .large = {},
                   .left_out = {},
                   .sets = {}};
  const CandidateRule accept = CandidateRule::Of(run.options());
  for (const BucketPair& p : share.pairs) {
    const uint32_t* x = row(p.a);
    const uint32_t* y = row(p.b);
    if (!FirstSharedBand(x, y, run.banding(), static_cast<int>(p.band))) continue;
    ++out.visited;
    const double est = PairEstimate({x, perm}, {y, perm});
    if (!accept.Accepts(est)) continue;
    out.pairs.push_back({.a = p.a, .b = p.b, .estimate = est});
  }
  // The containment candidates, met their floor in the bucket tasks: the
  // report judges their relation from the estimate and the sizes.
  for (const ContainedPair& p : share.contained) {
    out.pairs.push_back({.a = p.a, .b = p.b, .estimate = PairEstimate({row(p.a), perm}, {row(p.b), perm})});
  }
  if (!share.contained.empty()) {
    const auto by_pair = [](const VerifiedPair& x, const VerifiedPair& y) {
      return x.a != y.a ? x.a < y.a : x.b < y.b;
    };
    std::stable_sort(out.pairs.begin(), out.pairs.end(), by_pair);
    out.pairs.erase(std::unique(out.pairs.begin(), out.pairs.end(),
                                [](const VerifiedPair& x, const VerifiedPair& y) { return x.a == y.a && x.b == y.b; }),
                    out.pairs.end());
  }
  out.visited += share.contained_visited;  // task 0's alone (ReadShare())
  out.large = std::move(share.large);
  return out;
}

// The groups of copies a task reads again, by their documents' global ids
// (ascending): every copy of a document of `pair_ids` (ascending), and
// every group whose first document's content key hashes to task t. Every
// shard's records are swept once (not their signatures), the keys sorted in
// bounded memory (content_keys.h).
Result<std::vector<uint64_t>> CopiesToRead(const WorkFolder& folder, uint32_t shards,
                                           const std::vector<uint64_t>& pair_ids, StageTask t) {
  SortedRuns<KeyId> keys(kKeysMemory, "sorting content hashes");
  Status added = Status::Ok();
  for (uint32_t s = 0; s < shards; ++s) {
    const std::string path = folder.File(StageKind::kSign, s, "table");
    Result<MappedFile> file = MappedFile::Open(path);
    if (!file.ok()) return file.status();
    file->Advise(MappedFile::Access::kSequential);
    size_t read_to = 0;
    RecordWalk walk{.keep =
                        [&](uint64_t k, const DocRecord& d) {
                          if (added.ok() && d.kind == DocKind::kOk) {
                            added = keys.Add({.hash = d.content.low, .id = GlobalId(s, k)});
                          }
                          return false;
                        },
                    .hashed = nullptr,
                    .read =
                        [&](size_t n) {
                          file->Release(read_to, n - read_to);
                          read_to = n;
                        },
                    .checksum = false};  // the report checks every table whole
    Result<DecodedRecords> part = DecodeRecordsWith(file->bytes(), walk);
    file->Release(0, file->size());
    if (!part.ok()) return Damaged(path, part.status().message());
    if (!added.ok()) return added;
  }
  std::vector<uint64_t> out;
  Status s = ForEachKeyGroup(&keys, [&](const std::vector<uint64_t>& ids) {
    const bool mine =
        VerifyTaskOf(ids.front(), t.tasks) == t.task || std::any_of(ids.begin(), ids.end(), [&](uint64_t id) {
          return std::binary_search(pair_ids.begin(), pair_ids.end(), id);
        });
    if (mine) out.insert(out.end(), ids.begin(), ids.end());
  });
  if (!s.ok()) return s;
  return out;
}

// The records and signatures of the documents `ids` (ascending, each of a
// shard), document k being ids[k], with the records of their files only
// (each document's `file` an index into them; ReadShardRecords(): not every
// file of a shard, even for a moment). Read by id from the shard tables,
// one at a time. Each row is copied once, from the mapped table into a
// matrix sized once and backed in one call (PrefaultForWrite), not into a
// vector of the shard's rows first and then into the table.
Result<SignatureTable> ReadDocs(const WorkFolder& folder, const Options& o, const std::vector<uint64_t>& ids) {
  const size_t perm = static_cast<size_t>(o.num_perm);
  SignatureTable table(o.num_perm);
  SignatureTable::Matrix values;
  values.resize(ids.size() * perm);  // left unwritten (LargeArrayAllocator)
  if (values.size() * sizeof(uint32_t) >= kLargeArrayMinBytes) {
    PrefaultForWrite(values.data(), values.data() + values.size());
  }
  std::vector<DocRecord> docs;
  docs.reserve(ids.size());
  size_t next = 0;
  while (next < ids.size()) {
    const uint32_t s = ShardOf(ids[next]);
    const std::string path = folder.File(StageKind::kSign, s, "table");
    Result<MappedFile> file = MappedFile::Open(path);
    if (!file.ok()) return file.status();
    const size_t first = next;
    RecordWalk walk{.keep = KeepListed(s, ids, &next),
                    .hashed = nullptr,
                    .read = [&](size_t n) { file->Release(0, n); },
                    .checksum = false};
    std::vector<uint64_t> file_ids;  // the shard's indices of part->files
    Result<DecodedRecords> part = ReadShardRecords(file->bytes(), walk, {}, &file_ids);
    if (!part.ok()) return Damaged(path, part.status().message());
    if (!(part->params == SignatureParams::From(o))) {
      return Status::InvalidArgument(ShellQuoted(path) + ": signed with other parameters");
    }
    if (next == first || (next < ids.size() && ShardOf(ids[next]) == s) || docs.size() + part->kept.size() != next) {
      return Damaged(path, "fewer documents than its bands name");
    }
    const auto base = static_cast<uint32_t>(table.files.size());
    for (size_t i = 0; i < part->kept.size(); ++i) {
      const auto row = part->signatures.subspan(part->kept[i] * perm, perm);
      std::copy(row.begin(), row.end(), values.begin() + static_cast<ptrdiff_t>(docs.size() * perm));
      DocRecord& d = part->docs[i];
      d.file =
          base + static_cast<uint32_t>(std::lower_bound(file_ids.begin(), file_ids.end(), d.file) - file_ids.begin());
      docs.push_back(std::move(d));
    }
    table.files.insert(table.files.end(), std::make_move_iterator(part->files.begin()),
                       std::make_move_iterator(part->files.end()));
    file->Release(0, file->size());
  }
  table.AdoptMatrix(std::move(values), std::move(docs));
  return table;
}

// The bitmaps of the documents `ids` (ascending, each of a shard), k being
// ids[k]'s, read by id from the shards' bitmap files (format/shard_bitmaps.h)
// for the documents of `wanted` (ascending) only; the others get an empty
// one, as do those of a shard without the file (signed at -t 0.7 or above,
// or by an older neardup): no pair of theirs is ruled out. `shard_docs`:
// each shard's document count. A damaged file is an error naming it.
Result<std::vector<SetBitmap>> ReadBitmaps(const WorkFolder& folder, const Options& o, const std::vector<uint64_t>& ids,
                                           const std::vector<uint64_t>& wanted,
                                           const std::vector<uint64_t>& shard_docs) {
  std::vector<SetBitmap> out(ids.size());
  std::optional<ShardBitmapsReader> reader;
  uint32_t open = UINT32_MAX;  // the shard `reader` reads; UINT32_MAX: none yet
  for (size_t k = 0; k < ids.size(); ++k) {
    if (!std::binary_search(wanted.begin(), wanted.end(), ids[k])) continue;
    const uint32_t s = ShardOf(ids[k]);
    if (s != open) {
      open = s;
      reader.reset();
      const std::string path = folder.File(StageKind::kSign, s, "bitmaps");
      std::error_code ec;
      if (!std::filesystem::exists(path, ec) && !ec) continue;
      Result<ShardBitmapsReader> opened = ShardBitmapsReader::Open(path, SignFingerprint(o), shard_docs[s]);
      if (!opened.ok()) return opened.status();
      reader.emplace(std::move(*opened));
    }
    if (!reader) continue;
    Result<SetBitmap> bits = reader->Read(LocalOf(ids[k]));
    if (!bits.ok()) return bits.status();
    out[k] = std::move(*bits);
  }
  return out;
}

// Scan's verification of `candidates` over `table` (the documents `ids`,
// document k being ids[k]) into *out: the pairs accepted, the documents
// left out and, in cluster modes, the sets of the pairs' representatives.
// Returns the documents read again.
Result<uint64_t> VerifyInto(const Run& run, SignatureTable table, Candidates candidates,
                            const std::vector<uint64_t>& ids, VerifyOutput* out) {
  SignedCorpus corpus{.table = std::move(table),
                      .stream_copies = {},
                      .problems = {},
                      .counts = {},
                      .unnamed_unsigned = {},
                      .named_unsigned = {},
                      .bitmaps = {}};
  corpus.stream_copies.resize(corpus.table.files.size());  // stage sign refuses streams
  CopyGroups groups = CopyGroups::Build(corpus.table);
  const VerifyContext verifying = run.Verifying(run.workers());
  Result<Verified> verified = VerifyCandidates(verifying, corpus, &groups, std::move(candidates));
  if (!verified.ok()) return verified.status();
  std::vector<uint64_t> reps;  // of the accepted pairs
  for (const Candidate& p : verified->pairs) {
    out->pairs.push_back({.a = ids[p.a], .b = ids[p.b], .estimate = p.estimate, .jaccard = p.jaccard, .kind = p.kind});
    reps.insert(reps.end(), {p.a, p.b});
  }
  if (!verified->pairs.status().ok()) return verified->pairs.status();
  for (auto& [doc, why] : verified->left_out) out->left_out.push_back({.id = ids[doc], .why = std::move(why)});
  std::sort(out->left_out.begin(), out->left_out.end(),
            [](const LeftOutDoc& x, const LeftOutDoc& y) { return x.id < y.id; });
  {  // --cluster-by keep compares any two members (the dropped lists cluster in pairs mode too)
    std::sort(reps.begin(), reps.end());
    reps.erase(std::unique(reps.begin(), reps.end()), reps.end());
    std::unordered_map<DocId, std::vector<uint64_t>> sets = verified->TakeSets();  // moved, not copied
    for (uint64_t rep : reps) {
      auto it = sets.find(static_cast<DocId>(rep));
      if (it != sets.end()) out->sets.emplace_back(ids[rep], std::move(it->second));
    }
  }
  return verifying.reread.done.load(std::memory_order_relaxed);
}

// The documents of the pairs and large buckets of `share`, ascending.
std::vector<uint64_t> PairIds(const Share& share) {
  std::vector<uint64_t> pair_ids;
  for (const BucketPair& p : share.pairs) pair_ids.insert(pair_ids.end(), {p.a, p.b});
  for (const std::vector<uint64_t>& list : share.large) pair_ids.insert(pair_ids.end(), list.begin(), list.end());
  for (const ContainedPair& p : share.contained) pair_ids.insert(pair_ids.end(), {p.a, p.b});
  std::sort(pair_ids.begin(), pair_ids.end());
  pair_ids.erase(std::unique(pair_ids.begin(), pair_ids.end()), pair_ids.end());
  return pair_ids;
}

// The documents task t reads (ascending): those of its pairs, `pair_ids`,
// and the copies it reads again (CopiesToRead()).
Result<std::vector<uint64_t>> IdsToRead(const WorkFolder& folder, uint32_t shards,
                                        const std::vector<uint64_t>& pair_ids, StageTask t) {
  Result<std::vector<uint64_t>> copies = CopiesToRead(folder, shards, pair_ids, t);
  if (!copies.ok()) return copies.status();
  std::vector<uint64_t> ids = std::move(*copies);
  ids.insert(ids.end(), pair_ids.begin(), pair_ids.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.size() >= std::numeric_limits<DocId>::max()) {
    return Status::InvalidArgument("more documents in one verify task's pairs than it can hold: run more tasks");
  }
  return ids;
}

// Scan's verification of the task's share, reading the documents again
// (verify_candidates.h): the pairs accepted, the documents left out and, in
// cluster modes, the sets of the pairs' representatives. The pairs that the
// shards' bitmaps rule out (CandidateRule, as scan's) are dropped before:
// their documents are not read for them. `shard_docs`: each shard's
// document count; *tally gets what was done.
Result<VerifyOutput> VerifyReadAgain(const Run& run, const WorkFolder& folder, const std::vector<uint64_t>& shard_docs,
                                     Share share, StageTask t, VerifyTally* tally) {
  const Options& o = run.options();
  const std::vector<uint64_t> pair_ids = PairIds(share);
  Result<std::vector<uint64_t>> read = IdsToRead(folder, static_cast<uint32_t>(shard_docs.size()), pair_ids, t);
  if (!read.ok()) return read.status();
  const std::vector<uint64_t>& ids = *read;
  Result<SignatureTable> table = ReadDocs(folder, o, ids);
  if (!table.ok()) return table.status();
  Result<std::vector<SetBitmap>> bitmaps =
      WantsBitmaps(o) ? ReadBitmaps(folder, o, ids, pair_ids, shard_docs) : std::vector<SetBitmap>();
  if (!bitmaps.ok()) return bitmaps.status();
  auto local = [&](uint64_t g) {
    return static_cast<DocId>(std::lower_bound(ids.begin(), ids.end(), g) - ids.begin());
  };
  VerifyOutput out{.reread = true,
                   .large_bucket = LargeBucketOf(o),
                   .visited = 0,
                   .pairs = {},
                   .large = {},
                   .left_out = {},
                   .sets = {}};
  Candidates candidates{.pairs = CandidatePairs(o.pair_memory), .visited = 0};
  const CandidateRule accept = CandidateRule::Of(o, *bitmaps, ids.size());
  std::vector<uint64_t> scratch;  // RulesOut()'s
  for (const BucketPair& p : share.pairs) {
    const DocId a = local(p.a), b = local(p.b);
    const uint32_t* x = table->signature(a).data();
    const uint32_t* y = table->signature(b).data();
    if (!FirstSharedBand(x, y, run.banding(), static_cast<int>(p.band))) continue;
    ++out.visited;
    const double est = PairEstimate(table->signature(a), table->signature(b));
    if (!accept.Accepts(est, a, b, &scratch)) {
      if (MeetsThreshold(est, accept.floor)) ++tally->ruled_out;
      continue;
    }
    if (Status s = candidates.pairs.Add({.a = a, .b = b, .estimate = est}); !s.ok()) return s;
    ++tally->candidates;
  }
  for (const std::vector<uint64_t>& list : share.large) {
    std::vector<DocId> members;
    for (uint64_t g : list) members.push_back(local(g));
    if (Status s = LeadLargeBucket(*table, o, accept, std::move(members), &candidates.pairs); !s.ok()) return s;
  }
  // The containment candidates met their floor in the bucket tasks; no
  // bitmap rules them out (a Jaccard bound says nothing of containment).
  for (const ContainedPair& p : share.contained) {
    const DocId a = local(p.a), b = local(p.b);
    const double est = PairEstimate(table->signature(a), table->signature(b));
    if (Status s = candidates.pairs.Add({.a = a, .b = b, .estimate = est}); !s.ok()) return s;
    ++tally->candidates;
  }
  out.visited += share.contained_visited;  // task 0's alone (ReadShare())
  if (Status s = candidates.pairs.Finish(); !s.ok()) return s;
  Result<uint64_t> reread = VerifyInto(run, std::move(*table), std::move(candidates), ids, &out);
  if (!reread.ok()) return reread.status();
  tally->reread = *reread;
  return out;
}

}  // namespace

uint32_t VerifyTaskOf(uint64_t first, uint32_t tasks) { return static_cast<uint32_t>(Mix64(first) % tasks); }

uint64_t VerifyFingerprint(const Options& options) {
  const Verification rule = VerificationOf(options);
  const double values[2] = {rule.candidate_floor, rule.rereads() ? rule.threshold : -1.0};
  return BucketFingerprint(options) ^ HashBytes(values, sizeof values, 0x7665726966790000ULL);
}

Status CheckVerifyKinds(const std::string& dir, bool reread) {
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".pairs")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    // A file that cannot be read is named by the checks that follow.
    const std::optional<bool> kind = PeekVerifyReread(path);
    if (!kind || *kind == reread) continue;
    return Status::InvalidArgument(
        ShellQuoted(path) +
        (reread ? ": verified from the signatures, but this report reads nothing again (--exact, -t 1): "
                  "run the verify tasks again with the report's options"
                : ": verified by reading the documents again (--exact, -t 1), but this report is not: run "
                  "the verify tasks again with the report's options"));
  }
  return Status::Ok();
}

namespace {

// The read-again values of `out`: Jaccards in [threshold, 1], no large
// bucket, left-out documents and sets ascending by id, each of a shard.
Status CheckVerdicts(const VerifyOutput& out, const std::vector<uint64_t>& shard_docs, const Verification& rule,
                     Relation relation) {
  // A contained document's Jaccard is below the threshold: any in [0, 1].
  const double least = relation == Relation::kSimilar ? rule.threshold : 0.0;
  for (const VerifiedPair& p : out.pairs) {
    const bool in_range = out.reread ? MeetsThreshold(p.jaccard, least) && p.jaccard <= 1.0 : p.jaccard == -1;
    if (!in_range) return Status::Corrupt("a Jaccard out of range");
    const bool kind_ok = p.kind == PairKind::kSimilar || (out.reread && relation != Relation::kSimilar);
    if (!kind_ok) return Status::Corrupt("a relation out of place");
  }
  if (!out.reread && (!out.left_out.empty() || !out.sets.empty())) return Status::Corrupt("verdicts not read again");
  if (out.reread && !out.large.empty()) return Status::Corrupt("a large bucket read again");
  for (size_t k = 0; k < out.left_out.size(); ++k) {
    if (!IdInRange(out.left_out[k].id, shard_docs)) return Status::Corrupt("a document id out of range");
    if (k > 0 && out.left_out[k - 1].id >= out.left_out[k].id) return Status::Corrupt("its left out are out of order");
  }
  for (size_t k = 0; k < out.sets.size(); ++k) {
    if (!IdInRange(out.sets[k].first, shard_docs)) return Status::Corrupt("a document id out of range");
    if (k > 0 && out.sets[k - 1].first >= out.sets[k].first) return Status::Corrupt("its sets are out of order");
  }
  return Status::Ok();
}

}  // namespace

Status CheckVerifyOutput(const VerifyOutput& out, const std::vector<uint64_t>& shard_docs, uint64_t large_bucket,
                         const Verification& rule, Relation relation, StageTask t) {
  // A containment candidate's floor depends on its sizes: any estimate.
  const double floor = relation == Relation::kSimilar ? rule.candidate_floor : 0.0;
  if (out.large_bucket != large_bucket) return Status::InvalidArgument("made for another --mode");
  for (size_t k = 0; k < out.pairs.size(); ++k) {
    const VerifiedPair& p = out.pairs[k];
    if (k > 0 && (out.pairs[k - 1].a > p.a || (out.pairs[k - 1].a == p.a && out.pairs[k - 1].b >= p.b))) {
      return Status::Corrupt("its pairs are out of order");
    }
    if (p.a >= p.b) return Status::Corrupt("a pair out of order");
    if (!IdInRange(p.a, shard_docs) || !IdInRange(p.b, shard_docs)) {
      return Status::Corrupt("a document id out of range");
    }
    if (!out.reread && VerifyTaskOf(p.a, t.tasks) != t.task) return Status::Corrupt("a pair of another task");
    if (!(MeetsThreshold(p.estimate, floor) && p.estimate <= 1.0)) {
      return Status::Corrupt("an estimate out of range");
    }
  }
  // (Containment candidates are counted visited by task 0 alone.)
  if (!out.reread && relation == Relation::kSimilar && out.visited < out.pairs.size()) {
    return Status::Corrupt("fewer candidates visited than verified");
  }
  if (Status s = CheckVerdicts(out, shard_docs, rule, relation); !s.ok()) return s;
  if (Status s = CheckLargeBuckets(out.large, shard_docs, large_bucket); !s.ok()) return s;
  for (const std::vector<uint64_t>& list : out.large) {
    if (VerifyTaskOf(list.front(), t.tasks) != t.task) return Status::Corrupt("a large bucket of another task");
  }
  return Status::Ok();
}

namespace {

// The output of verify task t over `shards` shards and `buckets` bucket
// outputs: its share of the pairs scored from the signatures, or read again
// (--exact, -t 1); nothing but its copies read again with -t 1.
Result<VerifyOutput> VerifyShare(const Run& run, const WorkFolder& folder, uint32_t shards, uint32_t buckets,
                                 StageTask t, VerifyTally* tally) {
  const Options& o = run.options();
  VerifyOutput out{.reread = false,
                   .large_bucket = LargeBucketOf(o),
                   .visited = 0,
                   .pairs = {},
                   .large = {},
                   .left_out = {},
                   .sets = {}};
  if (run.rule().identical_only && !run.rereads()) return out;  // -t 1 reads no pair, but its copies again
  std::vector<uint64_t> shard_docs;
  for (uint32_t s = 0; s < shards; ++s) {
    Result<uint64_t> docs = ShardDocCount(folder, s);
    if (!docs.ok()) return docs.status();
    shard_docs.push_back(*docs);
  }
  Result<Share> share = run.rule().identical_only
                            ? Share{}
                            : ReadShare(folder, o, buckets, static_cast<uint64_t>(run.banding().bands), shard_docs, t);
  if (!share.ok()) return share.status();
  if (run.rereads()) return VerifyReadAgain(run, folder, shard_docs, std::move(*share), t, tally);
  std::vector<uint64_t> ids;
  for (const BucketPair& p : share->pairs) ids.insert(ids.end(), {p.a, p.b});
  for (const ContainedPair& p : share->contained) ids.insert(ids.end(), {p.a, p.b});
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  Result<std::vector<uint32_t>> rows = ReadRows(folder, o, ids);
  if (!rows.ok()) return rows.status();
  return Score(run, std::move(*share), ids, *rows);
}

}  // namespace

Result<TaskRun> RunVerifyTask(const Options& o, const std::string& work, StageTask t, const RunContext& ctx,
                              VerifyTally* tally) {
  VerifyTally ignored;
  if (tally == nullptr) tally = &ignored;
  Result<std::unique_ptr<Run>> decided = Run::Decide(o, ctx);
  if (!decided.ok()) return decided.status();
  const Run& run = **decided;
  const WorkFolder folder(work);
  Result<TaskFrame> frame = TaskFrame::Begin(folder, StageKind::kVerify, t, VerifyFingerprint(o));
  if (!frame.ok()) return frame.status();
  if (frame->done()) return TaskRun::kAlreadyDone;
  if (Status s = frame->Join(); !s.ok()) return s;
  if (Status s = CheckShardParams(folder, o); !s.ok()) return s;
  Result<uint32_t> shards = folder.FinishedTasks(StageKind::kSign, SignFingerprint(o));
  if (!shards.ok()) return shards.status();
  if (Status s = CheckShardListings(folder, *shards, std::nullopt); !s.ok()) return s;
  Result<uint32_t> buckets = folder.FinishedTasks(StageKind::kBucket, BucketFingerprint(o));
  if (!buckets.ok()) return buckets.status();
  Result<VerifyOutput> out = VerifyShare(run, folder, *shards, *buckets, t, tally);
  if (!out.ok()) return out.status();
  {  // written as it is encoded: the sets never copied into one string
    AtomicFileWriter pairs;
    if (Status s = pairs.Open(frame->Path("pairs")); !s.ok()) return s;
    EncodeVerifyOutputTo(*out, [&pairs](std::string_view piece) { pairs.Append(piece); });
    if (Status s = pairs.Commit(); !s.ok()) return s;
  }
  return frame->Finish();
}

}  // namespace neardup
