#include "distributed/containment_share.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <span>
#include <string>
#include <unordered_set>

#include "base/hash_sort.h"
#include "base/large_array_allocator.h"
#include "base/mapped_file.h"
#include "base/parallel.h"
#include "base/sorted_runs.h"
#include "base/temp_file.h"
#include "distributed/format/shard_meta.h"
#include "lsh/band_key.h"
#include "lsh/banding.h"
#include "lsh/containment_banding.h"
#include "lsh/containment_candidates.h"
#include "lsh/similarity.h"
#include "neardup/quote.h"
#include "sign/table_codec.h"

namespace neardup {

namespace {

constexpr int kStrata = 64;           // StratumOf() is below it
constexpr uint32_t kBandBits = 12;    // a band below 2^12 (num_perm <= 4096)
constexpr size_t kStoreBlock = 4096;  // documents read at once from the store
// Bucket members gathered before the workers pair their buckets.
constexpr size_t kBatchMembers = size_t{1} << 15;
// A batch's members are read from a store on disk in spans of at most
// kSpanRecords records, through gaps of at most kReadGap records.
constexpr uint32_t kSpanRecords = 2048;
constexpr uint32_t kReadGap = 8;

// A document that can be contained or contain, as the store holds it before
// its signature.
struct StoredHead {
  uint64_t id = 0;  // global
  uint64_t shingles = 0;
  ContentHash content;
};

// One band key of one document in one pass. The key is mixed with the place
// (pass and band), so that one sort by hash groups the buckets of every pass
// and band; the place itself is compared too, against a collision.
struct KeyEntry {
  uint64_t hash = 0;
  uint32_t place = 0;  // pass << kBandBits | band
  uint32_t doc = 0;    // the document's number in the store
  bool operator<(const KeyEntry& o) const {
    if (hash != o.hash) return hash < o.hash;
    return place != o.place ? place < o.place : doc < o.doc;
  }
};

// The documents that can be contained or contain, in global id order:
// document k is the record at k * record_bytes(), its head then its
// signature. Held in memory up to `budget` bytes; past it, in a temporary
// file, read back record by record. Memory: at most the budget (and a
// byte a document while within it).
class DocStore {
 public:
  DocStore(int num_perm, uint64_t budget) : num_perm_(static_cast<size_t>(num_perm)), budget_(budget) {}
  size_t record_bytes() const { return sizeof(StoredHead) + num_perm_ * sizeof(uint32_t); }
  uint32_t size() const { return size_; }

  Status Add(const StoredHead& head, std::span<const uint32_t> signature) {
    if (++size_ >= std::numeric_limits<uint32_t>::max()) {
      return Status::InvalidArgument("more documents that can be contained than one bucket task can hold");
    }
    const int stratum = StratumOf(head.shingles);
    ++counts_[static_cast<size_t>(stratum)];
    const char* sig = reinterpret_cast<const char*>(signature.data());
    if (!file_.get() && memory_.size() + record_bytes() <= budget_) {
      memory_.insert(memory_.end(), reinterpret_cast<const char*>(&head), reinterpret_cast<const char*>(&head + 1));
      memory_.insert(memory_.end(), sig, sig + num_perm_ * sizeof(uint32_t));
      strata_.push_back(static_cast<uint8_t>(stratum));
      return Status::Ok();
    }
    if (!file_.get()) {
      Result<TempFile> f = TempFile::Create("the documents that can be contained");
      if (!f.ok()) return f.status();
      file_ = std::move(*f);
      if (std::fwrite(memory_.data(), 1, memory_.size(), file_.get()) != memory_.size()) return Error("write");
      std::vector<char>().swap(memory_);
      std::vector<uint8_t>().swap(strata_);
    }
    if (std::fwrite(&head, sizeof head, 1, file_.get()) != 1 ||
        std::fwrite(sig, sizeof(uint32_t), num_perm_, file_.get()) != num_perm_) {
      return Error("write");
    }
    return Status::Ok();
  }
  bool in_memory() const { return !file_.get(); }
  // The documents of each stratum.
  const std::array<uint64_t, kStrata>& counts() const { return counts_; }
  // In memory: the stratum of each document, so that a walk skips those of
  // other strata without touching their records.
  const std::vector<uint8_t>& strata() const { return strata_; }
  const char* InMemory(uint32_t doc) const { return memory_.data() + uint64_t{doc} * record_bytes(); }
  Status Finish() { return file_.get() && std::fflush(file_.get()) != 0 ? Error("write") : Status::Ok(); }
  // Documents [first, first + n): in memory, or read into *scratch.
  Result<const char*> Records(uint32_t first, uint32_t n, std::vector<char>* scratch) const {
    const uint64_t at = uint64_t{first} * record_bytes();
    if (!file_.get()) return memory_.data() + at;
    scratch->resize(n * record_bytes());
    if (n > 0 && !ReadAt(file_.get(), at, scratch->data(), scratch->size())) return Error("read");
    return scratch->data();
  }
  // Record k of what Records() gave.
  StoredHead HeadAt(const char* records, size_t k) const {
    StoredHead h;
    std::memcpy(&h, records + k * record_bytes(), sizeof h);
    return h;
  }
  const uint32_t* SignatureAt(const char* records, size_t k) const {
    return reinterpret_cast<const uint32_t*>(records + k * record_bytes() + sizeof(StoredHead));
  }

