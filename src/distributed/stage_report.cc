#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "base/hash.h"
#include "base/mapped_file.h"
#include "base/parallel.h"
#include "base/sorted_runs.h"
#include "distributed/content_keys.h"
#include "distributed/format/shard_meta.h"
#include "distributed/shards.h"
#include "distributed/stage_bucket.h"
#include "distributed/stage_filter.h"
#include "distributed/stage_marks.h"
#include "distributed/stage_verify.h"
#include "lsh/band_key.h"
#include "lsh/candidates.h"
#include "lsh/copy_groups.h"
#include "lsh/similarity.h"
#include "neardup/quote.h"
#include "neardup/stages.h"
#include "report/build_report.h"
#include "scan/phases.h"
#include "scan/run.h"
#include "sign/minhash.h"
#include "sign/sign_internal.h"
#include "sign/table_codec.h"
#include "verify/verify_candidates.h"

namespace neardup {

// The report holds only the documents it reports, never one record per
// document of the corpus. It reads the shards twice:
//  1. every shard's table once, front to back, checked whole (checksum, on
//     a second thread with pread, and every record), counting the documents by kind and sorting two keys
//     per document in bounded memory (SortedRuns, spilled to TMPDIR): the
//     content hash (the groups of copies) and, for JSONL, the hash of the
//     name (the ids that are not unique);
//  2. the records it needs, by global id, from the same mappings: the
//     documents of the candidate pairs and large buckets, of the groups of
//     more than one copy and of the ids taken twice, and with
//     --name-skipped the skipped ones. Their signatures are copied out.
//     Of the files, the report holds only the records of those documents'
//     files and of the files with a problem (renumbered in the run's
//     order, ReadNeeded()), read in the same walk (or a second one, for a
//     shard of many files: ReadShardRecords()); the sweep counts the files
//     of each shard and keeps its first and last (for the checks of a file
//     split between shards), not one record a file, which with text input
//     would be one a document of the corpus.
// Those documents, in global id order, are the report's DocIds: every order
// the report makes (pairs, clusters, representatives, --keep first) is the
// same over them as over all documents, so its output is the scan's.
// The sweep also sorts the hash of every file's place below --kept-dir (its
// kept path), to find two files that would go to one place (FindNameClash()),
// which every filter task then refuses (stage_filter.h). The dropped lists
// need clusters: in pairs mode, which builds none, they are left deferred
// for the filter tasks to complete.
// --exact (and -t 1) is decided by the verify tasks, which read the
// documents again (stage_verify.h): the report adopts their verdicts (the
// pairs accepted with their Jaccard, the documents left out, the sets for
// --cluster-by keep) and reads no document itself.
namespace {

uint64_t NameKey(std::string_view name) { return HashBytes(name.data(), name.size(), 0); }

// The largest folio of page cache a fault on a mapped file may map whole.
constexpr size_t kFolio = size_t{2} << 20;

// A sign shard's table, mapped.
struct Shard {
  std::string path;
  std::unique_ptr<const MappedFile> file;
  uint64_t docs = 0;
  uint64_t files = 0;
};

// What the first pass over the shards gives: all but the records.
struct Sweep {
  std::vector<Shard> shards;
  std::vector<ShardSpan> spans;
  // The run's files are counted, not held: per shard, the run's index of
  // its first file (a file split between shards is one file of the run).
  std::vector<uint32_t> first_file;
  uint64_t files = 0;                    // the run's, so far
  std::string last_path;                 // of the last shard's last file
  std::optional<uint64_t> continued_at;  // where the last file's range ended, when a later shard continues it
  std::vector<InputProblem> problems;
  SignCounts counts;
  WalkCounts walk;
  std::vector<Status> walk_errors;
  DocKinds kinds;                                                     // of every document
  SortedRuns<KeyId> contents{kKeysMemory, "sorting content hashes"};  // signed documents'
  SortedRuns<KeyId> names{kKeysMemory, "sorting JSONL ids"};          // JSONL: every document's
  std::vector<uint64_t> needed;                                       // global ids of the documents to read
  // Every file's place below --kept-dir: (hash of its kept path, the run's
  // index of the file), for the files stage filter may write (not the
  // reference ones); and of the shard being swept, which files are
  // reference files (a bit a file, while the shard is swept).
  SortedRuns<KeyId> kept_names{kKeysMemory, "sorting kept paths"};
  std::vector<bool> reference;
};

// Every shard's table mapped, its header read (only its first page).
Result<std::vector<Shard>> OpenShards(const WorkFolder& folder, uint32_t shards) {
  std::vector<Shard> out;
  for (uint32_t s = 0; s < shards; ++s) {
    const std::string path = folder.File(StageKind::kSign, s, "table");
    Result<MappedFile> mapped = MappedFile::Open(path);
    if (!mapped.ok()) return mapped.status();
    Result<TableHeader> header = PeekHeader(mapped->bytes());
    if (!header.ok()) return Damaged(path, header.status().message());
    out.push_back({.path = path,
                   .file = std::make_unique<const MappedFile>(std::move(*mapped)),
                   .docs = header->doc_count,
                   .files = header->file_count});
  }
  return out;
}

// How far SweepTable() is through one table: the first error of its keys,
// and how much of the mapping it let go.
struct TableSweep {
  Status added = Status::Ok();
  size_t read_to = 0;                  // the bytes before it let go
  size_t files_to = kTableHeaderSize;  // the files section read so far
};

// The walk SweepTable() makes over shard `s`'s table, `st` its state.
RecordWalk SweepWalk(const Options& o, uint32_t s, Sweep* sw, FileEnds* ends, TableSweep* st) {
  const MappedFile* file = sw->shards[s].file.get();
  const bool jsonl = RowsAreDocuments(o.input);
  const bool name_skipped = o.name_skipped;
  return RecordWalk{.keep =
                        [s, sw, st, jsonl, name_skipped](uint64_t k, const DocRecord& d) {
                          const uint64_t id = GlobalId(s, k);
                          CountKind(d.kind, &sw->kinds);
                          if (st->added.ok() && d.kind == DocKind::kOk) {
                            st->added = sw->contents.Add({.hash = d.content.low, .id = id});
                          }
                          if (st->added.ok() && jsonl) st->added = sw->names.Add({.hash = NameKey(d.name), .id = id});
                          const bool skipped = d.kind == DocKind::kBinary || d.kind == DocKind::kTooShort;
                          if (name_skipped && skipped) sw->needed.push_back(id);
                          return false;
                        },
                    .hashed = nullptr,
                    .read =
                        [file, st](size_t n) {
                          if (n > st->read_to) file->Release(st->read_to, n - st->read_to);
                          st->read_to = std::max(st->read_to, n);
                        },
                    .checksum = false,
                    .keep_file =
                        [file, s, sw, ends, st](uint64_t k, const InputFile& f) {
                          sw->reference.push_back(f.reference);
                          if (k == 0) ends->first = f;
                          if (k + 1 == sw->shards[s].files) ends->last = f;
                          // The files section's pages are let go as it is read
                          // too (its records are 45 bytes and the path's).
                          st->files_to += kTableFileRecordSize + f.path.size();
                          if (st->files_to >= st->read_to + kFolio) {
                            file->Release(st->read_to, st->files_to - st->read_to);
                            st->read_to = st->files_to / kFolio * kFolio;
                          }
                          return false;
                        }};
}

// Reads shard `s`'s table whole (checked, its pages let go as they are
// read) into `sw`: counts and keys of every document. Of its files, only
// the first and the last are kept, in *ends. The checksum is computed on a
// second thread while the records are walked; when it does not match, the
// table is decoded again with its checks in their order, for their message.
Result<DecodedRecords> SweepTable(const Options& o, uint32_t s, Sweep* sw, FileEnds* ends) {
  const MappedFile& file = *sw->shards[s].file;
  file.Advise(MappedFile::Access::kSequential);
  TableSweep st;
  const RecordWalk walk = SweepWalk(o, s, sw, ends, &st);
  bool sum_ok = false;
  Result<DecodedRecords> part = Status::Corrupt("not read");
  if (file.size() >= kTableHeaderSize + 8) {
    BackgroundTask hashing([&] { sum_ok = TableFileChecksumMatches(sw->shards[s].path, file.size()); });
    part = DecodeRecordsWith(file.bytes(), walk);
    hashing.Join();
  }
  if (!sum_ok) {
    RecordWalk checked{.keep = [](uint64_t, const DocRecord&) { return false; },
                       .hashed = nullptr,
                       .read = nullptr,
                       .checksum = true,
                       .keep_file = [](uint64_t, const InputFile&) { return false; }};
    part = DecodeRecordsWith(file.bytes(), checked);
    if (part.ok()) part = Status::Corrupt("checksum mismatch");
  }
  file.Release(0, file.size());
  file.Advise(MappedFile::Access::kRandom);
  if (!part.ok()) return Damaged(sw->shards[s].path, part.status().message());
  if (!st.added.ok()) return st.added;
  return part;
}

// Shard `s`'s meta, read and decoded by `decode`: DecodeShardMeta, or
// DecodeShardMetaRoots for its files' roots alone.
template <typename T>
Result<T> ReadMetaWith(const WorkFolder& folder, uint32_t s, Result<T> (*decode)(std::string_view)) {
  const std::string meta_path = folder.File(StageKind::kSign, s, "meta");
  Result<std::string> meta_bytes = ReadWholeFile(meta_path);
  if (!meta_bytes.ok()) return meta_bytes.status();
  Result<T> meta = decode(*meta_bytes);
  if (!meta.ok()) return Damaged(meta_path, meta.status().message());
  return meta;
}

Result<ShardMeta> ReadMeta(const WorkFolder& folder, uint32_t s) { return ReadMetaWith(folder, s, DecodeShardMeta); }

// Shard `s` of `shards` swept into `sw` (SweepTable), with its meta.
Status SweepShard(const WorkFolder& folder, const Options& o, uint32_t s, uint32_t shards, Sweep* sw) {
  FileEnds ends{.count = sw->shards[s].files, .first = {}, .last = {}};
  sw->reference.clear();
  Result<DecodedRecords> part = SweepTable(o, s, sw, &ends);
  if (!part.ok()) return part.status();
  const std::string& path = sw->shards[s].path;
  if (!(part->params == SignatureParams::From(o))) {
    return Status::InvalidArgument(ShellQuoted(path) + ": signed with other parameters");
  }
  const std::string meta_path = folder.File(StageKind::kSign, s, "meta");
  Result<ShardMeta> meta = ReadMeta(folder, s);
  if (!meta.ok()) return meta.status();
  const uint64_t docs = sw->shards[s].docs;
  if (Status st = CheckShardMeta(*meta, s, shards, ends, docs); !st.ok()) return Damaged(meta_path, st.message());
  // A file split between shards (byte_shares.h) is one file of the run: a
  // shard whose first file continues the last one's takes its index.
  const bool continues = ContinuesFirst(*meta, ends);
  if (continues != sw->continued_at.has_value() && ends.count > 0) {
    return Damaged(meta_path, "its byte range does not follow the last shard's");
  }
  const auto file_offset = static_cast<uint32_t>(sw->files - (continues ? 1 : 0));
  if (ends.count > 0) {
    const bool follows = meta->first_file == file_offset &&
                         (!continues || (*sw->continued_at == meta->first_begin && sw->last_path == ends.first.path));
    if (!follows) return Damaged(meta_path, "its files do not follow the last shard's");
    sw->continued_at.reset();
    if (ContinuedLast(*meta, ends)) sw->continued_at = meta->last_end;
    sw->last_path = std::move(ends.last.path);
  }
  if (s == 0) {
    sw->walk = meta->walk;
    sw->walk_errors = std::move(meta->walk_errors);
  }
  if (sw->reference.size() != ends.count) return Damaged(path, "changed while the report read it");
  for (uint64_t k = 0; k < ends.count; ++k) {
    if (sw->reference[k]) continue;
    const std::string& name = meta->kept_paths[k];
    if (Status st = sw->kept_names.Add({.hash = NameKey(name), .id = file_offset + k}); !st.ok()) return st;
  }
  sw->spans.push_back({.docs = docs, .listing = meta->listing});
  sw->first_file.push_back(file_offset);
  sw->files = file_offset + ends.count;
  for (InputProblem& p : meta->problems) {
    p.file += file_offset;
    sw->problems.push_back(std::move(p));
  }
  sw->counts += meta->counts;  // duplicate_ids: 0 in a shard, counted over all by the report
  return Status::Ok();
}

Result<std::unique_ptr<Sweep>> SweepShards(const WorkFolder& folder, const Options& o, uint32_t shards) {
  auto sw = std::make_unique<Sweep>();
  Result<std::vector<Shard>> opened = OpenShards(folder, shards);
  if (!opened.ok()) return opened.status();
  sw->shards = std::move(*opened);
  for (uint32_t s = 0; s < shards; ++s) {
    if (Status st = SweepShard(folder, o, s, shards, sw.get()); !st.ok()) return st;
  }
  if (sw->continued_at) {
    return Damaged(folder.File(StageKind::kSign, shards - 1, "meta"), "no shard continues the last shard's file");
  }
  return sw;
}

// Adds to *needed the ids of every run of more than one equal key.
Status AddGroups(SortedRuns<KeyId>* keys, std::vector<uint64_t>* needed) {
  return ForEachKeyGroup(
      keys, [needed](const std::vector<uint64_t>& ids) { needed->insert(needed->end(), ids.begin(), ids.end()); });
}

// The verify tasks' outputs, checked; their ids added to *needed.
Result<std::vector<VerifyOutput>> LoadVerifyOutputs(const WorkFolder& folder, const Run& run, uint32_t tasks,
                                                    const std::vector<ShardSpan>& spans,
                                                    std::vector<uint64_t>* needed) {
  std::vector<uint64_t> shard_docs;
  for (const ShardSpan& span : spans) shard_docs.push_back(span.docs);
  const uint64_t large_bucket = LargeBucketOf(run.options());
  std::vector<VerifyOutput> out;
  for (uint32_t k = 0; k < tasks; ++k) {
    const std::string path = folder.File(StageKind::kVerify, k, "pairs");
    // Mapped, not read into a string: the sets are most of its bytes
    // (megabytes on a few thousand mails), decoded into their own vectors.
    // A finished task's output is replaced whole (renamed over), never
    // written in place, so the mapping keeps the bytes it opened.
    Result<MappedFile> bytes = MappedFile::Open(path);
    if (!bytes.ok()) return bytes.status();
    bytes->Advise(MappedFile::Access::kSequential);
    Result<VerifyOutput> found = DecodeVerifyOutput(bytes->bytes());
    if (!found.ok()) return Damaged(path, found.status().message());
    const StageTask t{.task = k, .tasks = tasks};
    if (found->reread != run.rereads()) return CheckVerifyKinds(folder.Dir(StageKind::kVerify), run.rereads());
    if (Status s = CheckVerifyOutput(*found, shard_docs, large_bucket, run.rule(), run.options().relation, t);
        !s.ok()) {
      if (s.code() == Status::Code::kInvalidArgument) {
        return Status::InvalidArgument(ShellQuoted(path) +
                                       ": made for another --mode; run the bucket and verify tasks again");
      }
      return Damaged(path, s.message());
    }
    for (const VerifiedPair& p : found->pairs) {
      needed->push_back(p.a);
      needed->push_back(p.b);
    }
    for (const std::vector<uint64_t>& list : found->large) needed->insert(needed->end(), list.begin(), list.end());
    for (const LeftOutDoc& d : found->left_out) needed->push_back(d.id);
    out.push_back(std::move(*found));
  }
  return out;
}

// What ReadNeeded() gathers, shard after shard.
struct Gathered {
  SignatureTable table;            // the documents read; their `file` the run's index until the end
  std::vector<uint64_t> file_ids;  // the run's index of each of table.files, ascending
};

// The documents ReadNeeded() reads (global ids, ascending) and how far it
// is; the files of the problems (the run's indices, ascending).
struct NeededWalk {
  const std::vector<uint64_t>& needed;
  std::vector<uint64_t> problem_files;
  size_t next = 0;
};

// Shard `s`'s part of ReadNeeded(): its documents among w->needed, their
// rows, and the records of their files and of the problems' files in it
// (ReadShardRecords(): not the shard's every file), added to *out.
Status ReadShardNeeded(const WorkFolder& folder, const Sweep& sw, uint32_t s, NeededWalk* w, Gathered* out) {
  const Shard& shard = sw.shards[s];
  const MappedFile& file = *shard.file;
  const uint64_t first = sw.first_file[s];
  std::vector<uint64_t> problem_files;  // in the shard
  for (auto it = std::lower_bound(w->problem_files.begin(), w->problem_files.end(), first);
       it != w->problem_files.end() && *it < first + shard.files; ++it) {
    problem_files.push_back(*it - first);
  }
  const std::vector<uint64_t>& needed = w->needed;
  size_t& next = w->next;
  RecordWalk walk{.keep = KeepListed(s, needed, &next),
                  .hashed = nullptr,
                  .read = [&](size_t n) { file.Release(0, n); },  // from 0: the walk may be made twice
                  .checksum = false};                             // verified by the sweep, over the same mapping
  std::vector<uint64_t> file_ids;                                 // the shard's indices of part->files
  Result<DecodedRecords> part = ReadShardRecords(file.bytes(), walk, std::move(problem_files), &file_ids);
  if (!part.ok()) return Damaged(shard.path, part.status().message());
  if (next < needed.size() && ShardOf(needed[next]) <= s) {  // its header changed since the sweep
    return Damaged(shard.path, "changed while the report read it");
  }
  if (!file_ids.empty()) {  // their roots are in the meta (the rest of it was swept)
    Result<std::vector<uint32_t>> roots = ReadMetaWith(folder, s, DecodeShardMetaRoots);
    if (!roots.ok()) return roots.status();
    if (roots->size() != shard.files) {
      return Damaged(folder.File(StageKind::kSign, s, "meta"), "changed while the report read it");
    }
    for (size_t i = 0; i < file_ids.size(); ++i) {
      // A file split between shards is held once, from the first.
      if (!out->file_ids.empty() && out->file_ids.back() >= first + file_ids[i]) continue;
      part->files[i].root = (*roots)[file_ids[i]];
      out->file_ids.push_back(first + file_ids[i]);
      out->table.files.push_back(std::move(part->files[i]));
    }
  }
  const size_t perm = static_cast<size_t>(out->table.num_perm());
  std::vector<uint32_t> values;
  values.reserve(part->kept.size() * perm);
  size_t released = 0;  // the rows' pages before it are let go
  for (uint64_t k : part->kept) {
    const auto row = part->signatures.subspan(k * perm, perm);
    // A fault may map the whole (large) folio of page cache around a row,
    // up to 2 MiB: the folios before this row's are let go once it is
    // reached, or the rows of scattered documents would keep the whole
    // matrix resident (and not after each row, which would fault the same
    // folio in again for each of its rows).
    const size_t at = static_cast<size_t>(reinterpret_cast<const char*>(row.data()) - file.bytes().data());
    const size_t folio = at / kFolio * kFolio;
    if (folio > released + kFolio) {
      file.Release(released, folio - kFolio - released);
      released = folio - kFolio;
    }
    values.insert(values.end(), row.begin(), row.end());
  }
  for (DocRecord& d : part->docs) d.file += static_cast<uint32_t>(first);
  out->table.Append(std::move(part->docs), values);
  file.Release(0, file.size());
  return Status::Ok();
}

// The documents `needed` (global ids, ascending, each of a shard and below
// its count) with their signatures, in that order, read from the mappings
// swept before; the records of their files and of the problems' files
// only, in the run's order, the documents' and the problems' `file`
// renumbered to index them.
struct NeededRecords {
  SignatureTable table;
  std::vector<InputProblem> problems;
};
Result<NeededRecords> ReadNeeded(const WorkFolder& folder, const Sweep& sw, const Options& o,
                                 const std::vector<uint64_t>& needed) {
  NeededWalk w{.needed = needed, .problem_files = {}, .next = 0};
  for (const InputProblem& p : sw.problems) w.problem_files.push_back(p.file);
  std::sort(w.problem_files.begin(), w.problem_files.end());
  w.problem_files.erase(std::unique(w.problem_files.begin(), w.problem_files.end()), w.problem_files.end());
  Gathered got{.table = SignatureTable(o.num_perm), .file_ids = {}};
  for (uint32_t s = 0; s < sw.shards.size(); ++s) {
    if (Status st = ReadShardNeeded(folder, sw, s, &w, &got); !st.ok()) return st;
  }
  assert(w.next == needed.size());  // every id is of a shard (checked before)
  auto renumber = [&got](uint32_t f) {
    return static_cast<uint32_t>(std::lower_bound(got.file_ids.begin(), got.file_ids.end(), f) - got.file_ids.begin());
  };
  for (DocRecord& d : got.table.docs) d.file = renumber(d.file);
  NeededRecords out{.table = std::move(got.table), .problems = sw.problems};
  for (InputProblem& p : out.problems) p.file = renumber(p.file);
  return out;
}

// The corpus of the documents `needed`, their JSONL ids made unique as
// over every document: a document whose id is taken twice is among them
// (AddGroups), and one whose id is a name given by the renaming is added
// (and the records read again) until there is none left out.
Result<SignedCorpus> NeededCorpus(const WorkFolder& folder, Sweep* sw, const Options& o,
                                  std::vector<uint64_t>* needed) {
  for (;;) {
    Result<NeededRecords> read = ReadNeeded(folder, *sw, o, *needed);
    if (!read.ok()) return read.status();
    SignedCorpus corpus{.table = std::move(read->table),
                        .stream_copies = {},
                        .problems = std::move(read->problems),
                        .counts = sw->counts,
                        .unnamed_unsigned = {},
                        .named_unsigned = {},
                        .bitmaps = {}};
    corpus.stream_copies.resize(corpus.table.files.size());
    if (!RowsAreDocuments(o.input)) return corpus;
    std::vector<std::string> before;
    for (const DocRecord& d : corpus.table.docs) before.push_back(d.name);
    RenameDuplicateIds(&corpus);
    std::vector<uint64_t> renamed;
    for (size_t k = 0; k < before.size(); ++k) {
      if (corpus.table.docs[k].name != before[k]) renamed.push_back(NameKey(corpus.table.docs[k].name));
    }
    if (renamed.empty()) return corpus;
    std::sort(renamed.begin(), renamed.end());
    std::vector<uint64_t> more;
    for (const KeyId& k : sw->names) {
      if (!std::binary_search(renamed.begin(), renamed.end(), k.hash)) continue;
      if (!std::binary_search(needed->begin(), needed->end(), k.id)) more.push_back(k.id);
    }
    if (!sw->names.status().ok()) return sw->names.status();
    if (more.empty()) return corpus;
    needed->insert(needed->end(), more.begin(), more.end());
    std::sort(needed->begin(), needed->end());
  }
}

// The candidates of the verify tasks' outputs, as FindCandidates finds
// them, in the same bounded memory (CandidatePairs). `table` holds the
// documents `needed`, every id of the outputs among them.
Result<Candidates> LoadCandidates(const Run& run, const std::vector<VerifyOutput>& outputs, const SignatureTable& table,
                                  const std::vector<uint64_t>& needed) {
  auto doc = [&](uint64_t global) {
    return static_cast<DocId>(std::lower_bound(needed.begin(), needed.end(), global) - needed.begin());
  };
  Candidates out{.pairs = CandidatePairs(run.options().pair_memory), .visited = 0};
  const CandidateRule rule = CandidateRule::Of(run.options());
  for (const VerifyOutput& found : outputs) {
    out.visited += found.visited;
    for (const VerifiedPair& p : found.pairs) {
      if (Status s = out.pairs.Add({.a = doc(p.a), .b = doc(p.b), .estimate = p.estimate}); !s.ok()) return s;
    }
    for (const std::vector<uint64_t>& list : found.large) {
      std::vector<DocId> ids;
      ids.reserve(list.size());
      for (uint64_t g : list) ids.push_back(doc(g));
      if (Status s = LeadLargeBucket(table, run.options(), rule, std::move(ids), &out.pairs); !s.ok()) return s;
    }
  }
  if (Status s = out.pairs.Finish(); !s.ok()) return s;
  return out;
}

// The verdicts of verify tasks that read the documents again, over the
// report's DocIds (`needed`, which holds every id of the outputs): the pairs
// they accepted, the documents any of them left out (once, with the first
// task's reason) and the sets of the representatives.
Result<PriorVerdicts> LoadVerdicts(const Run& run, std::vector<VerifyOutput>& outputs,
                                   const std::vector<uint64_t>& needed) {
  auto doc = [&](uint64_t global) {
    return static_cast<DocId>(std::lower_bound(needed.begin(), needed.end(), global) - needed.begin());
  };
  PriorVerdicts out{.pairs = CandidatePairs(run.options().pair_memory),
                    .left_out = {},
                    .sets = {},
                    .relation = RelationRule::Of(run.options())};
  for (VerifyOutput& found : outputs) {
    for (const VerifiedPair& p : found.pairs) {
      const Candidate c{.a = doc(p.a), .b = doc(p.b), .estimate = p.estimate, .jaccard = p.jaccard, .kind = p.kind};
      if (Status s = out.pairs.Add(c); !s.ok()) return s;
    }
    for (LeftOutDoc& d : found.left_out) out.left_out.emplace_back(doc(d.id), std::move(d.why));
    for (auto& [id, set] : found.sets) out.sets.try_emplace(doc(id), std::move(set));
    found = VerifyOutput{};
  }
  std::stable_sort(out.left_out.begin(), out.left_out.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  out.left_out.erase(std::unique(out.left_out.begin(), out.left_out.end(),
                                 [](const auto& x, const auto& y) { return x.first == y.first; }),
                     out.left_out.end());
  if (Status s = out.pairs.Finish(); !s.ok()) return s;
  return out;
}

// The documents of `all` that are not in `table`, by kind.
DocKinds LeftOut(DocKinds all, const SignatureTable& table) {
  DocKinds held;
  for (const DocRecord& d : table.docs) CountKind(d.kind, &held);
  all.documents -= held.documents;
  all.empty -= held.empty;
  all.too_short -= held.too_short;
  all.binary -= held.binary;
  return all;
}

// The documents the report reads (global ids, ascending): those of the
// candidates (`outputs`), of the groups of copies and of the ids taken
// twice, and those `sw` needs already.
Result<std::vector<uint64_t>> NeededIds(Sweep* sw, const Options& o) {
  std::vector<uint64_t> needed = std::move(sw->needed);
  if (Status s = AddGroups(&sw->contents, &needed); !s.ok()) return s;
  sw->contents = SortedRuns<KeyId>(kKeysMemory, "sorting content hashes");
  if (RowsAreDocuments(o.input)) {
    if (Status s = AddGroups(&sw->names, &needed); !s.ok()) return s;
  }
  std::sort(needed.begin(), needed.end());
  needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
  return needed;
}

// The input file of the run's index `file` and its place below --kept-dir,
// read from its shard's table and meta.
Result<std::pair<std::string, std::string>> KeptPlaceOf(const WorkFolder& folder, const Sweep& sw, uint64_t file) {
  const auto after = std::upper_bound(sw.first_file.begin(), sw.first_file.end(), file);
  assert(after != sw.first_file.begin());
  const auto s = static_cast<uint32_t>(after - sw.first_file.begin() - 1);
  const uint64_t local = file - sw.first_file[s];
  const Shard& shard = sw.shards[s];
  RecordWalk walk{.keep = [](uint64_t, const DocRecord&) { return false; },
                  .hashed = nullptr,
                  .read = nullptr,
                  .checksum = false,  // verified by the sweep, over the same mapping
                  .keep_file = [local](uint64_t k, const InputFile&) { return k == local; }};
  Result<DecodedRecords> part = DecodeRecordsWith(shard.file->bytes(), walk);
  if (!part.ok()) return Damaged(shard.path, part.status().message());
  Result<ShardMeta> meta = ReadMeta(folder, s);
  if (!meta.ok()) return meta.status();
  if (part->files.size() != 1 || local >= meta->kept_paths.size()) {
    return Damaged(shard.path, "changed while the report read it");
  }
  return std::make_pair(std::move(part->files[0].path), std::move(meta->kept_paths[local]));
}

// Two input files that stage filter would write to the same place below
// --kept-dir, if any (NameClash::name empty else): of the runs of equal
// hashes of the kept paths (sw->kept_names), taken in the order of their
// second file, the first whose paths, read again, are the same (not two
// hashes that collide). Each run is held by its first kMaxClashFiles files.
Result<NameClash> FindNameClash(const WorkFolder& folder, Sweep* sw) {
  constexpr size_t kMaxClashFiles = 8;
  std::vector<std::vector<uint64_t>> groups;
  Status grouped = ForEachKeyGroup(&sw->kept_names, [&](const std::vector<uint64_t>& ids) {
    // A file split between shards is one file of the run: listed once.
    std::vector<uint64_t> files = ids;
    files.erase(std::unique(files.begin(), files.end()), files.end());
    if (files.size() > kMaxClashFiles) files.resize(kMaxClashFiles);
    if (files.size() > 1) groups.push_back(std::move(files));
  });
  if (!grouped.ok()) return grouped;
  std::sort(groups.begin(), groups.end(), [](const auto& x, const auto& y) { return x[1] < y[1]; });
  for (const std::vector<uint64_t>& files : groups) {
    std::vector<std::pair<std::string, std::string>> places;
    for (const uint64_t f : files) {
      Result<std::pair<std::string, std::string>> place = KeptPlaceOf(folder, *sw, f);
      if (!place.ok()) return place.status();
      places.push_back(std::move(*place));
    }
    for (size_t b = 1; b < files.size(); ++b) {
      for (size_t a = 0; a < b; ++a) {
        if (places[a].second != places[b].second) continue;
        return NameClash{.first = places[a].first, .second = places[b].first, .name = places[a].second};
      }
    }
  }
  return NameClash{};
}

// The report's dropped lists: written complete in every mode but pairs,
// where they need clusters that the report itself does not; there, written
// deferred unless kNow (stage_filter.h). kMarks: complete, and the mark
// lists of --annotate-dir besides (stage_marks.h).
enum class Lists { kAsTheModeHasThem, kNow, kMarks };

// The task counts of the sign and verify stages, once every task of sign,
// bucket and verify is found finished, of this run: the shards of these
// parameters and listing, the verify tasks of the report's kind.
struct Finished {
  uint32_t shards = 0;
  uint32_t verifiers = 0;
};
Result<Finished> CheckFinished(const WorkFolder& folder, const Run& run) {
  const Options& o = run.options();
  if (Status s = CheckShardParams(folder, o); !s.ok()) return s;
  Result<uint32_t> shards = folder.FinishedTasks(StageKind::kSign, SignFingerprint(o));
  if (!shards.ok()) return shards.status();
  if (Status s = CheckShardListings(folder, *shards, std::nullopt); !s.ok()) return s;
  Result<uint32_t> buckets = folder.FinishedTasks(StageKind::kBucket, BucketFingerprint(o));
  if (!buckets.ok()) return buckets.status();
  // Verdicts read again and estimates are never mixed: said before the
  // markers' fingerprints (which differ too) for a clearer message.
  if (Status s = CheckVerifyKinds(folder.Dir(StageKind::kVerify), run.rereads()); !s.ok()) return s;
  Result<uint32_t> verifiers = folder.FinishedTasks(StageKind::kVerify, VerifyFingerprint(o));
  if (!verifiers.ok()) return verifiers.status();
  return Finished{.shards = *shards, .verifiers = *verifiers};
}

// What the report verifies, from the verify tasks' `outputs` (let go):
// their verdicts when they read the documents again, else their candidates
// over `table` (the documents `needed`); none with -t 1.
Status LoadFound(const Run& run, std::vector<VerifyOutput>& outputs, const SignatureTable& table,
                 const std::vector<uint64_t>& needed, FoundPairs* found) {
  for (const VerifyOutput& v : outputs) found->candidates.visited += v.visited;
  if (run.rereads()) {  // the verify tasks read the documents again: nothing is read here
    Result<PriorVerdicts> verdicts = LoadVerdicts(run, outputs, needed);
    if (!verdicts.ok()) return verdicts.status();
    found->verdicts = std::move(*verdicts);
  } else if (!run.rule().identical_only) {
    Result<Candidates> from = LoadCandidates(run, outputs, table, needed);
    if (!from.ok()) return from.status();
    found->candidates = std::move(*from);
  }
  outputs.clear();
  return Status::Ok();
}

Result<Report> ReportTask(const Options& o, const std::string& work, const RunContext& ctx, Lists lists) {
  Result<std::unique_ptr<Run>> decided = Run::Decide(o, ctx);
  if (!decided.ok()) return decided.status();
  const Run& run = **decided;
  const WorkFolder folder(work);
  Result<Finished> finished = CheckFinished(folder, run);
  if (!finished.ok()) return finished.status();
  Result<std::unique_ptr<Sweep>> swept = SweepShards(folder, o, finished->shards);
  if (!swept.ok()) return swept.status();
  Sweep& sw = **swept;
  // -t 1 has no pairs, but its verify tasks read the copies again.
  Result<std::vector<VerifyOutput>> loaded = LoadVerifyOutputs(folder, run, finished->verifiers, sw.spans, &sw.needed);
  if (!loaded.ok()) return loaded.status();
  std::vector<VerifyOutput> outputs = std::move(*loaded);
  Result<std::vector<uint64_t>> needed = NeededIds(&sw, o);
  if (!needed.ok()) return needed.status();
  if (needed->size() >= std::numeric_limits<DocId>::max()) {
    return Status::InvalidArgument(ShellQuoted(work) + ": more documents in pairs than one report can hold");
  }
  Result<SignedCorpus> corpus = NeededCorpus(folder, &sw, o, &*needed);
  if (!corpus.ok()) return corpus.status();
  Result<NameClash> clash = FindNameClash(folder, &sw);
  if (!clash.ok()) return clash.status();
  sw.kept_names = SortedRuns<KeyId>(kKeysMemory, "sorting kept paths");
  sw.shards.clear();  // unmapped: the signatures needed are copied
  sw.names = SortedRuns<KeyId>(kKeysMemory, "sorting JSONL ids");
  FoundPairs found{.groups = CopyGroups::Build(corpus->table), .candidates = {}};
  if (Status s = LoadFound(run, outputs, corpus->table, *needed, &found); !s.ok()) return s;
  const DocKinds left_out = LeftOut(sw.kinds, corpus->table);
  SignedInputs inputs{.corpus = std::move(*corpus),
                      .walk = sw.walk,
                      .walk_errors = std::move(sw.walk_errors),
                      .walk_notices = {},
                      .walk_skipped = {},
                      .signed_now = {},
                      .index = {},
                      .mapped = {},
                      .left_out = left_out,
                      .stored_bitmaps = nullptr};
  // The filter tasks' lists: complete whenever the mode clusters anyway.
  const bool deferred = lists == Lists::kAsTheModeHasThem && o.mode == Mode::kPairs;
  Result<ReportOutcome> reported = ReportAndDropped(run, std::move(inputs), std::move(found),
                                                    deferred ? DroppedWanted::kWithKeptDir : DroppedWanted::kAlways);
  if (!reported.ok()) return reported.status();
  std::vector<uint64_t> dropped;
  dropped.reserve(reported->dropped.size());
  for (DocId d : reported->dropped) dropped.push_back((*needed)[d]);
  if (lists == Lists::kAsTheModeHasThem) {  // marks of an earlier report are not this one's
    if (Status s = RemoveMarkLists(folder, finished->shards); !s.ok()) return s;
  }
  if (Status s = WriteDroppedLists(folder, o, sw.spans, dropped, *clash, deferred); !s.ok()) return s;
  if (lists == Lists::kMarks) {
    if (Status s = WriteMarkLists(folder, o, sw.spans, *needed, *reported); !s.ok()) return s;
  }
  return std::move(reported->report);
}

}  // namespace

Result<Report> RunReportTask(const Options& o, const std::string& work, const RunContext& ctx) {
  return ReportTask(o, work, ctx, Lists::kAsTheModeHasThem);
}

Status WriteDroppedListsNow(const Options& o, const std::string& work, const RunContext& ctx) {
  assert(o.kept_dir.empty());
  return ReportTask(o, work, ctx, Lists::kNow).status();
}

Status WriteMarkListsNow(const Options& o, const std::string& work, const RunContext& ctx) {
  assert(o.kept_dir.empty() && !o.annotate_dir.empty());
  return ReportTask(o, work, ctx, Lists::kMarks).status();
}

}  // namespace neardup
