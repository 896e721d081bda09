#include "distributed/stage_verify.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "base/hash.h"
#include "base/mapped_file.h"
#include "distributed/stage_bucket.h"
#include "distributed/stage_bytes.h"
#include "distributed/stage_sign.h"
#include "distributed/work_folder.h"
#include "lsh/band_key.h"
#include "lsh/similarity.h"
#include "scan/run.h"
#include "sign/table_codec.h"

namespace neardup {

namespace {

constexpr char kVerifyMagic[8] = {'N', 'D', 'U', 'P', 'V', 'R', 'F', 'Y'};
constexpr uint32_t kVerifyVersion = 1;
// The largest folio of page cache a fault on a mapped file may map whole.
constexpr size_t kFolio = size_t{2} << 20;
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
    if (fd_ < 0) return Status::IoError(path_ + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return Status::IoError(path_ + ": cannot stat: " + std::strerror(errno));
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
  bool Read(uint64_t at, void* to, size_t n) {
    char* p = static_cast<char*>(to);
    while (n > 0) {
      const ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(at));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      p += got;
      at += static_cast<uint64_t>(got);
      n -= static_cast<size_t>(got);
    }
    return true;
  }
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
    if (k > 0 && !(last < p)) fail(Status::Corrupt("its pairs are out of order"));
    else if (p.a >= p.b) fail(Status::Corrupt("a pair out of order"));
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
        return Status::InvalidArgument(path + ": made for another --mode; run the bucket tasks again");
      }
      return Damaged(path, s.message());
    }
  }
  std::sort(share.pairs.begin(), share.pairs.end());
  return share;
}

// The signatures of the documents `ids` (ascending, each of a shard),
// row k being ids[k]'s, read by id from the shard tables.
Result<std::vector<uint32_t>> ReadRows(const WorkFolder& folder, const Options& o, const std::vector<uint64_t>& ids) {
  const size_t perm = static_cast<size_t>(o.num_perm);
  std::vector<uint32_t> rows;
  rows.reserve(ids.size() * perm);
  size_t next = 0;
  while (next < ids.size()) {
    const uint32_t s = ShardOf(ids[next]);
    const std::string path = folder.File(StageKind::kSign, s, "table");
    Result<MappedFile> file = MappedFile::Open(path);
    if (!file.ok()) return file.status();
    const size_t first = next;
    size_t read_to = 0;
    RecordWalk walk{.keep =
                        [&](uint64_t k, const DocRecord&) {
                          if (next == ids.size() || ids[next] != GlobalId(s, k)) return false;
                          ++next;
                          return true;
                        },
                    .hashed = nullptr,
                    .read =
                        [&](size_t n) {
                          file->Release(read_to, n - read_to);
                          read_to = n;
                        },
                    // The report checks every table whole before it trusts
                    // a pair: here only the records and the rows needed.
                    .checksum = false};
    Result<DecodedRecords> part = DecodeRecordsWith(file->bytes(), walk);
    if (!part.ok()) return Damaged(path, part.status().message());
    if (!(part->params == SignatureParams::From(o))) {
      return Status::InvalidArgument(path + ": signed with other parameters");
    }
    if (next == first || (next < ids.size() && ShardOf(ids[next]) == s)) {
      return Damaged(path, "fewer documents than its bands name");
    }
    for (uint64_t k : part->kept) {
      const auto row = part->signatures.subspan(k * perm, perm);
      rows.insert(rows.end(), row.begin(), row.end());
      // As the report does: a fault may map the whole folio around the row.
      const size_t at = static_cast<size_t>(reinterpret_cast<const char*>(row.data()) - file->bytes().data());
      file->Release(at / kFolio * kFolio, 2 * kFolio);
    }
    file->Release(0, file->size());
  }
  return rows;
}

// The verified pairs of `share`, by the run's banding and candidate floor.
VerifyOutput Score(const Run& run, Share share, const std::vector<uint64_t>& ids, const std::vector<uint32_t>& rows) {
  const size_t perm = static_cast<size_t>(run.options().num_perm);
  auto row = [&](uint64_t id) {
    return rows.data() + static_cast<size_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin()) * perm;
  };
  VerifyOutput out{.large_bucket = LargeBucketOf(run.options()), .visited = 0, .pairs = {}, .large = {}};
  for (const BucketPair& p : share.pairs) {
    const uint32_t* x = row(p.a);
    const uint32_t* y = row(p.b);
    if (!FirstSharedBand(x, y, run.banding(), static_cast<int>(p.band))) continue;
    ++out.visited;
    const double est = DistinctScore(SignatureAgreement(x, y, static_cast<int>(perm)));
    if (!MeetsThreshold(est, run.rule().candidate_floor)) continue;
    out.pairs.push_back({.a = p.a, .b = p.b, .estimate = est});
  }
  out.large = std::move(share.large);
  return out;
}

}  // namespace

uint32_t VerifyTaskOf(uint64_t first, uint32_t tasks) { return static_cast<uint32_t>(Mix64(first) % tasks); }

uint64_t VerifyFingerprint(const Options& options) {
  const double floor = CandidateFloor(options);
  uint64_t bits = 0;
  std::memcpy(&bits, &floor, 8);
  return BucketFingerprint(options) ^ HashBytes(&bits, 8, 0x7665726966790000ULL);
}