 private:
  Status Error(const char* what) const {
    return Status::IoError("temporary file in " + ShellQuoted(TempFile::Folder()) + ": " + what + ": " +
                           std::strerror(errno));
  }
  size_t num_perm_;
  uint64_t budget_;
  std::vector<char> memory_;
  std::vector<uint8_t> strata_;
  std::array<uint64_t, kStrata> counts_{};
  TempFile file_;
  uint32_t size_ = 0;
};

// Adds to `store` the documents of shard `s` that can be contained (kOk, at
// least --min-contained distinct shingles).
Status AddShard(const WorkFolder& folder, const Options& o, uint32_t s, DocStore* store) {
  const std::string path = folder.File(StageKind::kSign, s, "table");
  Result<MappedFile> file = MappedFile::Open(path);
  if (!file.ok()) return file.status();
  file->Advise(MappedFile::Access::kSequential);
  Result<TableHeader> header = PeekHeader(file->bytes());
  if (!header.ok()) return Damaged(path, header.status().message());
  // The documents go to the store as the walk meets them (none is kept in
  // memory), their signatures read from the matrix in place, whose pages
  // are let go behind them; the records' pages too.
  const bool same_params = header->params == SignatureParams::From(o);
  const size_t row_bytes = static_cast<size_t>(o.num_perm) * sizeof(uint32_t);
  const char* matrix = file->bytes().data() + header->signatures_offset;
  Status added;
  size_t read_to = 0;
  RecordWalk walk{.keep =
                      [&](uint64_t index, const DocRecord& d) {
                        if (!same_params || !added.ok() || d.kind != DocKind::kOk || d.shingles < o.min_contained) {
                          return false;
                        }
                        const StoredHead head{.id = GlobalId(s, index), .shingles = d.shingles, .content = d.content};
                        const auto* row = reinterpret_cast<const uint32_t*>(matrix + index * row_bytes);
                        added = store->Add(head, {row, static_cast<size_t>(o.num_perm)});
                        if (index % kStoreBlock == 0) file->Release(header->signatures_offset, index * row_bytes);
                        return false;
                      },
                  .hashed = [&](size_t n) { file->Release(0, n); },
                  .read =
                      [&](size_t n) {
                        file->Release(read_to, n - read_to);
                        read_to = n;
                      },
                  .checksum = true};
  Result<DecodedRecords> part = DecodeRecordsWith(file->bytes(), walk);
  file->Release(0, file->size());
  if (!part.ok()) return Damaged(path, part.status().message());
  if (!same_params) return Status::InvalidArgument(ShellQuoted(path) + ": signed with other parameters");
  return added;
}

// A banding pass of this task: its distance, banding and larger stratum.
struct PassOf {
  int distance = 0;
  Banding banding;
  int high = 0;
  uint64_t docs = 0;        // in its strata: its keys a band
  uint64_t first_unit = 0;  // its bands' first among all of the task's passes
};

// The passes of task `t` among all (numbered as FindContainmentCandidates()
// numbers them), in that order.
struct Passes {
  std::vector<PassOf> mine;
  uint64_t units = 0;  // bands of all the passes: (pass, band) units

