#include "distributed/stage_bucket.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <queue>
#include <span>

#include "base/coding.h"
#include "base/hash.h"
#include "base/hash_sort.h"
#include "base/parallel.h"
#include "distributed/containment_share.h"
#include "distributed/format/band_file.h"
#include "distributed/format/bucket_pairs.h"
#include "distributed/format/shard_meta.h"
#include "distributed/shards.h"
#include "distributed/task_frame.h"
#include "lsh/candidates.h"
#include "neardup/quote.h"
#include "scan/run.h"

namespace neardup {

namespace {

constexpr size_t kBlockEntries = 4096;  // entries read at once from a run
// Entries read ahead over all the runs merged (29 bytes each while read):
// past 256 runs, each reads fewer than kBlockEntries at once.
constexpr size_t kMergeEntries = size_t{1} << 20;
// A window of a band, in entries (WindowBits()), and at most 2^kMaxWindowBits
// windows a band.
constexpr uint64_t kWindowEntries = uint64_t{1} << 18;
constexpr int kMaxWindowBits = 20;
// Content hashes read at once from a shard's copies section: at most 4 MiB,
// through gaps of less than 64 KiB between the members wanted.
constexpr uint64_t kCopiesSpan = uint64_t{1} << 18;
constexpr uint64_t kCopiesGap = uint64_t{1} << 12;

// An open sign/I.bands file: its header, trailer and descriptor.
class BandsFile {
 public:
  BandsFile() = default;
  BandsFile(const BandsFile&) = delete;
  BandsFile& operator=(const BandsFile&) = delete;
  ~BandsFile() {
    if (fd_ >= 0) ::close(fd_);
  }

