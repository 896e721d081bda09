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

#include "base/hash.h"
#include "base/mapped_file.h"
#include "distributed/content_keys.h"
#include "distributed/stage_bucket.h"
#include "distributed/stage_bytes.h"
#include "distributed/stage_sign.h"
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

constexpr char kVerifyMagic[8] = {'N', 'D', 'U', 'P', 'V', 'R', 'F', 'Y'};
// 2: the pairs' exact Jaccard, the documents left out and the sets of a
// task that read the documents again (--exact, -t 1).
constexpr uint32_t kVerifyVersion = 2;
// The bytes of a bucket output read at once.
constexpr size_t kStreamBuffer = size_t{1} << 20;

// The task's share of every bucket output, each checked as the report
// checked them; `ids` gets the documents of its pairs.
struct Share {
  std::vector<BucketPair> pairs;  // ascending by (a, b, band)
  std::vector<std::vector<uint64_t>> large;
};

// A stage file read front to back through a buffer of kStreamBuffer bytes,
// its bytes hashed as they pass: its fields (those before its last 8
// bytes), then whether those 8 bytes are the checksum of the rest, as
// ChecksumMatches() checks a whole file. Memory: the buffer.
class FileStream {
 public:
  explicit FileStream(std::string path) : path_(std::move(path)) {}
  FileStream(const FileStream&) = delete;
  FileStream& operator=(const FileStream&) = delete;
  ~FileStream() {
    if (fd_ >= 0) ::close(fd_);
  }
  // IoError naming the file when it cannot be opened.
  Status Open() {
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return Status::IoError(ShellQuoted(path_) + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return Status::IoError(ShellQuoted(path_) + ": cannot stat: " + std::strerror(errno));
    size_ = static_cast<uint64_t>(st.st_size);
    body_ = size_ < 8 ? 0 : size_ - 8;
    hash_.Reset(0);
    return Status::Ok();
  }
  uint64_t size() const { return size_; }
  // Bytes before the checksum not yet taken.
  uint64_t left() const { return body_ - taken_; }
  bool ok() const { return ok_; }
  uint32_t U32() {
    uint32_t v = 0;
    Raw(&v, 4);
    return v;
  }
  uint64_t U64() {
    uint64_t v = 0;
    Raw(&v, 8);
    return v;
  }
  // Takes the next n bytes into `to`; past the checksum or on a read error,
  // zeros, and ok() is false from then on.
  void Raw(void* to, size_t n) {
    char* p = static_cast<char*>(to);
    if (!ok_ || n > left()) ok_ = false;
    while (ok_ && n > 0) {
      if (pos_ == buffer_.size() && !Refill()) break;
      const size_t k = std::min(n, buffer_.size() - pos_);
      std::memcpy(p, buffer_.data() + pos_, k);
      pos_ += k;
      taken_ += k;
      p += k;
      n -= k;
    }
    if (!ok_) std::memset(p, 0, n);
  }
  // Reads the rest of the body through; whether the file's last 8 bytes
  // are XXH3-64 of the others.
  bool ChecksumMatches() {
    if (size_ < 8) return false;
    ok_ = true;
    while (read_ < body_) {
      if (!Refill()) return false;
    }
    uint64_t stored = 0;
    return Read(body_, &stored, 8) && stored == hash_.Digest();
  }

 private:
  bool Read(uint64_t at, void* to, size_t n) { return ReadAt(fd_, at, to, n); }
  // The next piece of the body into the buffer, hashed.
  bool Refill() {
    buffer_.resize(static_cast<size_t>(std::min<uint64_t>(kStreamBuffer, body_ - read_)));
    pos_ = 0;
    if (buffer_.empty() || !Read(read_, buffer_.data(), buffer_.size())) return ok_ = false;
    hash_.Update(buffer_.data(), buffer_.size());
    read_ += buffer_.size();
    return true;
  }

  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0, body_ = 0;
  uint64_t read_ = 0;   // body bytes read (and hashed)
  uint64_t taken_ = 0;  // body bytes taken as fields
  std::string buffer_;
  size_t pos_ = 0;
  Hasher64 hash_;
  bool ok_ = true;
};

// The pairs of one bucket output (EncodeBucketOutput()'s layout) streamed
// into `share`, each checked as CheckBucketOutput() checks them. The first
// error is returned once the file is read through: its checksum's (as
// DecodeBucketOutput() says it) before any other.
Status StreamBucketOutput(FileStream& in, const PairsLimits& limits, StageTask t, Share* share) {
  auto damaged = [] { return Status::Corrupt("bucket pairs: damaged (checksum, size or fields)"); };
  Status first;  // the first error of the fields, if any
  auto fail = [&first](Status s) {
    if (first.ok()) first = std::move(s);
  };
  char magic[8] = {};
  in.Raw(magic, 8);
  if (in.size() < 20 || std::memcmp(magic, kBucketPairsMagic, 8) != 0) fail(damaged());
  if (first.ok() && in.U32() != kBucketPairsVersion) fail(Status::Corrupt("bucket pairs: another format version"));
  if (first.ok() && in.U64() != limits.large_bucket) fail(Status::InvalidArgument("made for another --mode"));
  const uint64_t n = first.ok() ? in.U64() : 0;
  if (n > in.left() / 24) fail(damaged());
  BucketPair last{};
  for (uint64_t k = 0; k < n && first.ok(); ++k) {
    BucketPair p;
    p.a = in.U64();
    p.b = in.U64();
    p.band = in.U64();
    if (k > 0 && !(last < p))
      fail(Status::Corrupt("its pairs are out of order"));
    else if (p.a >= p.b)
      fail(Status::Corrupt("a pair out of order"));
    else if (!IdInRange(p.a, limits.shard_docs) || !IdInRange(p.b, limits.shard_docs)) {
      fail(Status::Corrupt("a document id out of range"));
    } else if (p.band < limits.bands.first || p.band >= limits.bands.last) {
      fail(Status::Corrupt("a band out of range"));
    }
    last = p;
    if (VerifyTaskOf(p.a, t.tasks) == t.task) share->pairs.push_back(p);
  }
  const uint64_t lists = first.ok() ? in.U64() : 0;
  if (lists > in.left() / 8) fail(damaged());
  for (uint64_t k = 0; k < lists && first.ok(); ++k) {
    const uint64_t size = in.U64();
    if (size > in.left() / 8) {
      fail(damaged());
      break;
    }
    std::vector<std::vector<uint64_t>> one(1, std::vector<uint64_t>(size));
    for (uint64_t& id : one[0]) id = in.U64();
    if (Status s = CheckLargeBuckets(one, limits.shard_docs, limits.large_bucket); !s.ok()) fail(std::move(s));
    if (!one[0].empty() && VerifyTaskOf(one[0].front(), t.tasks) == t.task) share->large.push_back(std::move(one[0]));
  }
  if (first.ok() && (!in.ok() || in.left() != 0)) fail(damaged());
  if (!in.ChecksumMatches()) return damaged();
  return first;
}

Result<Share> ReadShare(const WorkFolder& folder, const Options& o, uint32_t buckets, uint64_t bands,
                        const std::vector<uint64_t>& shard_docs, StageTask t) {
  Share share;
  PairsLimits limits{.shard_docs = shard_docs, .bands = {}, .large_bucket = LargeBucketOf(o)};
  for (uint32_t j = 0; j < buckets; ++j) {
    FileStream in(folder.File(StageKind::kBucket, j, "pairs"));
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
// one at a time.
Result<SignatureTable> ReadDocs(const WorkFolder& folder, const Options& o, const std::vector<uint64_t>& ids) {
  const size_t perm = static_cast<size_t>(o.num_perm);
  SignatureTable table(o.num_perm);
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
    if (next == first || (next < ids.size() && ShardOf(ids[next]) == s)) {
      return Damaged(path, "fewer documents than its bands name");
    }
    const auto base = static_cast<uint32_t>(table.files.size());
    std::vector<uint32_t> values;
    values.reserve(part->kept.size() * perm);
    for (size_t i = 0; i < part->kept.size(); ++i) {
      const auto row = part->signatures.subspan(part->kept[i] * perm, perm);
      values.insert(values.end(), row.begin(), row.end());
      DocRecord& d = part->docs[i];
      d.file =
          base + static_cast<uint32_t>(std::lower_bound(file_ids.begin(), file_ids.end(), d.file) - file_ids.begin());
    }
    table.files.insert(table.files.end(), std::make_move_iterator(part->files.begin()),
                       std::make_move_iterator(part->files.end()));
    table.Append(std::move(part->docs), values);
    file->Release(0, file->size());
  }
  return table;
}

// Scan's verification of `candidates` over `table` (the documents `ids`,
// document k being ids[k]) into *out: the pairs accepted, the documents
// left out and, in cluster modes, the sets of the pairs' representatives.
Status VerifyInto(const Run& run, SignatureTable table, Candidates candidates, const std::vector<uint64_t>& ids,
                  VerifyOutput* out) {
  SignedCorpus corpus{.table = std::move(table),
                      .stream_copies = {},
                      .problems = {},
                      .counts = {},
                      .unnamed_unsigned = {},
                      .named_unsigned = {},
                      .bitmaps = {}};
  corpus.stream_copies.resize(corpus.table.files.size());  // stage sign refuses streams
  CopyGroups groups = CopyGroups::Build(corpus.table);
  Result<Verified> verified = VerifyCandidates(run.Verifying(run.workers()), corpus, &groups, std::move(candidates));
  if (!verified.ok()) return verified.status();
  std::vector<uint64_t> reps;  // of the accepted pairs
  for (const Candidate& p : verified->pairs) {
    out->pairs.push_back({.a = ids[p.a], .b = ids[p.b], .estimate = p.estimate, .jaccard = p.jaccard});
    reps.insert(reps.end(), {p.a, p.b});
  }
  if (!verified->pairs.status().ok()) return verified->pairs.status();
  for (auto& [doc, why] : verified->left_out) out->left_out.push_back({.id = ids[doc], .why = std::move(why)});
  std::sort(out->left_out.begin(), out->left_out.end(),
            [](const LeftOutDoc& x, const LeftOutDoc& y) { return x.id < y.id; });
  {  // --cluster-by keep compares any two members (the dropped lists cluster in pairs mode too)
    std::sort(reps.begin(), reps.end());
    reps.erase(std::unique(reps.begin(), reps.end()), reps.end());
    for (uint64_t rep : reps) {
      auto it = verified->sets().find(static_cast<DocId>(rep));
      if (it != verified->sets().end()) out->sets.emplace_back(ids[rep], it->second);
    }
  }
  return Status::Ok();
}

// Scan's verification of the task's share, reading the documents again
// (verify_candidates.h): the pairs accepted, the documents left out and, in
// cluster modes, the sets of the pairs' representatives.
Result<VerifyOutput> VerifyReadAgain(const Run& run, const WorkFolder& folder, uint32_t shards, Share share,
                                     StageTask t) {
  const Options& o = run.options();
  std::vector<uint64_t> pair_ids;
  for (const BucketPair& p : share.pairs) pair_ids.insert(pair_ids.end(), {p.a, p.b});
  for (const std::vector<uint64_t>& list : share.large) pair_ids.insert(pair_ids.end(), list.begin(), list.end());
  std::sort(pair_ids.begin(), pair_ids.end());
  pair_ids.erase(std::unique(pair_ids.begin(), pair_ids.end()), pair_ids.end());
  Result<std::vector<uint64_t>> copies = CopiesToRead(folder, shards, pair_ids, t);
  if (!copies.ok()) return copies.status();
  std::vector<uint64_t> ids = std::move(*copies);
  ids.insert(ids.end(), pair_ids.begin(), pair_ids.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.size() >= std::numeric_limits<DocId>::max()) {
    return Status::InvalidArgument("more documents in one verify task's pairs than it can hold: run more tasks");
  }
  Result<SignatureTable> table = ReadDocs(folder, o, ids);
  if (!table.ok()) return table.status();
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
  const CandidateRule accept = CandidateRule::Of(o);
  for (const BucketPair& p : share.pairs) {
    const DocId a = local(p.a), b = local(p.b);
    const uint32_t* x = table->signature(a).data();
    const uint32_t* y = table->signature(b).data();
    if (!FirstSharedBand(x, y, run.banding(), static_cast<int>(p.band))) continue;
    ++out.visited;
    const double est = PairEstimate(table->signature(a), table->signature(b));
    if (!accept.Accepts(est)) continue;
    if (Status s = candidates.pairs.Add({.a = a, .b = b, .estimate = est}); !s.ok()) return s;
  }
  for (const std::vector<uint64_t>& list : share.large) {
    std::vector<DocId> members;
    for (uint64_t g : list) members.push_back(local(g));
    if (Status s = LeadLargeBucket(*table, o, std::move(members), &candidates.pairs); !s.ok()) return s;
  }
  if (Status s = candidates.pairs.Finish(); !s.ok()) return s;
  if (Status s = VerifyInto(run, std::move(*table), std::move(candidates), ids, &out); !s.ok()) return s;
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
    FileStream in(path);
    if (!in.Open().ok() || in.size() < 21) continue;  // named by the checks that follow
    char magic[8] = {};
    in.Raw(magic, 8);
    if (std::memcmp(magic, kVerifyMagic, 8) != 0 || in.U32() != kVerifyVersion) continue;
    uint8_t kind = 0;
    in.Raw(&kind, 1);
    if ((kind == 1) == reread) continue;
    return Status::InvalidArgument(
        ShellQuoted(path) +
        (reread ? ": verified from the signatures, but this report reads nothing again (--exact, -t 1): "
                  "run the verify tasks again with the report's options"
                : ": verified by reading the documents again (--exact, -t 1), but this report is not: run "
                  "the verify tasks again with the report's options"));
  }
  return Status::Ok();
}

std::string EncodeVerifyOutput(const VerifyOutput& o) {
  std::string out;
  FieldWriter w(&out);
  w.Raw(kVerifyMagic, 8);
  w.U32(kVerifyVersion);
  w.U8(o.reread ? 1 : 0);
  w.U64(o.large_bucket);
  w.U64(o.visited);
  w.U64(o.pairs.size());
  for (const VerifiedPair& p : o.pairs) {
    w.U64(p.a);
    w.U64(p.b);
    w.Raw(&p.estimate, 8);
    w.Raw(&p.jaccard, 8);
  }
  WriteIdLists(w, o.large);
  w.U64(o.left_out.size());
  for (const LeftOutDoc& d : o.left_out) {
    w.U64(d.id);
    w.U8(static_cast<uint8_t>(d.why.code()));
    w.Text(d.why.message());
  }
  w.U64(o.sets.size());
  for (const auto& [id, set] : o.sets) {
    w.U64(id);
    w.U64(set.size());
    for (uint64_t h : set) w.U64(h);
  }
  w.Checksum();
  return out;
}

namespace {

// A left-out document's status back from its code; nullopt for a code a
// left-out document cannot have.
std::optional<Status> StatusOf(uint8_t code, std::string message) {
  switch (static_cast<Status::Code>(code)) {
    case Status::Code::kIoError:
      return Status::IoError(std::move(message));
    case Status::Code::kChanged:
      return Status::Changed(std::move(message));
    case Status::Code::kNotFound:
      return Status::NotFound(std::move(message));
    case Status::Code::kCorrupt:
      return Status::Corrupt(std::move(message));
    case Status::Code::kInvalidArgument:
      return Status::InvalidArgument(std::move(message));
    default:
      return std::nullopt;
  }
}

// The read-again sections of `o` (left out, sets) from `r`; false when damaged.
bool ReadVerdicts(FieldReader& r, VerifyOutput* o) {
  const uint64_t n = r.U64();
  if (n > r.left() / 17) return false;
  for (uint64_t k = 0; k < n && r.ok(); ++k) {
    const uint64_t id = r.U64();
    const uint8_t code = r.U8();
    std::optional<Status> why = StatusOf(code, r.Text());
    if (!why || why->ok()) return false;
    o->left_out.push_back({.id = id, .why = std::move(*why)});
  }
  const uint64_t sets = r.U64();
  if (sets > r.left() / 16) return false;
  for (uint64_t k = 0; k < sets && r.ok(); ++k) {
    const uint64_t id = r.U64();
    const uint64_t size = r.U64();
    if (size > r.left() / 8) return false;
    std::vector<uint64_t> set(size);
    for (uint64_t& h : set) h = r.U64();
    o->sets.emplace_back(id, std::move(set));
  }
  return r.ok();
}

}  // namespace

Result<VerifyOutput> DecodeVerifyOutput(std::string_view bytes) {
  auto corrupt = [] { return Status::Corrupt("verified pairs: damaged (checksum, size or fields)"); };
  if (bytes.size() < 20 || !ChecksumMatches(bytes) || bytes.substr(0, 8) != std::string_view(kVerifyMagic, 8)) {
    return corrupt();
  }
  FieldReader r(bytes.substr(8, bytes.size() - 16));
  if (r.U32() != kVerifyVersion) return Status::InvalidArgument("verified pairs: another format version");
  VerifyOutput o;
  const uint8_t reread = r.U8();
  if (reread > 1) return corrupt();
  o.reread = reread == 1;
  o.large_bucket = r.U64();
  o.visited = r.U64();
  const uint64_t n = r.U64();
  if (n > r.left() / 32) return corrupt();
  o.pairs.resize(n);
  for (VerifiedPair& p : o.pairs) {
    p.a = r.U64();
    p.b = r.U64();
    r.Raw(&p.estimate, 8);
    r.Raw(&p.jaccard, 8);
  }
  if (!ReadIdLists(r, &o.large) || !ReadVerdicts(r, &o) || r.left() != 0) return corrupt();
  return o;
}

namespace {

// The read-again values of `out`: Jaccards in [threshold, 1], no large
// bucket, left-out documents and sets ascending by id, each of a shard.
Status CheckVerdicts(const VerifyOutput& out, const std::vector<uint64_t>& shard_docs, const Verification& rule) {
  for (const VerifiedPair& p : out.pairs) {
    const bool in_range = out.reread ? MeetsThreshold(p.jaccard, rule.threshold) && p.jaccard <= 1.0 : p.jaccard == -1;
    if (!in_range) return Status::Corrupt("a Jaccard out of range");
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
                         const Verification& rule, StageTask t) {
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
    if (!(MeetsThreshold(p.estimate, rule.candidate_floor) && p.estimate <= 1.0)) {
      return Status::Corrupt("an estimate out of range");
    }
  }
  if (!out.reread && out.visited < out.pairs.size()) return Status::Corrupt("fewer candidates visited than verified");
  if (Status s = CheckVerdicts(out, shard_docs, rule); !s.ok()) return s;
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
                                 StageTask t) {
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
  if (run.rereads()) return VerifyReadAgain(run, folder, shards, std::move(*share), t);
  std::vector<uint64_t> ids;
  for (const BucketPair& p : share->pairs) {
    ids.push_back(p.a);
    ids.push_back(p.b);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  Result<std::vector<uint32_t>> rows = ReadRows(folder, o, ids);
  if (!rows.ok()) return rows.status();
  return Score(run, std::move(*share), ids, *rows);
}

}  // namespace

Result<TaskRun> RunVerifyTask(const Options& o, const std::string& work, StageTask t, const RunContext& ctx) {
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
  Result<VerifyOutput> out = VerifyShare(run, folder, *shards, *buckets, t);
  if (!out.ok()) return out.status();
  if (Status s = frame->Place("pairs", EncodeVerifyOutput(*out)); !s.ok()) return s;
  return frame->Finish();
}

}  // namespace neardup