  // The documents that unit `u` bands (its pass's).
  uint64_t DocsOfUnit(uint64_t u) const {
    const auto after =
        std::upper_bound(mine.begin(), mine.end(), u, [](uint64_t x, const PassOf& p) { return x < p.first_unit; });
    return std::prev(after)->docs;
  }
};

Passes PassesOf(const Options& o, const std::array<uint64_t, kStrata>& strata, StageTask t) {
  Passes out;
  uint64_t number = 0;
  for (const StrataBanding& s : ContainmentBandings(o.threshold, o.max_ratio, o.num_perm)) {
    const Banding banding = o.min_jaccard > s.jaccard ? ChooseBanding(o.min_jaccard, o.num_perm) : s.banding;
    for (int k = 0; k < kStrata; ++k) {
      const int high = k + s.distance;
      if (high >= kStrata || strata[static_cast<size_t>(k)] == 0 || strata[static_cast<size_t>(high)] == 0) continue;
      if (number++ % t.tasks != t.task) continue;
      const uint64_t docs = strata[static_cast<size_t>(k)] + (s.distance > 0 ? strata[static_cast<size_t>(high)] : 0);
      out.mine.push_back(
          {.distance = s.distance, .banding = banding, .high = high, .docs = docs, .first_unit = out.units});
      out.units += static_cast<uint64_t>(banding.bands);
    }
  }
  return out;
}

// Units [first, last) of a task's passes: the bands of passes, numbered
// pass after pass (PassOf::first_unit).
struct UnitRange {
  uint64_t first = 0, last = 0;
};

// The bands of one pass within a group of units.
struct GroupPass {
  uint32_t pass = 0;
  int from = 0, to = 0;   // its bands [from, to)
  int low = 0, high = 0;  // its strata
  Banding banding;
};

// The passes with bands in `range`, and the strata they band (bit k for
// stratum k).
struct GroupPasses {
  std::vector<GroupPass> passes;
  uint64_t strata = 0;
};

GroupPasses PassesIn(const Passes& passes, UnitRange range) {
  GroupPasses out;
  for (size_t p = 0; p < passes.mine.size(); ++p) {
    const PassOf& pass = passes.mine[p];
    const uint64_t bands = static_cast<uint64_t>(pass.banding.bands);
    if (pass.first_unit + bands <= range.first || pass.first_unit >= range.last) continue;
    const int low = pass.high - pass.distance;
    out.passes.push_back({.pass = static_cast<uint32_t>(p),
                          .from = static_cast<int>(std::max(range.first, pass.first_unit) - pass.first_unit),
                          .to = static_cast<int>(std::min(range.last, pass.first_unit + bands) - pass.first_unit),
                          .low = low,
                          .high = pass.high,
                          .banding = pass.banding});
    out.strata |= (uint64_t{1} << low) | (uint64_t{1} << pass.high);
  }
  return out;
}

// Adds to `add` (Status(const KeyEntry&)) the band keys of store document
// `doc` (its signature `sig`, its stratum `stratum`) in the passes of
// `group` it takes part in (past distance 0, a document is the smaller of
// one pass and the larger of another).
template <class Add>
Status AddKeys(const GroupPasses& group, uint32_t doc, const uint32_t* sig, int stratum, Add& add) {
  for (const GroupPass& g : group.passes) {
    if (stratum != g.low && stratum != g.high) continue;
    for (int band = g.from; band < g.to; ++band) {
      const uint32_t place = (g.pass << kBandBits) | static_cast<uint32_t>(band);
      // The key is uniform already: a constant per place keeps it so.
      const uint64_t hash = BandKey(sig, g.banding, band) ^ (place * 0x9e3779b97f4a7c15ULL);
      if (Status s = add(KeyEntry{.hash = hash, .place = place, .doc = doc}); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

// A content hash as a hash table's hash: its low half, already uniform.
struct ContentHasher {
  size_t operator()(const ContentHash& c) const { return static_cast<size_t>(c.low); }
};

// The representatives of one bucket, read from the store: the first member
// of each content (the members come in store order, which is global id
// order; copies share every bucket): their heads, strata and signatures.
// A worker's, reused bucket after bucket.
struct Bucket {
  std::vector<StoredHead> heads;
  std::vector<int> strata;
  std::vector<const uint32_t*> signatures;  // in MemberRecords
  std::unordered_set<ContentHash, ContentHasher> contents;
  std::vector<size_t> sides[2];  // the representatives of each stratum of a pass
};

// What a worker finds as it walks the buckets.
struct Found {
  uint64_t visited = 0;
  SortedRuns<ContainedPair> pairs;
  Status status;
};

// The records of a batch's members: the store's own when it is in memory,
// else read into one buffer in store order, a span of members at a time.
// Memory: the batch's distinct members' records.
class MemberRecords {
 public:
  explicit MemberRecords(const DocStore& store) : store_(store) {}
  Status Read(const std::vector<uint32_t>& docs) {
    if (store_.in_memory()) return Status::Ok();
    const size_t bytes = store_.record_bytes();
    wanted_.assign(docs.begin(), docs.end());
    std::sort(wanted_.begin(), wanted_.end());
    wanted_.erase(std::unique(wanted_.begin(), wanted_.end()), wanted_.end());
    records_.resize(wanted_.size() * bytes);
    for (size_t i = 0; i < wanted_.size();) {
      size_t j = i + 1;
      while (j < wanted_.size() && wanted_[j] - wanted_[j - 1] <= kReadGap && wanted_[j] - wanted_[i] < kSpanRecords) {
        ++j;
      }
      Result<const char*> span = store_.Records(wanted_[i], wanted_[j - 1] - wanted_[i] + 1, &span_);
      if (!span.ok()) return span.status();
      for (size_t k = i; k < j; ++k) {
        std::memcpy(&records_[k * bytes], *span + (wanted_[k] - wanted_[i]) * bytes, bytes);
      }
      i = j;
    }
    return Status::Ok();
  }
  // REQUIRES: `doc` was among Read()'s docs.
  const char* At(uint32_t doc) const {
    if (store_.in_memory()) return store_.InMemory(doc);
    const size_t k = static_cast<size_t>(std::lower_bound(wanted_.begin(), wanted_.end(), doc) - wanted_.begin());
    return &records_[k * store_.record_bytes()];
  }

 private:
  const DocStore& store_;
  std::vector<uint32_t> wanted_;  // ascending
  std::vector<char> records_;     // wanted_[k]'s at k * record_bytes()
  std::vector<char> span_;
};

// What the workers pairing a batch share.
struct BatchContext {
  const DocStore& store;
  const MemberRecords& records;
  const Options& options;
};

// Reads the representatives of the bucket of store documents `docs` into *b.
void ReadRepresentatives(const BatchContext& c, std::span<const uint32_t> docs, Bucket* b) {
  b->heads.clear();
  b->strata.clear();
  b->signatures.clear();
  b->contents.clear();
  for (const uint32_t doc : docs) {
    const char* record = c.records.At(doc);
    const StoredHead head = c.store.HeadAt(record, 0);
    if (!b->contents.insert(head.content).second) continue;  // a copy of an earlier member
    b->heads.push_back(head);
    b->strata.push_back(StratumOf(head.shingles));
    b->signatures.push_back(c.store.SignatureAt(record, 0));
  }
}

// One bucket of pass `pass`, band `band`, whose members are `docs` (store
// numbers, ascending): its pairs as LshIndex gives them (across the two
// strata past distance 0, each in the first band it shares), then the
// containment floor of FindContainmentCandidates().
Status PairsOfBucket(const BatchContext& c, const PassOf& pass, int band, std::span<const uint32_t> docs, Bucket* b,
                     Found* found) {
  const Options& o = c.options;
  const size_t perm = static_cast<size_t>(o.num_perm);
  ReadRepresentatives(c, docs, b);
  auto pair = [&](size_t x, size_t y) -> Status {  // x < y
    const uint32_t* xa = b->signatures[x];
    const uint32_t* xb = b->signatures[y];
    if (!FirstSharedBand(xa, xb, pass.banding, band)) return Status::Ok();
    ++found->visited;
    if (std::abs(b->strata[x] - b->strata[y]) != pass.distance) return Status::Ok();
    const double floor = ContainmentFloor(o, b->heads[x].shingles, b->heads[y].shingles);
    if (floor > 1 || !MeetsThreshold(PairEstimate({xa, perm}, {xb, perm}), floor)) return Status::Ok();
    return found->pairs.Add({.a = b->heads[x].id, .b = b->heads[y].id});
  };
  const size_t n = b->heads.size();
  if (pass.distance == 0) {
    for (size_t x = 0; x < n; ++x) {
      for (size_t y = x + 1; y < n; ++y) {
        if (Status s = pair(x, y); !s.ok()) return s;
      }
    }
    return Status::Ok();
  }
  // Past distance 0, the pairs across the two strata only.
  for (std::vector<size_t>& side : b->sides) side.clear();
  for (size_t x = 0; x < n; ++x) b->sides[b->strata[x] == pass.high ? 1 : 0].push_back(x);
  for (const size_t x : b->sides[0]) {
    for (const size_t y : b->sides[1]) {
      if (Status s = pair(std::min(x, y), std::max(x, y)); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

// Adds to `add` the band keys of every store document in the passes of
// `range`.
template <class Add>
Status AddAllKeys(const DocStore& store, const Passes& passes, UnitRange range, const Workers& workers, Add add) {
  const GroupPasses group = PassesIn(passes, range);
  if (store.in_memory()) {
    for (uint32_t k = 0; k < store.size(); ++k) {
      if (k % kStoreBlock == 0 && workers.Cancelled()) return Status::Cancelled("interrupted");
      const int stratum = store.strata()[k];
      if ((group.strata >> stratum & 1) == 0) continue;
      if (Status s = AddKeys(group, k, store.SignatureAt(store.InMemory(k), 0), stratum, add); !s.ok()) return s;
    }
    return Status::Ok();
  }
  std::vector<char> scratch;
  for (uint32_t first = 0; first < store.size(); first += kStoreBlock) {
    if (workers.Cancelled()) return Status::Cancelled("interrupted");
    const uint32_t n = std::min<uint32_t>(kStoreBlock, store.size() - first);
    Result<const char*> block = store.Records(first, n, &scratch);
    if (!block.ok()) return block.status();
    for (uint32_t k = 0; k < n; ++k) {
      const int stratum = StratumOf(store.HeadAt(*block, k).shingles);
      if ((group.strata >> stratum & 1) == 0) continue;
      if (Status s = AddKeys(group, first + k, store.SignatureAt(*block, k), stratum, add); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

// Buckets of two or more gathered, then paired on `workers` a batch of
// about kBatchMembers members at a time, worker w into found[w].
class Batcher {
 public:
  Batcher(const DocStore& store, const Options& o, const Passes& passes, Workers workers, std::span<Found> found)
      : store_(store),
        options_(o),
        passes_(passes),
        workers_(std::move(workers)),
        found_(found),
        scratch_(found.size()) {}

  // One bucket: the members of `run` (one hash and place, ascending docs).
  Status Add(std::span<const KeyEntry> run) {
    if (run.size() < 2) return Status::Ok();
    buckets_.push_back({run.front().place, docs_.size()});
    for (const KeyEntry& e : run) docs_.push_back(e.doc);
    return docs_.size() < kBatchMembers ? Status::Ok() : Flush();
  }
  // Pairs the buckets gathered.
  Status Flush() {
    MemberRecords records(store_);
    if (Status s = records.Read(docs_); !s.ok()) return s;
    const BatchContext c{.store = store_, .records = records, .options = options_};
    ParallelFor(workers_, buckets_.size(), [&](int w, size_t i) {
      Found& f = found_[static_cast<size_t>(w)];
      if (!f.status.ok()) return;
      const auto [place, first] = buckets_[i];
      const size_t last = i + 1 < buckets_.size() ? buckets_[i + 1].second : docs_.size();
      const PassOf& pass = passes_.mine[place >> kBandBits];
      const int band = static_cast<int>(place & ((1u << kBandBits) - 1));
      const std::span<const uint32_t> docs(docs_.data() + first, last - first);
      f.status = PairsOfBucket(c, pass, band, docs, &scratch_[static_cast<size_t>(w)], &f);
    });
    docs_.clear();
    buckets_.clear();
    if (workers_.Cancelled()) return Status::Cancelled("interrupted");
    for (const Found& f : found_) {
      if (!f.status.ok()) return f.status;
    }
    return Status::Ok();
  }

 private:
  const DocStore& store_;
  const Options& options_;
  const Passes& passes_;
  Workers workers_;
  std::span<Found> found_;
  std::vector<Bucket> scratch_;                       // per worker
  std::vector<uint32_t> docs_;                        // the members, bucket after bucket
  std::vector<std::pair<uint32_t, size_t>> buckets_;  // place, first member
};

// Hands `batcher` each run of one place among `run` (entries of one hash,
// in KeyEntry order).
Status AddRunsByPlace(std::span<const KeyEntry> run, Batcher* batcher) {
  for (size_t i = 0; i < run.size();) {
    size_t j = i + 1;
    while (j < run.size() && run[j].place == run[i].place) ++j;
    if (Status s = batcher->Add(run.subspan(i, j - i)); !s.ok()) return s;
    i = j;
  }
  return Status::Ok();
}

// The keys of a group of passes that fits the budget, held and bucketed in
// memory (`keys` and its sort's working space reused group after group).
struct KeyBuffers {
  std::vector<KeyEntry, LargeArrayAllocator<KeyEntry>> keys, scratch;
  std::vector<uint32_t> ends;
};

Status WalkInMemory(const DocStore& store, const Passes& passes, UnitRange g, const Workers& workers, KeyBuffers* k,
                    Batcher* batcher) {
  k->keys.clear();
  Status added = AddAllKeys(store, passes, g, workers, [&](const KeyEntry& e) {
    k->keys.push_back(e);
    return Status::Ok();
  });
  if (!added.ok()) return added;
  Status status;
  internal::ForEachRunOfEqualHashes(k->keys, k->scratch, k->ends, [&](const KeyEntry* first, size_t n) {
    if (status.ok()) status = AddRunsByPlace({first, n}, batcher);
  });
  return status;
}

// The keys of one pass larger than the budget, sorted in SortedRuns
// (spilled to temporary files).
Status WalkSpilled(const DocStore& store, const Passes& passes, UnitRange g, const Workers& workers, size_t budget,
                   Batcher* batcher) {
  SortedRuns<KeyEntry> keys(budget, "containment band keys");
  Status added = AddAllKeys(store, passes, g, workers, [&](const KeyEntry& e) { return keys.Add(e); });
  if (!added.ok()) return added;
  if (Status s = keys.Finish(); !s.ok()) return s;
  std::vector<KeyEntry> run;
  for (const KeyEntry& e : keys) {
    if (!run.empty() && e.hash != run.front().hash) {
      if (Status s = AddRunsByPlace(run, batcher); !s.ok()) return s;
      run.clear();
    }
    run.push_back(e);
  }
  if (!keys.status().ok()) return keys.status();
  return AddRunsByPlace(run, batcher);
}

// The groups of units, each as many as `per_group` keys hold (at least one).
struct Group {
  UnitRange units;
  uint64_t keys = 0;  // of its units
};

std::vector<Group> GroupsOf(const Passes& passes, uint64_t per_group) {
  std::vector<Group> out;
  for (UnitRange g{.first = 0, .last = 0}; g.first < passes.units; g.first = g.last) {
    uint64_t keys = 0;
    do {
      keys += passes.DocsOfUnit(g.last++);
    } while (g.last < passes.units && keys + passes.DocsOfUnit(g.last) <= per_group);
    out.push_back({.units = g, .keys = keys});
  }
  return out;
}

// Hands the buckets of the task's passes to batchers, which pair them into
// `found` (one per worker). The bands of the passes a group at a time, as
// many as a worker's share of the budget holds the keys of, bucketed in
// memory (a band larger than that has its keys sorted in temporary files),
// the groups on the workers; the store is read once a group. When the
// store is in a temporary file and reading it once a group would cost more
// than writing and reading the keys, every key goes to one SortedRuns
// instead, and the store is read once.
Status WalkAll(const DocStore& store, const Options& o, const Passes& passes, const Workers& workers, size_t budget,
               std::vector<Found>* found) {
  const size_t threads = found->size();
  const uint64_t per_group = std::max<uint64_t>(1, budget / threads / sizeof(KeyEntry) / 2);  // and the sort's copy
  const std::vector<Group> groups = GroupsOf(passes, per_group);
  uint64_t keys = 0;
  for (const Group& g : groups) keys += g.keys;
  const uint64_t store_bytes = uint64_t{store.size()} * store.record_bytes();
  if (!store.in_memory() && groups.size() > 1 && groups.size() * store_bytes > 2 * keys * sizeof(KeyEntry)) {
    Batcher batcher(store, o, passes, workers, *found);
    Status walked = WalkSpilled(store, passes, {.first = 0, .last = passes.units}, workers, budget, &batcher);
    return walked.ok() ? batcher.Flush() : walked;
  }
  std::vector<Batcher> batchers;
  std::vector<KeyBuffers> buffers(threads);
  for (size_t w = 0; w < threads; ++w) {
    batchers.emplace_back(store, o, passes, Workers{.threads = 1, .tick = {}, .cancel = workers.cancel},
                          std::span<Found>(*found).subspan(w, 1));
  }
  std::vector<Status> failed(threads);
  ParallelFor(workers, groups.size(), [&](int w, size_t i) {
    const size_t k = static_cast<size_t>(w);
    if (!failed[k].ok()) return;
    const Group& g = groups[i];
    failed[k] = g.keys <= per_group ? WalkInMemory(store, passes, g.units, workers, &buffers[k], &batchers[k])
                                    : WalkSpilled(store, passes, g.units, workers, budget / threads, &batchers[k]);
  });
  if (workers.Cancelled()) return Status::Cancelled("interrupted");
  for (size_t w = 0; w < threads; ++w) {
    if (!failed[w].ok()) return failed[w];
    if (Status s = batchers[w].Flush(); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace

ContainedShareMemory ContainedShareMemory::Of(const Options& options) {
  return {.documents = options.pair_memory, .keys = options.pair_memory / 3};
}

Result<ContainedShare> FindContainedShare(const Run& run, const WorkFolder& folder, uint32_t shards, StageTask t,
                                          ContainedShareMemory memory) {
  const Options& o = run.options();
  DocStore store(o.num_perm, memory.documents);
  const size_t budget = static_cast<size_t>(memory.keys);
  for (uint32_t s = 0; s < shards; ++s) {
    if (Status st = AddShard(folder, o, s, &store); !st.ok()) return st;
  }
  if (Status st = store.Finish(); !st.ok()) return st;
  const Passes passes = PassesOf(o, store.counts(), t);
  const size_t threads = static_cast<size_t>(std::max(1, run.workers().threads));
  std::vector<Found> found;
  for (size_t w = 0; w < threads; ++w) {
    found.push_back(
        {.visited = 0, .pairs = SortedRuns<ContainedPair>(budget / threads, "containment candidates"), .status = {}});
  }
  if (Status st = WalkAll(store, o, passes, run.workers(), budget, &found); !st.ok()) return st;
  ContainedShare out{.visited = 0, .pairs = {}};
  SortedRuns<ContainedPair> all(budget, "containment candidates");
  for (Found& f : found) {
    out.visited += f.visited;
    if (Status st = all.Absorb(std::move(f.pairs)); !st.ok()) return st;
  }
  if (Status st = all.Finish(); !st.ok()) return st;
  for (const ContainedPair& p : all) out.pairs.push_back(p);
  if (!all.status().ok()) return all.status();
  return out;
}

}  // namespace neardup