  // Opens shard.path and checks its header, size and trailer.
  Status Open(const ShardBands& shard, Banding banding, uint64_t fingerprint) {
    shard_ = shard;
    const std::string& path = shard.path;
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return Status::IoError(ShellQuoted(path) + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return Status::IoError(ShellQuoted(path) + ": cannot stat: " + std::strerror(errno));
    std::string header(kBandsHeaderSize, '\0');
    if (!Read(0, header.data(), header.size())) return Damaged(path, "truncated");
    Result<BandsHeader> h = DecodeBandsHeader(header);
    if (!h.ok()) return Damaged(path, h.status().message());
    per_band_ = h->per_band;
    // Its size, then its checksums, then what it says.
    const std::optional<uint64_t> size = BandsFileSize(h->bands, per_band_, h->docs, h->runs);
    if (!size || *size != static_cast<uint64_t>(st.st_size)) return Damaged(path, "its size does not match its header");
    std::string trailer(BandsTrailerSize(h->runs, h->bands), '\0');
    if (!Read(*size - trailer.size(), trailer.data(), trailer.size())) return Damaged(path, "truncated");
    const BandsTrailer t = DecodeBandsTrailer(trailer, h->runs, h->bands);
    if (t.index_sum != BandsIndexChecksum(header, std::string_view(trailer).substr(0, trailer.size() - 8))) {
      return Damaged(path, "checksum mismatch");
    }
    if (h->docs != shard.docs) return Damaged(path, "its document count is not its shard table's");
    if (per_band_ > shard.docs) return Damaged(path, "more entries a band than its shard has documents");
    if (static_cast<int>(h->bands) != banding.bands || static_cast<int>(h->rows) != banding.rows ||
        h->fingerprint != fingerprint) {
      return Status::InvalidArgument(ShellQuoted(path) +
                                     ": signed with other options (signature or banding) than these");
    }
    if (Status s = ReadRuns(t, h->runs, h->bands); !s.ok()) return s;
    copies_at_ = kBandsHeaderSize + uint64_t{h->bands} * per_band_ * kBandEntrySize;
    return CheckCopies(t.copies_sum);
  }
  // The runs of `band`: where each starts, its entries, its checksum.
  struct RunPlace {
    uint64_t offset = 0;
    uint64_t entries = 0;
    uint64_t checksum = 0;
  };
  uint64_t runs() const { return runs_; }
  const RunPlace& run(uint64_t r, uint64_t band) const { return places_[r * bands_ + band]; }
  // Reads the content hashes of the shard's documents [first, first + n)
  // (below its count) into `to` (n * kCopyEntrySize bytes), from the copies
  // section that Open() checked. False when they cannot be read.
  bool ReadCopies(uint64_t first, uint64_t n, char* to) const {
    return Read(copies_at_ + first * kCopyEntrySize, to, static_cast<size_t>(n * kCopyEntrySize));
  }
  uint64_t per_band() const { return per_band_; }
  const ShardBands& shard() const { return shard_; }
  bool Read(uint64_t offset, void* to, size_t size) const { return ReadAt(fd_, offset, to, size); }

 private:
  ShardBands shard_;
  int fd_ = -1;
  // Reads the copies section through, against its checksum.
  Status CheckCopies(uint64_t expected) const {
    Hasher64 h;
    h.Reset(0);
    std::string chunk;
    for (uint64_t at = 0, total = shard_.docs * kCopyEntrySize; at < total;) {
      chunk.resize(static_cast<size_t>(std::min<uint64_t>(total - at, uint64_t{1} << 20)));
      if (!Read(copies_at_ + at, chunk.data(), chunk.size())) return Damaged(shard_.path, "truncated");
      h.Update(chunk.data(), chunk.size());
      at += chunk.size();
    }
    if (h.Digest() != expected) return Damaged(shard_.path, "checksum mismatch");
    return Status::Ok();
  }

  // The trailer's counts and checksums as places, checked: each band's
  // counts add up to per_band_.
  Status ReadRuns(const BandsTrailer& trailer, uint32_t runs, uint32_t bands) {
    runs_ = runs;
    bands_ = bands;
    places_.resize(uint64_t{runs} * bands);
    std::vector<uint64_t> in_band(bands, 0);
    uint64_t offset = kBandsHeaderSize;
    for (uint64_t k = 0; k < places_.size(); ++k) {
      RunPlace& p = places_[k];
      p.entries = trailer.counts[k];
      p.checksum = trailer.sums[k];
      if (p.entries > per_band_ - in_band[k % bands])
        return Damaged(shard_.path, "its runs do not add up to its bands");
      in_band[k % bands] += p.entries;
      p.offset = offset;
      offset += p.entries * kBandEntrySize;
    }
    for (const uint64_t n : in_band) {
      if (n != per_band_) return Damaged(shard_.path, "its runs do not add up to its bands");
    }
    return Status::Ok();
  }

  uint64_t per_band_ = 0;
  uint64_t copies_at_ = 0;  // where the copies section starts
  uint64_t runs_ = 0, bands_ = 0;
  std::vector<RunPlace> places_;  // run after run, band after band
};

// One shard's run of one band, read block by block, each entry checked
// before use and the run against its checksum once read.
struct BandRun {
  const BandsFile* file = nullptr;
  size_t file_index = 0;     // among the shards merged
  uint64_t checksum = 0;     // of the whole run
  size_t block_entries = 0;  // read at once
  uint64_t offset = 0;       // of the next block
  uint64_t left = 0;         // entries not yet read
  std::vector<BandEntry> block;
  std::string raw;  // the block as read
  size_t pos = 0;
  Hasher64 hash;
  bool started = false;  // whether `last` holds an entry
  BandEntry last;