std::string EncodeVerifyOutput(const VerifyOutput& o) {
  std::string out;
  FieldWriter w(&out);
  w.Raw(kVerifyMagic, 8);
  w.U32(kVerifyVersion);
  w.U64(o.large_bucket);
  w.U64(o.visited);
  w.U64(o.pairs.size());
  for (const VerifiedPair& p : o.pairs) {
    w.U64(p.a);
    w.U64(p.b);
    w.Raw(&p.estimate, 8);
  }
  WriteIdLists(w, o.large);
  w.Checksum();
  return out;
}

Result<VerifyOutput> DecodeVerifyOutput(std::string_view bytes) {
  auto corrupt = [] { return Status::Corrupt("verified pairs: damaged (checksum, size or fields)"); };
  if (bytes.size() < 20 || !ChecksumMatches(bytes) || bytes.substr(0, 8) != std::string_view(kVerifyMagic, 8)) {
    return corrupt();
  }
  FieldReader r(bytes.substr(8, bytes.size() - 16));
  if (r.U32() != kVerifyVersion) return Status::InvalidArgument("verified pairs: another format version");
  VerifyOutput o;
  o.large_bucket = r.U64();
  o.visited = r.U64();
  const uint64_t n = r.U64();
  if (n > r.left() / 24) return corrupt();
  o.pairs.resize(n);
  for (VerifiedPair& p : o.pairs) {
    p.a = r.U64();
    p.b = r.U64();
    r.Raw(&p.estimate, 8);
  }
  if (!ReadIdLists(r, &o.large) || r.left() != 0) return corrupt();
  return o;
}

Status CheckVerifyOutput(const VerifyOutput& out, const std::vector<uint64_t>& shard_docs, uint64_t large_bucket,
                         double floor, StageTask t) {
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
    if (VerifyTaskOf(p.a, t.tasks) != t.task) return Status::Corrupt("a pair of another task");
    if (!(MeetsThreshold(p.estimate, floor) && p.estimate <= 1.0)) return Status::Corrupt("an estimate out of range");
  }
  if (out.visited < out.pairs.size()) return Status::Corrupt("fewer candidates visited than verified");
  if (Status s = CheckLargeBuckets(out.large, shard_docs, large_bucket); !s.ok()) return s;
  for (const std::vector<uint64_t>& list : out.large) {
    if (VerifyTaskOf(list.front(), t.tasks) != t.task) return Status::Corrupt("a large bucket of another task");
  }
  return Status::Ok();
}

Result<TaskRun> RunVerifyTask(const Options& o, const std::string& work, StageTask t, const RunContext& ctx) {
  Result<std::unique_ptr<Run>> decided = Run::Decide(o, ctx);
  if (!decided.ok()) return decided.status();
  const Run& run = **decided;
  if (t.tasks == 0 || t.task >= t.tasks) return Status::InvalidArgument("--task must be below --tasks");
  const WorkFolder folder(work);
  if (Status s = folder.Create(); !s.ok()) return s;
  const uint64_t fingerprint = VerifyFingerprint(o);
  Result<bool> done = folder.Done(StageKind::kVerify, t, fingerprint);
  if (!done.ok()) return done.status();
  if (*done) return TaskRun::kAlreadyDone;
  if (Status s = folder.SameRun(StageKind::kVerify, t, fingerprint); !s.ok()) return s;
  folder.RemoveTemporaries(StageKind::kVerify, t.task);
  if (Status s = CheckShardParams(folder, o); !s.ok()) return s;
  Result<uint32_t> shards = folder.FinishedTasks(StageKind::kSign, SignFingerprint(o));
  if (!shards.ok()) return shards.status();
  if (Status s = CheckShardListings(folder, *shards, std::nullopt); !s.ok()) return s;
  Result<uint32_t> buckets = folder.FinishedTasks(StageKind::kBucket, BucketFingerprint(o));
  if (!buckets.ok()) return buckets.status();
  VerifyOutput out{.large_bucket = LargeBucketOf(o), .visited = 0, .pairs = {}, .large = {}};
  if (!run.rule().identical_only) {  // -t 1: the report reads no pairs
    std::vector<uint64_t> shard_docs;
    for (uint32_t s = 0; s < *shards; ++s) {
      Result<uint64_t> docs = ShardDocCount(folder, s);
      if (!docs.ok()) return docs.status();
      shard_docs.push_back(*docs);
    }
    Result<Share> share =
        ReadShare(folder, o, *buckets, static_cast<uint64_t>(run.banding().bands), shard_docs, t);
    if (!share.ok()) return share.status();
    std::vector<uint64_t> ids;
    for (const BucketPair& p : share->pairs) {
      ids.push_back(p.a);
      ids.push_back(p.b);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    Result<std::vector<uint32_t>> rows = ReadRows(folder, o, ids);
    if (!rows.ok()) return rows.status();
    out = Score(run, std::move(*share), ids, *rows);
  }
  if (Status s = WriteAtomically(folder.File(StageKind::kVerify, t.task, "pairs"), EncodeVerifyOutput(out)); !s.ok()) {
    return s;
  }
  if (Status s = WriteAtomically(folder.File(StageKind::kVerify, t.task, "done"),
                                 WorkFolder::MarkerText(StageKind::kVerify, t, fingerprint));
      !s.ok()) {
    return s;
  }
  return TaskRun::kRan;
}

}  // namespace neardup
