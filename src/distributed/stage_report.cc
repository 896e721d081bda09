#include "neardup/stages.h"

#include <algorithm>
#include <memory>
#include <string>

#include "base/mapped_file.h"
#include "report/build_report.h"
#include "lsh/candidates.h"
#include "lsh/copy_groups.h"
#include "sign/minhash.h"
#include "distributed/stage_bucket.h"
#include "distributed/stage_filter.h"
#include "distributed/stage_sign.h"
#include "sign/table_codec.h"
#include "lsh/similarity.h"
#include "verify/verify_candidates.h"
#include "lsh/band_key.h"
#include "scan/phases.h"
#include "scan/run.h"
#include "sign/sign_internal.h"

namespace neardup {

namespace {

// The shards merged: the scan's SignedCorpus, and where each shard's
// documents start. The table borrows its signatures from the shard files,
// memory-mapped: memory holds the records, and of the signatures only the
// pages that are read (the candidates').
struct Merged {
  SignedCorpus corpus;
  std::vector<ShardSpan> spans;                           // per shard
  std::vector<std::shared_ptr<const MappedFile>> shards;  // the files mapped
  WalkCounts walk;
  std::vector<Status> walk_errors;
};

// The decoded records of shard `path`, mapped as `file`; its signatures stay
// in the mapping.
Result<DecodedRecords> DecodeShard(const std::string& path, const MappedFile& file) {
  // The checksum reads the whole file once, front to back: each chunk is let
  // go once hashed, so that all the signatures are never resident at once.
  file.Advise(MappedFile::Access::kSequential);
  size_t released = 0;
  Result<DecodedRecords> records = DecodeRecords(file.bytes(), [&](size_t hashed) {
    file.Release(released, hashed - released);
    released = hashed;
  });
  if (!records.ok()) return Damaged(path, records.status().message());
  // The records are copied out; from now on only some signatures are read.
  file.Release(0, file.size());
  file.Advise(MappedFile::Access::kRandom);
  return records;
}

Result<Merged> LoadShards(const WorkFolder& folder, const Options& o, uint32_t shards) {
  Merged m;
  m.corpus.table = SignatureTable(o.num_perm);
  SignatureTable& table = m.corpus.table;
  // Every shard mapped first, to size the merged records once from the
  // headers (which touches only their first page).
  std::vector<std::shared_ptr<const MappedFile>> files;
  uint64_t total = 0;
  for (uint32_t s = 0; s < shards; ++s) {
    const std::string path = folder.File(StageKind::kSign, s, "table");
    Result<MappedFile> mapped = MappedFile::Open(path);
    if (!mapped.ok()) return mapped.status();
    Result<TableHeader> header = PeekHeader(mapped->bytes());
    if (!header.ok()) return Damaged(path, header.status().message());
    total += header->doc_count;
    files.push_back(std::make_shared<const MappedFile>(std::move(*mapped)));
  }
  table.docs.reserve(total);
  const SignatureParams params = SignatureParams::From(o);
  for (uint32_t s = 0; s < shards; ++s) {
    const std::string path = folder.File(StageKind::kSign, s, "table");
    Result<DecodedRecords> part = DecodeShard(path, *files[s]);
    if (!part.ok()) return part.status();
    if (!(part->params == params)) return Status::InvalidArgument(path + ": signed with other parameters");
    const std::string meta_path = folder.File(StageKind::kSign, s, "meta");
    Result<std::string> meta_bytes = ReadWholeFile(meta_path);
    if (!meta_bytes.ok()) return meta_bytes.status();
    Result<ShardMeta> meta = DecodeShardMeta(*meta_bytes);
    if (!meta.ok()) return Damaged(meta_path, meta.status().message());
    if (Status st = CheckShardMeta(*meta, s, shards, part->files.size(), part->docs.size()); !st.ok()) {
      return Damaged(meta_path, st.message());
    }
    const uint32_t file_offset = static_cast<uint32_t>(table.files.size());
    if (meta->first_file != file_offset) return Damaged(meta_path, "its files do not follow the last shard's");
    if (s == 0) {
      m.walk = meta->walk;
      m.walk_errors = std::move(meta->walk_errors);
    }
    m.spans.push_back({.first_doc = table.size(), .docs = part->docs.size(), .listing = meta->listing});
    for (size_t k = 0; k < part->files.size(); ++k) {
      part->files[k].root = meta->roots[k];
      table.files.push_back(std::move(part->files[k]));
    }
    for (DocRecord& d : part->docs) d.file += file_offset;
    table.AppendBorrowed(std::move(part->docs), part->signatures, files[s]);
    for (InputProblem& p : meta->problems) {
      p.file += file_offset;
      m.corpus.problems.push_back(std::move(p));
    }
    m.corpus.counts += meta->counts;  // duplicate_ids: 0 in a shard, counted over all by the report
  }
  m.corpus.stream_copies.resize(table.files.size());
  m.shards = std::move(files);
  return m;
}

// The candidates of the bucket tasks' files, as FindCandidates finds them,
// in the same bounded memory (CandidatePairs).
Result<Candidates> LoadCandidates(const WorkFolder& folder, const Run& run, uint32_t buckets, const Merged& merged) {
  const Options& o = run.options();
  const SignatureTable& table = merged.corpus.table;
  const Banding banding = run.banding();
  const double floor = run.rule().candidate_floor;
  // Every id was checked against its shard (CheckBucketOutput) before this.
  auto doc = [&](uint64_t global) {
    return static_cast<DocId>(merged.spans[ShardOf(global)].first_doc + LocalOf(global));
  };
  PairsLimits limits{.shard_docs = {}, .bands = {}, .large_bucket = LargeBucketOf(o)};
  for (const ShardSpan& span : merged.spans) limits.shard_docs.push_back(span.docs);
  Candidates out{.pairs = CandidatePairs(o.pair_memory), .visited = 0};
  for (uint32_t j = 0; j < buckets; ++j) {
    const std::string path = folder.File(StageKind::kBucket, j, "pairs");
    Result<std::string> bytes = ReadWholeFile(path);
    if (!bytes.ok()) return bytes.status();
    Result<BucketOutput> found = DecodeBucketOutput(*bytes);
    if (!found.ok()) return Damaged(path, found.status().message());
    limits.bands = BandsOfTask({.task = j, .tasks = buckets}, static_cast<uint64_t>(banding.bands));
    if (Status s = CheckBucketOutput(*found, limits); !s.ok()) {
      if (s.code() == Status::Code::kInvalidArgument) {
        return Status::InvalidArgument(path + ": made for another --mode; run the bucket tasks again");
      }
      return Damaged(path, s.message());
    }
    for (const BucketPair& p : found->pairs) {
      const DocId a = doc(p.a), b = doc(p.b);
      if (!FirstSharedBand(table.signature(a).data(), table.signature(b).data(), banding, static_cast<int>(p.band))) {
        continue;
      }
      ++out.visited;
      const SignatureView x = table.signature(a);
      const double est =
          DistinctScore(SignatureAgreement(x.data(), table.signature(b).data(), static_cast<int>(x.size())));
      if (!MeetsThreshold(est, floor)) continue;
      if (Status s = out.pairs.Add({.a = a, .b = b, .estimate = est}); !s.ok()) return s;
    }
    for (const std::vector<uint64_t>& list : found->large) {
      std::vector<DocId> ids;
      ids.reserve(list.size());
      for (uint64_t g : list) ids.push_back(doc(g));
      if (Status s = LeadLargeBucket(table, o, std::move(ids), &out.pairs); !s.ok()) return s;
    }
  }
  if (Status s = out.pairs.Finish(); !s.ok()) return s;
  return out;
}

}  // namespace

Result<Report> RunReportTask(const Options& o, const std::string& work, const RunContext& ctx) {
  Result<std::unique_ptr<Run>> decided = Run::Decide(o, ctx);
  if (!decided.ok()) return decided.status();
  const Run& run = **decided;
  const WorkFolder folder(work);
  if (Status s = CheckShardParams(folder, o); !s.ok()) return s;
  Result<uint32_t> shards = folder.FinishedTasks(StageKind::kSign, SignFingerprint(o));
  if (!shards.ok()) return shards.status();
  if (Status s = CheckShardListings(folder, *shards, std::nullopt); !s.ok()) return s;
  Result<uint32_t> buckets = folder.FinishedTasks(StageKind::kBucket, BucketFingerprint(o));
  if (!buckets.ok()) return buckets.status();
  Result<Merged> merged = LoadShards(folder, o, *shards);
  if (!merged.ok()) return merged.status();
  if (o.input == InputFormat::kJsonl) RenameDuplicateIds(&merged->corpus);
  FoundPairs found{.groups = CopyGroups::Build(merged->corpus.table), .candidates = {}};
  if (!run.rule().identical_only) {
    Result<Candidates> loaded = LoadCandidates(folder, run, *buckets, *merged);
    if (!loaded.ok()) return loaded.status();
    found.candidates = std::move(*loaded);
  }
  SignedInputs inputs{.corpus = std::move(merged->corpus),
                      .walk = merged->walk,
                      .walk_errors = std::move(merged->walk_errors),
                      .walk_notices = {},
                      .walk_skipped = {},
                      .signed_now = {},
                      .index = {},
                      .mapped = std::move(merged->shards)};
  // The filter tasks' lists, whatever the mode (stage_filter.h).
  Result<ReportOutcome> reported = ReportAndDropped(run, std::move(inputs), std::move(found), DroppedWanted::kAlways);
  if (!reported.ok()) return reported.status();
  if (Status s = WriteDroppedLists(folder, o, merged->spans, reported->dropped); !s.ok()) return s;
  return std::move(reported->report);
}

}  // namespace neardup