  // Makes `pos` point at an entry. False at the end, or on an error (then
  // *error is set).
  bool Fill(Status* error) {
    if (pos < block.size()) return true;
    if (left == 0 || !error->ok()) return false;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left, block_entries));
    raw.resize(n * kBandEntrySize);
    if (!file->Read(offset, raw.data(), raw.size())) {
      *error = Damaged(file->shard().path, "truncated");
      return false;
    }
    hash.Update(raw.data(), raw.size());
    block.resize(n);
    const char* p = raw.data();
    const uint64_t shard_base = GlobalId(file->shard().shard, 0);
    for (BandEntry& e : block) {
      e = DecodeBandEntry(p);
      const uint64_t local = e.id;
      p += kBandEntrySize;
      e.id = shard_base | local;
      if (local >= file->shard().docs) {
        *error = Damaged(file->shard().path, "a document id out of range");
        return false;
      }
      if (started && !(last < e)) {
        *error = Damaged(file->shard().path, "its entries are out of order");
        return false;
      }
      last = e;
      started = true;
    }
    offset += raw.size();
    left -= n;
    pos = 0;
    if (left == 0 && hash.Digest() != checksum) {
      *error = Damaged(file->shard().path, "checksum mismatch");
      return false;
    }
    return true;
  }
};

// A bucket's member: its global id and content hash.
struct Member {
  ContentHash content;
  uint64_t id = 0;
};

// The buckets of two or more of one band, as the merge closes them: their
// members (global id and the run it came from) one bucket after another,
// `starts` where each begins. Memory: per member of such a bucket.
struct BandBuckets {
  std::vector<std::pair<uint64_t, size_t>> members;  // id, run
  std::vector<size_t> starts;
  void Add(const std::vector<std::pair<BandEntry, size_t>>& bucket) {
    if (bucket.size() < 2) return;
    starts.push_back(members.size());
    for (const auto& [entry, s] : bucket) members.push_back({entry.id, s});
  }
};

// The content hashes of `band`'s members, in their order, from the shards'
// copies sections: read in id order, shard by shard, each read a span of at
// most kCopiesSpan entries that covers the next members while the gap to the
// next is below kCopiesGap entries (reading through is cheaper than another
// pread), so never one pread a member where members are dense. Memory: the
// members' order and hashes, and one span. Corrupt naming the file when one
// cannot be read.
Result<std::vector<ContentHash>> ReadContents(const BandBuckets& band, const std::vector<BandRun>& runs,
                                              const std::vector<std::unique_ptr<BandsFile>>& files) {
  std::vector<std::pair<uint64_t, size_t>> order(band.members.size());  // (run, local) as one key, position
  for (size_t k = 0; k < order.size(); ++k) {
    const uint64_t file = runs[band.members[k].second].file_index;
    order[k] = {(file << kShardShift) | LocalOf(band.members[k].first), k};
  }
  std::sort(order.begin(), order.end());
  std::vector<ContentHash> contents(order.size());
  std::string span;
  for (size_t i = 0; i < order.size();) {
    const uint64_t file_index = order[i].first >> kShardShift, first = LocalOf(order[i].first);
    size_t j = i + 1;  // members [i, j) in the span
    while (j < order.size() && order[j].first >> kShardShift == file_index &&
           LocalOf(order[j].first) - first < kCopiesSpan &&
           LocalOf(order[j].first) - LocalOf(order[j - 1].first) < kCopiesGap) {
      ++j;
    }
    const uint64_t n = LocalOf(order[j - 1].first) - first + 1;
    const BandsFile& file = *files[static_cast<size_t>(file_index)];
    span.resize(static_cast<size_t>(n * kCopyEntrySize));
    if (!file.ReadCopies(first, n, span.data())) return Damaged(file.shard().path, "truncated");
    for (; i < j; ++i) {
      const char* entry = span.data() + (LocalOf(order[i].first) - first) * kCopyEntrySize;
      contents[order[i].second] = DecodeContentHash(entry);
    }
  }
  return contents;
}

// One bucket (`ids` ascending, `contents` theirs): its representatives'
// pairs, or the whole list when it is large.
void EmitBucket(std::span<const std::pair<uint64_t, size_t>> ids, std::span<const ContentHash> contents, uint64_t band,
                uint64_t large_bucket, std::vector<Member>& members, BucketOutput* out) {
  members.resize(ids.size());
  for (size_t k = 0; k < ids.size(); ++k) members[k] = {.content = contents[k], .id = ids[k].first};
  std::stable_sort(members.begin(), members.end(),
                   [](const Member& x, const Member& y) { return x.content < y.content; });
  std::vector<uint64_t> reps;
  for (size_t k = 0; k < members.size(); ++k) {
    if (k == 0 || !(members[k].content == members[k - 1].content)) reps.push_back(members[k].id);
  }
  if (reps.size() < 2) return;
  std::sort(reps.begin(), reps.end());
  if (large_bucket > 0 && reps.size() > large_bucket) {
    out->large.push_back(std::move(reps));
    return;
  }
  for (size_t x = 0; x < reps.size(); ++x) {
    for (size_t y = x + 1; y < reps.size(); ++y) out->pairs.push_back({.a = reps[x], .b = reps[y], .band = band});
  }
}

// Band `band`'s buckets of two or more (the runs' heads merged), then each
// bucket's pairs once the members' content hashes are read.
Status EmitBuckets(const BandBuckets& buckets, const std::vector<BandRun>& runs,
                   const std::vector<std::unique_ptr<BandsFile>>& files, uint64_t band, uint64_t large_bucket,
                   BucketOutput* out) {
  Result<std::vector<ContentHash>> contents = ReadContents(buckets, runs, files);
  if (!contents.ok()) return contents.status();
  const std::span<const std::pair<uint64_t, size_t>> all(buckets.members);
  std::vector<Member> members;
  for (size_t b = 0; b < buckets.starts.size(); ++b) {
    const size_t first = buckets.starts[b];
    const size_t last = b + 1 < buckets.starts.size() ? buckets.starts[b + 1] : all.size();
    EmitBucket(all.subspan(first, last - first), std::span<const ContentHash>(*contents).subspan(first, last - first),
               band, large_bucket, members, out);
  }
  return Status::Ok();
}

using Head = std::pair<BandEntry, size_t>;  // entry, run

// An entry of a window of a band: its hash rotated left by the window bits,
// so that the bits that vary within the window lead (SortByHash partitions
// by the top bits; within one window the order is the hash's), its global
// id and the run it came from.
struct WindowEntry {
  uint64_t hash = 0;
  uint64_t id = 0;
  size_t run = 0;
  bool operator<(const WindowEntry& o) const { return hash != o.hash ? hash < o.hash : id < o.id; }
};

// The bits of the hash that pick a window, for `entries` band keys: windows
// of about kWindowEntries entries when the hashes are spread.
int WindowBits(uint64_t entries) {
  if (entries <= kWindowEntries) return 0;
  return std::min(kMaxWindowBits, static_cast<int>(std::bit_width((entries - 1) / kWindowEntries)));
}

// Takes from every run the entries whose hash's top `bits` bits are `w`
// (the runs are sorted, so they are each run's next ones) into `window`.
Status FillWindow(std::vector<BandRun>& runs, int bits, uint64_t w, std::vector<WindowEntry>* window) {
  window->clear();
  Status error;
  for (size_t s = 0; s < runs.size(); ++s) {
    BandRun& run = runs[s];
    while (run.Fill(&error)) {
      const BandEntry& e = run.block[run.pos];
      if (bits > 0 && (e.hash >> (64 - bits)) != w) break;
      window->push_back({.hash = std::rotl(e.hash, bits), .id = e.id, .run = s});
      ++run.pos;
    }
    if (!error.ok()) return error;
  }
  return Status::Ok();
}

// Merges band `band`'s runs of every shard, bucket by bucket. The band is
// taken a window of hash values at a time (the top bits of the hash), each
// window's entries sorted by (hash, id) with SortByHash: the order a merge
// of the runs would give, at the cost of a radix sort rather than a heap
// step per entry, whatever the number of runs. Memory: a window (about
// kWindowEntries entries where the hashes are spread; the members of equal
// hashes are held anyway) and each run's block.
Status BucketBand(const std::vector<std::unique_ptr<BandsFile>>& files, uint64_t band, uint64_t large_bucket,
                  BucketOutput* out) {
  size_t total = 0;
  for (const auto& f : files) total += static_cast<size_t>(f->runs());
  std::vector<BandRun> runs(total);
  const size_t block_entries = std::clamp<size_t>(kMergeEntries / std::max<size_t>(total, 1), 256, kBlockEntries);
  uint64_t entries = 0;
  for (size_t s = 0, at = 0; s < files.size(); ++s) {
    for (uint64_t r = 0; r < files[s]->runs(); ++r, ++at) {
      const BandsFile::RunPlace& place = files[s]->run(r, band);
      BandRun& run = runs[at];
      run.file = files[s].get();
      run.file_index = s;
      run.checksum = place.checksum;
      run.block_entries = block_entries;
      run.offset = place.offset;
      run.left = place.entries;
      run.hash.Reset(0);
      entries += place.entries;
      if (place.entries == 0 && HashBytes(nullptr, 0, 0) != place.checksum) {
        return Damaged(files[s]->shard().path, "checksum mismatch");
      }
    }
  }
  const int bits = WindowBits(entries);
  std::vector<WindowEntry> window, scratch;
  std::vector<uint32_t> ends;
  std::vector<Head> bucket;
  BandBuckets buckets;
  for (uint64_t w = 0; w < (uint64_t{1} << bits); ++w) {
    if (Status s = FillWindow(runs, bits, w, &window); !s.ok()) return s;
    internal::SortByHash(window, scratch, ends);
    for (size_t i = 0; i < window.size();) {
      size_t j = i + 1;
      while (j < window.size() && window[j].hash == window[i].hash) ++j;
      if (j - i >= 2) {
        bucket.clear();
        for (size_t k = i; k < j; ++k) {
          bucket.push_back({BandEntry{.hash = std::rotr(window[k].hash, bits), .id = window[k].id}, window[k].run});
        }
        buckets.Add(bucket);
      }
      i = j;
    }
  }
  return EmitBuckets(buckets, runs, files, band, large_bucket, out);
}

}  // namespace

uint64_t LargeBucketOf(const Options& options) { return options.mode != Mode::kPairs ? kLargeBucket : 0; }

uint64_t BucketFingerprint(const Options& options) {
  const uint64_t fingerprint = SignFingerprint(options) ^ (LargeBucketOf(options) * 0x9e3779b97f4a7c15ULL);
  if (options.relation == Relation::kSimilar) return fingerprint;
  // The containment candidates: their bandings and floor (ContainmentFloor()).
  std::string bytes;
  PutFixed64(&bytes, fingerprint);
  PutFixed8(&bytes, static_cast<uint8_t>(options.relation));
  PutFixed8(&bytes, static_cast<uint8_t>(options.verify));
  PutFixed64(&bytes, options.min_contained);
  for (const double v :
       {options.threshold, options.exact_margin, options.min_jaccard, options.min_ratio, options.max_ratio}) {
    PutDouble(&bytes, v);
  }
  return Checksum64(bytes);
}

BandRange BandsOfTask(StageTask t, uint64_t bands) {
  return {.first = t.task * bands / t.tasks, .last = (uint64_t{t.task} + 1) * bands / t.tasks};
}

bool IdInRange(uint64_t id, const std::vector<uint64_t>& shard_docs) {
  return ShardOf(id) < shard_docs.size() && LocalOf(id) < shard_docs[ShardOf(id)];
}

Status CheckLargeBuckets(const std::vector<std::vector<uint64_t>>& large, const std::vector<uint64_t>& shard_docs,
                         uint64_t large_bucket) {
  if (!large.empty() && large_bucket == 0) return Status::Corrupt("a large bucket in pairs mode");
  for (const std::vector<uint64_t>& list : large) {
    if (list.size() <= large_bucket) return Status::Corrupt("a large bucket that is not large");
    for (size_t k = 0; k < list.size(); ++k) {
      if (!IdInRange(list[k], shard_docs)) return Status::Corrupt("a document id out of range");
      if (k > 0 && list[k - 1] >= list[k]) return Status::Corrupt("a large bucket out of order");
    }
  }
  return Status::Ok();
}

Status CheckBucketOutput(const BucketOutput& out, const PairsLimits& limits) {
  if (out.large_bucket != limits.large_bucket) return Status::InvalidArgument("made for another --mode");
  for (size_t k = 0; k < out.pairs.size(); ++k) {
    const BucketPair& p = out.pairs[k];
    if (k > 0 && !(out.pairs[k - 1] < p)) return Status::Corrupt("its pairs are out of order");
    if (p.a >= p.b) return Status::Corrupt("a pair out of order");
    if (!IdInRange(p.a, limits.shard_docs) || !IdInRange(p.b, limits.shard_docs)) {
      return Status::Corrupt("a document id out of range");
    }
    if (p.band < limits.bands.first || p.band >= limits.bands.last) return Status::Corrupt("a band out of range");
  }
  for (size_t k = 0; k < out.contained.size(); ++k) {
    if (Status s = CheckContainedPair(k == 0 ? nullptr : &out.contained[k - 1], out.contained[k], limits.shard_docs);
        !s.ok()) {
      return s;
    }
  }
  if (out.contained_visited < out.contained.size())
    return Status::Corrupt("fewer containment pairs visited than found");
  return CheckLargeBuckets(out.large, limits.shard_docs, limits.large_bucket);
}

Status CheckContainedPair(const ContainedPair* before, const ContainedPair& p,
                          const std::vector<uint64_t>& shard_docs) {
  if (before != nullptr && !(*before < p)) return Status::Corrupt("its containment candidates are out of order");
  if (p.a >= p.b) return Status::Corrupt("a containment candidate out of order");
  if (!IdInRange(p.a, shard_docs) || !IdInRange(p.b, shard_docs)) return Status::Corrupt("a document id out of range");
  return Status::Ok();
}

Result<BucketOutput> BucketBands(const std::vector<ShardBands>& shards, Banding banding, uint64_t fingerprint,
                                 BandRange range, uint64_t large_bucket, const Workers& workers) {
  std::vector<std::unique_ptr<BandsFile>> files;
  for (const ShardBands& shard : shards) {
    files.push_back(std::make_unique<BandsFile>());
    if (Status s = files.back()->Open(shard, banding, fingerprint); !s.ok()) return s;
  }
  BucketOutput out;
  out.large_bucket = large_bucket;
  assert(range.last <= static_cast<uint64_t>(banding.bands));
  // The bands are independent: each fills its own part; the parts are
  // joined in band order (and the pairs sorted), whatever the threads.
  const size_t n = range.last > range.first ? static_cast<size_t>(range.last - range.first) : 0;
  std::vector<BucketOutput> parts(n);
  std::vector<Status> errors(n);
  ParallelFor(workers, n,
              [&](int, size_t k) { errors[k] = BucketBand(files, range.first + k, large_bucket, &parts[k]); });
  for (size_t k = 0; k < n; ++k) {
    if (!errors[k].ok()) return errors[k];
    out.pairs.insert(out.pairs.end(), parts[k].pairs.begin(), parts[k].pairs.end());
    for (std::vector<uint64_t>& list : parts[k].large) out.large.push_back(std::move(list));
    parts[k] = BucketOutput();
  }
  std::sort(out.pairs.begin(), out.pairs.end());
  out.pairs.erase(std::unique(out.pairs.begin(), out.pairs.end()), out.pairs.end());
  return out;
}

Result<TaskRun> RunBucketTask(const Options& o, const std::string& work, StageTask t, const RunContext& ctx) {
  Result<std::unique_ptr<Run>> decided = Run::Decide(o, ctx);
  if (!decided.ok()) return decided.status();
  const Run& run = **decided;
  const WorkFolder folder(work);
  Result<TaskFrame> frame = TaskFrame::Begin(folder, StageKind::kBucket, t, BucketFingerprint(o));
  if (!frame.ok()) return frame.status();
  if (frame->done()) return TaskRun::kAlreadyDone;
  if (Status s = frame->Join(); !s.ok()) return s;
  if (Status s = CheckShardParams(folder, o); !s.ok()) return s;
  const uint64_t sign_fingerprint = SignFingerprint(o);
  Result<uint32_t> shards = folder.FinishedTasks(StageKind::kSign, sign_fingerprint);
  if (!shards.ok()) return shards.status();
  if (Status s = CheckShardListings(folder, *shards, std::nullopt); !s.ok()) return s;
  const Banding banding = run.banding();
  std::vector<ShardBands> bands(*shards);
  for (uint32_t s = 0; s < *shards; ++s) {
    Result<uint64_t> docs = ShardDocCount(folder, s);
    if (!docs.ok()) return docs.status();
    bands[s] = {.path = folder.File(StageKind::kSign, s, "bands"), .shard = s, .docs = *docs};
  }
  // --relation contains alone bands no Jaccard pair, as scan.
  const BandRange range =
      o.relation == Relation::kContains ? BandRange{} : BandsOfTask(t, static_cast<uint64_t>(banding.bands));
  Result<BucketOutput> out = BucketBands(bands, banding, sign_fingerprint, range, LargeBucketOf(o), run.workers());
  if (!out.ok()) return out.status();
  if (o.relation != Relation::kSimilar && !run.rule().identical_only) {
    Result<ContainedShare> contained = FindContainedShare(run, folder, *shards, t, ContainedShareMemory::Of(o));
    if (!contained.ok()) return contained.status();
    out->contained_visited = contained->visited;
    out->contained = std::move(contained->pairs);
  }
  if (Status s = frame->Place("pairs", EncodeBucketOutput(*out)); !s.ok()) return s;
  return frame->Finish();
}

}  // namespace neardup
