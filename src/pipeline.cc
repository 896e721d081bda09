#include "neardup/pipeline.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <numeric>
#include <thread>
#include <unordered_map>

#include "neardup/banding.h"
#include "neardup/cluster.h"
#include "neardup/confirm.h"
#include "neardup/corpus.h"
#include "neardup/decode.h"
#include "neardup/document.h"
#include "neardup/jsonl.h"
#include "neardup/lsh_index.h"
#include "neardup/minhash.h"
#include "neardup/sorted_pairs.h"
#include "neardup/verify.h"
#include "jsonl_doc_reader.h"

namespace neardup {

const char* ToString(Stage stage) {
  switch (stage) {
    case Stage::kWalking: return "walking";
    case Stage::kReading: return "reading";
    case Stage::kBanding: return "banding";
    case Stage::kVerifying: return "verifying";
    case Stage::kClustering: return "clustering";
    case Stage::kDone: return "done";
  }
  return "?";
}

namespace {

using Clock = std::chrono::steady_clock;
constexpr uint32_t kNone = UINT32_MAX;
// Buckets larger than this are handled by leaders in cluster modes (only
// connectivity matters there), keeping the work linear in the bucket's size.
constexpr size_t kLargeBucket = 256;
// A group of copies that yields more pairs than this gets a notice pointing
// to --mode clusters, where it is one cluster.
constexpr uint64_t kManyPairs = 1000000;
// JSONL lines are signed in batches of about this many bytes.
constexpr size_t kJsonlBatchBytes = 1 << 20;
constexpr size_t kJsonlBatchLines = 2048;

enum class DocKind : uint8_t { kOk, kEmpty, kTooShort, kBinary, kFailed };

// What the pipeline keeps of one document once it is signed.
struct DocMeta {
  ContentHash content;
  DocKind kind = DocKind::kFailed;
  uint32_t file = 0;   // index of the input file
  uint64_t line = 0;   // JSONL line number (0 for a text file)
};

struct Problem {
  uint32_t file;
  uint64_t line;
  Status status;
  bool malformed = false;  // a JSONL line, not an unreadable input
  bool too_large = false;  // over --max-filesize once decompressed: a warning
  bool counted = false;    // counted in Stats where it was found
};

struct Accepted {
  uint32_t a, b;  // representative doc ids, a < b
  double estimate;
  double jaccard;
  bool operator<(const Accepted& o) const { return a != o.a ? a < o.a : b < o.b; }
};

// Polls `done()` while calling `tick()` a few times a second.
template <typename Done, typename Tick>
void WaitWithProgress(Done done, Tick tick) {
  while (!done()) {
    tick();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

class Scan {
 public:
  Scan(const Options& options, const RunContext& ctx)
      : o_(options),
        ctx_(ctx),
        fs_(ctx.fs != nullptr ? *ctx.fs : FileSystem::Default()),
        threads_(options.threads > 0 ? options.threads
                                     : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))),
        perm_(static_cast<size_t>(options.num_perm)),
        minhasher_(options.num_perm, options.seed),
        start_(Clock::now()) {}

  Result<Report> Run();

 private:
  bool Cancelled() const { return ctx_.cancel != nullptr && ctx_.cancel->load(); }
  void Tick(Stage stage, uint64_t done, uint64_t total);
  void AddSketchCounts(const DocumentSketch& sk);
  void ReadTextFiles(std::vector<InputFile>& files);
  void ReadJsonlFiles(const std::vector<InputFile>& files);
  bool Rereads() const { return o_.verify == VerifyMode::kExact || o_.threshold >= 1.0; }
  Result<std::unique_ptr<ByteReader>> OpenStream(size_t file);
  void RenameDuplicateIds();
  void GroupExactDuplicates();
  std::vector<Accepted> FindCandidates();
  Status Confirm(bool identical_only, std::vector<Accepted>* accepted);
  void KeepMembers(const ConfirmedGroups& confirmed, const std::vector<uint32_t>& slots);
  double Similarity(uint32_t rep_a, uint32_t rep_b, double* estimate) const;
  bool Similar(DocId x, DocId y) const;
  Status ReportPairs(const std::vector<Accepted>& accepted);
  void ReportClusters(const std::vector<Accepted>& accepted);

  const uint32_t* Sig(uint32_t id) const { return sigs_.data() + static_cast<size_t>(id) * perm_; }

  const Options& o_;
  const RunContext& ctx_;
  FileSystem& fs_;
  const int threads_;
  const size_t perm_;
  MinHasher minhasher_;
  Banding banding_;
  Clock::time_point start_;
  Clock::time_point last_tick_{};
  Stage last_stage_ = Stage::kDone;

  Report report_;
  std::vector<InputFile> files_;       // kept for re-reads (--exact, -t 1)
  // With re-reads: per file, the copy of a stream document (else null).
  std::vector<std::unique_ptr<StreamCopy>> stream_copies_;
  std::vector<DocMeta> meta_;          // per DocId
  std::vector<uint32_t> sigs_;         // num_perm values per DocId
  std::vector<Problem> problems_;
  std::mutex mu_;                      // guards problems_ and report_.stats in workers

  std::vector<uint32_t> rep_of_;       // DocId -> representative DocId (kNone if not ok)
  std::vector<uint32_t> reps_;         // representatives, ascending
  std::vector<uint32_t> member_start_; // CSR over reps_: members of reps_[k]
  std::vector<uint32_t> members_;
  std::vector<uint32_t> rep_slot_;      // DocId of a representative -> its index in reps_
  std::unordered_map<uint32_t, std::vector<uint64_t>> sets_;  // exact mode
  std::atomic<uint64_t> bytes_done_{0};
  std::atomic<uint64_t> inputs_done_{0};
  std::atomic<uint64_t> docs_done_{0};
};

void Scan::Tick(Stage stage, uint64_t done, uint64_t total) {
  if (!ctx_.progress) return;
  const auto now = Clock::now();
  if (stage == last_stage_ && now - last_tick_ < std::chrono::milliseconds(200)) return;
  last_tick_ = now;
  last_stage_ = stage;
  Progress p;
  p.stage = stage;
  p.inputs_done = done;
  p.inputs_total = total;
  p.bytes = bytes_done_.load();
  p.documents = docs_done_.load();
  p.seconds = std::chrono::duration<double>(now - start_).count();
  ctx_.progress(p);
}

void Scan::AddSketchCounts(const DocumentSketch& sk) {
  Stats& st = report_.stats;
  st.invalid_utf8 += sk.replaced;
  st.transcoded += sk.transcoded ? 1 : 0;
  st.bytes += sk.bytes;
}

DocKind KindOf(const DocumentSketch& sk) {
  switch (sk.kind) {
    case DocumentSketch::Kind::kOk: return DocKind::kOk;
    case DocumentSketch::Kind::kEmpty: return DocKind::kEmpty;
    case DocumentSketch::Kind::kTooShort: return DocKind::kTooShort;
    case DocumentSketch::Kind::kBinary: return DocKind::kBinary;
    case DocumentSketch::Kind::kTooLarge: return DocKind::kFailed;
  }
  return DocKind::kFailed;
}

// Opens input file `file` for its first read. A stream document is read
// through a copy when it will have to be read again.
Result<std::unique_ptr<ByteReader>> Scan::OpenStream(size_t file) {
  const InputFile& f = files_[file];
  Result<std::unique_ptr<ByteReader>> in = OpenInput(fs_, f.path, f.identity);
  if (!in.ok() || !f.identity.stream || !Rereads()) return in;
  stream_copies_[file] = std::make_unique<StreamCopy>();
  return stream_copies_[file]->Record(std::move(*in));
}

void Scan::ReadTextFiles(std::vector<InputFile>& files) {
  const size_t n = files.size();
  meta_.resize(n);
  sigs_.assign(n * perm_, UINT32_MAX);
  report_.docs.resize(n);
  std::atomic<size_t> next{0};
  std::atomic<int> running{threads_};
  auto work = [&]() {
    DocumentReader reader(o_, minhasher_);
    for (size_t i = next++; i < n && !Cancelled(); i = next++) {
      const InputFile& f = files[i];
      DocEntry& e = report_.docs[i];
      e.name = f.path;
      e.size = f.size;
      e.mtime_ns = f.mtime_ns;
      e.reference = f.reference;
      DocMeta& m = meta_[i];
      m.file = static_cast<uint32_t>(i);
      DocumentSketch sk;
      Status s;
      Result<std::unique_ptr<ByteReader>> in = OpenStream(i);
      if (!in.ok()) {
        s = in.status();
      } else {
        s = reader.ReadStream(**in, sigs_.data() + i * perm_, nullptr, &sk);
      }
      // A plain file that no longer has the size it had when walked changed
      // under us: its signature mixes two versions, so it is left out. (A
      // stream document had no size to compare.)
      if (s.ok() && sk.kind != DocumentSketch::Kind::kBinary && !f.identity.stream &&
          !f.path.ends_with(".gz") && !f.path.ends_with(".zst") && sk.bytes != f.size) {
        s = Status::Changed(f.path + ": changed size during the run (" + std::to_string(f.size) +
                            " bytes when listed, " + std::to_string(sk.bytes) + " read)");
      }
      if (f.identity.stream) e.size = sk.bytes;
      const bool too_large = s.ok() && sk.kind == DocumentSketch::Kind::kTooLarge;
      if (too_large) {
        s = Status::InvalidArgument(f.path + ": skipped, more than --max-filesize " +
                                    std::to_string(o_.max_filesize) + " bytes once decompressed");
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (!s.ok()) {
          m.kind = DocKind::kFailed;
          problems_.push_back({.file = static_cast<uint32_t>(i), .line = 0, .status = s, .too_large = too_large});
        } else {
          m.kind = KindOf(sk);
          m.content = sk.content;
          AddSketchCounts(sk);
        }
      }
      bytes_done_ += sk.bytes;
      ++inputs_done_;
      ++docs_done_;
    }
    --running;
  };
  // The calling thread only reports progress: its wake-ups cost nothing.
  std::vector<std::thread> pool;
  for (int w = 0; w < threads_; ++w) pool.emplace_back(work);
  WaitWithProgress([&] { return running.load() == 0; },
                   [&] { Tick(Stage::kReading, inputs_done_.load(), n); });
  for (auto& t : pool) t.join();
}

// JSONL: the calling thread reads and splits lines into batches; workers parse
// and sign them; batches are committed in order, so ids follow the input.
void Scan::ReadJsonlFiles(const std::vector<InputFile>& files) {
  struct Batch {
    uint32_t file = 0;
    bool reference = false;
    std::string data;
    std::vector<std::pair<size_t, size_t>> spans;  // offset, length in data
    std::vector<uint64_t> line_numbers;
    // Results.
    std::vector<DocEntry> docs;
    std::vector<DocMeta> meta;
    std::vector<uint32_t> sigs;
    std::vector<Problem> problems;
    std::vector<DocumentSketch> sketches;
    bool done = false;
  };
  std::mutex mu;
  std::condition_variable cv_work, cv_done;
  std::deque<std::shared_ptr<Batch>> queue;   // waiting for a worker
  std::deque<std::shared_ptr<Batch>> order;   // in input order, for commit
  bool closing = false;
  const size_t max_in_flight = static_cast<size_t>(threads_) * 4;

  auto sign_batch = [&](Batch& b, JsonlDocReader& parser) {
    JsonlDoc doc;
    for (size_t k = 0; k < b.spans.size(); ++k) {
      const std::string_view line(b.data.data() + b.spans[k].first, b.spans[k].second);
      bool has = false;
      Status s = parser.Parse(line, &doc, &has);
      const uint64_t ln = b.line_numbers[k];
      if (!s.ok()) {
        b.problems.push_back(
            {.file = b.file,
             .line = ln,
             .status = Status::Corrupt(files[b.file].path + ":" + std::to_string(ln) + ": " + s.message()),
             .malformed = true});
        continue;
      }
      if (!has) continue;
      DocEntry e;
      e.name = doc.id.empty() ? files[b.file].path + ":" + std::to_string(ln) : doc.id;
      e.size = doc.text.size();
      e.mtime_ns = files[b.file].mtime_ns;
      e.reference = b.reference;
      const size_t at = b.sigs.size();
      b.sigs.resize(at + perm_);
      DocumentSketch sk;
      parser.reader().ReadText(doc.text, b.sigs.data() + at, nullptr, &sk);
      sk.replaced += doc.replaced;
      DocMeta m;
      m.kind = KindOf(sk);
      m.content = sk.content;
      m.file = b.file;
      m.line = ln;
      b.docs.push_back(std::move(e));
      b.meta.push_back(m);
      b.sketches.push_back(sk);
    }
    b.data.clear();
    b.data.shrink_to_fit();
  };

  auto worker = [&]() {
    JsonlDocReader parser(o_, minhasher_);
    for (;;) {
      std::shared_ptr<Batch> b;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv_work.wait(lock, [&] { return closing || !queue.empty(); });
        if (queue.empty()) return;
        b = queue.front();
        queue.pop_front();
      }
      sign_batch(*b, parser);
      {
        std::lock_guard<std::mutex> lock(mu);
        b->done = true;
      }
      cv_done.notify_all();
    }
  };

  auto commit_ready = [&](bool wait_all) {
    for (;;) {
      std::shared_ptr<Batch> b;
      {
        std::unique_lock<std::mutex> lock(mu);
        if (order.empty()) return;
        if (!order.front()->done) {
          if (!wait_all && order.size() < max_in_flight) return;
          cv_done.wait(lock, [&] { return order.front()->done; });
        }
        b = order.front();
        order.pop_front();
      }
      for (size_t k = 0; k < b->docs.size(); ++k) {
        report_.docs.push_back(std::move(b->docs[k]));
        meta_.push_back(b->meta[k]);
        AddSketchCounts(b->sketches[k]);
        ++docs_done_;
      }
      sigs_.insert(sigs_.end(), b->sigs.begin(), b->sigs.end());
      for (auto& p : b->problems) problems_.push_back(std::move(p));
      Tick(Stage::kReading, inputs_done_.load(), files.size());
    }
  };

  std::vector<std::thread> pool;
  for (int w = 0; w < threads_; ++w) pool.emplace_back(worker);
  auto submit = [&](std::shared_ptr<Batch> b) {
    {
      std::lock_guard<std::mutex> lock(mu);
      queue.push_back(b);
      order.push_back(b);
    }
    cv_work.notify_one();
    commit_ready(false);
  };

  std::unique_ptr<char[]> buf(new char[DocumentReader::kBufferSize]);
  for (uint32_t fi = 0; fi < files.size() && !Cancelled(); ++fi) {
    if (o_.max_filesize != 0 && !files[fi].identity.stream) {
      // A compressed file may expand past --max-filesize: count first, so
      // that no line of a file that is then skipped was taken.
      Result<bool> over = DecompressedLargerThan(fs_, files[fi].path, files[fi].identity, o_.max_filesize);
      if (over.ok() && *over) {
        problems_.push_back({.file = fi,
                             .line = 0,
                             .status = Status::InvalidArgument(files[fi].path + ": skipped, more than --max-filesize " +
                                                     std::to_string(o_.max_filesize) +
                                                     " bytes once decompressed"),
                             .too_large = true});
        ++inputs_done_;
        continue;
      }
    }
    Result<std::unique_ptr<ByteReader>> in = OpenStream(fi);
    if (!in.ok()) {
      problems_.push_back({fi, 0, in.status()});
      ++inputs_done_;
      continue;
    }
    LineSplitter splitter(o_.max_line);
    auto batch = std::make_shared<Batch>();
    batch->file = fi;
    batch->reference = files[fi].reference;
    auto take_lines = [&]() {
      std::string_view line;
      uint64_t ln = 0;
      while (splitter.Next(&line, &ln)) {
        if (splitter.too_long()) {
          problems_.push_back({.file = fi,
                               .line = ln,
                               .status = Status::Corrupt(files[fi].path + ":" + std::to_string(ln) +
                                                         ": line longer than --max-line " +
                                                         std::to_string(o_.max_line) + " bytes"),
                               .malformed = true});
          continue;
        }
        batch->spans.emplace_back(batch->data.size(), line.size());
        batch->data.append(line);
        batch->line_numbers.push_back(ln);
        if (batch->data.size() >= kJsonlBatchBytes || batch->spans.size() >= kJsonlBatchLines) {
          submit(batch);
          batch = std::make_shared<Batch>();
          batch->file = fi;
          batch->reference = files[fi].reference;
        }
      }
    };
    for (;;) {
      Result<size_t> got = (*in)->Read(buf.get(), DocumentReader::kBufferSize);
      if (!got.ok()) {
        problems_.push_back({fi, 0, got.status()});
        break;
      }
      if (*got == 0) {
        splitter.Finish();
        take_lines();
        break;
      }
      bytes_done_ += *got;
      splitter.Feed(std::string_view(buf.get(), *got));
      take_lines();
    }
    if (!batch->spans.empty()) submit(batch);
    ++inputs_done_;
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    closing = true;
  }
  cv_work.notify_all();
  commit_ready(true);
  for (auto& t : pool) t.join();
}

// A JSONL id must name one document. Every document whose id is not unique
// in the run is named FILE:LINE instead, as a document without an id is;
// repeated until no name is taken twice (an id may itself read FILE:LINE).
void Scan::RenameDuplicateIds() {
  auto& docs = report_.docs;
  std::vector<char> renamed(docs.size(), 0);
  for (;;) {
    std::vector<uint32_t> order(docs.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t x, uint32_t y) { return docs[x].name < docs[y].name; });
    bool changed = false;
    for (size_t lo = 0; lo < order.size();) {
      size_t hi = lo + 1;
      while (hi < order.size() && docs[order[hi]].name == docs[order[lo]].name) ++hi;
      if (hi - lo > 1) {
        const std::string id = docs[order[lo]].name;
        std::string where;
        for (size_t k = lo; k < hi; ++k) {
          const DocMeta& m = meta_[order[k]];
          const std::string place = files_[m.file].path + ":" + std::to_string(m.line);
          if (renamed[order[k]] == 0) where += (where.empty() ? "" : ", ") + place;  // else named so already
          if (docs[order[k]].name != place) {
            docs[order[k]].name = place;
            renamed[order[k]] = 1;
            changed = true;
          }
        }
        problems_.push_back({.file = meta_[order[lo]].file,
                             .line = meta_[order[lo]].line,
                             .status = Status::InvalidArgument("id \"" + id + "\" is not unique (" + where +
                                                               "); each of these documents is named FILE:LINE"),
                             .counted = true});
        report_.stats.duplicate_ids += hi - lo;
      }
      lo = hi;
    }
    if (!changed) break;
  }
}

void Scan::GroupExactDuplicates() {
  const size_t n = meta_.size();
  std::vector<uint32_t> ok;
  for (uint32_t i = 0; i < n; ++i) {
    if (meta_[i].kind == DocKind::kOk) ok.push_back(i);
  }
  std::sort(ok.begin(), ok.end(), [&](uint32_t x, uint32_t y) {
    if (!(meta_[x].content == meta_[y].content)) return meta_[x].content < meta_[y].content;
    return x < y;
  });
  rep_of_.assign(n, kNone);
  rep_slot_.assign(n, kNone);
  std::vector<std::pair<uint32_t, uint32_t>> rep_member;  // (rep, member)
  for (size_t lo = 0; lo < ok.size();) {
    size_t hi = lo + 1;
    while (hi < ok.size() && meta_[ok[hi]].content == meta_[ok[lo]].content) ++hi;
    const uint32_t rep = ok[lo];  // smallest id of the group
    for (size_t k = lo; k < hi; ++k) {
      rep_of_[ok[k]] = rep;
      rep_member.emplace_back(rep, ok[k]);
    }
    report_.stats.exact_duplicates += hi - lo - 1;
    lo = hi;
  }
  std::sort(rep_member.begin(), rep_member.end());
  for (size_t k = 0; k < rep_member.size(); ++k) {
    if (k == 0 || rep_member[k].first != rep_member[k - 1].first) {
      rep_slot_[rep_member[k].first] = static_cast<uint32_t>(reps_.size());
      reps_.push_back(rep_member[k].first);
      member_start_.push_back(static_cast<uint32_t>(members_.size()));
    }
    members_.push_back(rep_member[k].second);
  }
  member_start_.push_back(static_cast<uint32_t>(members_.size()));
}

// Similarity of two representatives by the chosen verification; -1 when it
// cannot be computed (a document that changed during the run).
double Scan::Similarity(uint32_t a, uint32_t b, double* estimate) const {
  *estimate = SignatureAgreement(Sig(a), Sig(b), static_cast<int>(perm_));
  if (o_.verify != VerifyMode::kExact) return *estimate;
  auto ia = sets_.find(a);
  auto ib = sets_.find(b);
  if (ia == sets_.end() || ib == sets_.end()) return -1;
  return ExactJaccard(ia->second, ib->second);
}

bool Scan::Similar(DocId x, DocId y) const {
  const uint32_t a = rep_of_[x];
  const uint32_t b = rep_of_[y];
  if (a == b) return true;
  double est = 0;
  return MeetsThreshold(Similarity(a, b, &est), o_.threshold);
}

std::vector<Accepted> Scan::FindCandidates() {
  Tick(Stage::kBanding, 0, 0);
  const bool cluster_mode = o_.mode != Mode::kPairs;
  LshIndex index(sigs_.data(), o_.num_perm, reps_, banding_);
  std::vector<std::vector<Accepted>> found(static_cast<size_t>(threads_));
  std::vector<std::vector<std::vector<uint32_t>>> buckets(static_cast<size_t>(threads_));
  // Which candidates go on to verification, by their signature estimate:
  // signature mode keeps those at the threshold; --exact those within
  // exact_margin standard errors below it (the rest cannot pass but by a
  // deviation that rare, see options.h); --verify none and --exact-all all.
  const double floor = CandidateFloor(o_);
  auto keep = [floor](double est) { return MeetsThreshold(est, floor); };
  auto on_pair = [&](int w, uint32_t a, uint32_t b) {
    const double est = SignatureAgreement(Sig(a), Sig(b), static_cast<int>(perm_));
    if (keep(est)) {
      found[static_cast<size_t>(w)].push_back({a, b, est, -1});
    }
  };
  auto on_bucket = [&](int w, std::span<const uint32_t> ids) {
    buckets[static_cast<size_t>(w)].emplace_back(ids.begin(), ids.end());
  };
  report_.stats.candidates = index.ForEachCandidate(threads_, on_pair, cluster_mode ? kLargeBucket : 0,
                                                    cluster_mode ? LshIndex::BucketFn(on_bucket) : nullptr);
  std::vector<Accepted> all;
  for (auto& f : found) {
    all.insert(all.end(), f.begin(), f.end());
    f.clear();
    f.shrink_to_fit();
  }
  // Large buckets: each leader takes the members whose signatures are close to
  // its own; the rest elect the next leader. Linear per leader.
  const double slack = 0.1;
  for (auto& per_worker : buckets) {
    for (auto& bucket : per_worker) {
      std::vector<uint32_t> rest = std::move(bucket);
      while (rest.size() >= 2) {
        const uint32_t leader = rest[0];
        std::vector<uint32_t> left;
        for (size_t k = 1; k < rest.size(); ++k) {
          const double est = SignatureAgreement(Sig(leader), Sig(rest[k]), static_cast<int>(perm_));
          if (est + slack >= o_.threshold) {
            if (keep(est)) {
              all.push_back({leader, rest[k], est, -1});
            }
          } else {
            left.push_back(rest[k]);
          }
        }
        rest = std::move(left);
      }
    }
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end(),
                        [](const Accepted& x, const Accepted& y) { return x.a == y.a && x.b == y.b; }),
            all.end());
  return all;
}

// --exact and -t 1: every group of copies and every document of a candidate
// pair is read again and proven (confirm.h); what cannot be is left out.
// Then candidate pairs are verified by exact Jaccard over the shingle sets
// read now, and a Jaccard of 1 between different texts is recomputed over
// the shingles' text, so no hash collision can produce it.
Status Scan::Confirm(bool identical_only, std::vector<Accepted>* accepted) {
  Tick(Stage::kVerifying, 0, 0);
  std::vector<char> in_pair(reps_.size(), 0);
  for (const Accepted& p : *accepted) {
    in_pair[rep_slot_[p.a]] = 1;
    in_pair[rep_slot_[p.b]] = 1;
  }
  std::vector<uint32_t> slots;  // reps_ index of each group to confirm
  std::vector<std::vector<DocId>> groups;
  std::vector<char> want_set;
  for (uint32_t k = 0; k < reps_.size(); ++k) {
    const uint32_t n = member_start_[k + 1] - member_start_[k];
    if (n < 2 && in_pair[k] == 0) continue;
    slots.push_back(k);
    groups.emplace_back(members_.begin() + member_start_[k], members_.begin() + member_start_[k + 1]);
    want_set.push_back(in_pair[k]);
  }
  std::vector<DocOrigin> origins(meta_.size());
  for (size_t d = 0; d < meta_.size(); ++d) {
    origins[d].file = &files_[meta_[d].file];
    origins[d].line = meta_[d].line;
    origins[d].content = meta_[d].content;
    origins[d].copy = stream_copies_[meta_[d].file].get();
  }
  Confirmer confirmer(o_, minhasher_, fs_, threads_);
  ConfirmedGroups confirmed;
  if (Status s = confirmer.Run(origins, groups, want_set, ctx_.cancel, &confirmed); !s.ok()) return s;
  for (auto& [doc, status] : confirmed.left_out) {
    problems_.push_back({meta_[doc].file, meta_[doc].line, std::move(status)});
  }
  std::vector<uint32_t> group_of_slot(reps_.size(), kNone);
  for (uint32_t g = 0; g < slots.size(); ++g) {
    group_of_slot[slots[g]] = g;
    if (!confirmed.sets[g].empty()) sets_[reps_[slots[g]]] = std::move(confirmed.sets[g]);
  }
  KeepMembers(confirmed, slots);
  if (identical_only) {
    accepted->clear();
    return Status::Ok();
  }
  std::vector<Accepted> kept;
  for (Accepted p : *accepted) {
    const uint32_t ga = group_of_slot[rep_slot_[p.a]];
    const uint32_t gb = group_of_slot[rep_slot_[p.b]];
    if (confirmed.members[ga].empty() || confirmed.members[gb].empty()) continue;
    double est = 0;
    double j = Similarity(p.a, p.b, &est);
    if (j >= 1.0) {
      Result<double> text_j = confirmer.TextJaccard(ga, gb);
      if (!text_j.ok()) return text_j.status();
      j = *text_j;
    }
    if (j < 0 || !MeetsThreshold(j, o_.threshold)) continue;
    p.jaccard = j;
    kept.push_back(p);
  }
  *accepted = std::move(kept);
  return Status::Ok();
}

// Replaces the members of the confirmed groups by those confirmed; the
// others take part in nothing from here on.
void Scan::KeepMembers(const ConfirmedGroups& confirmed, const std::vector<uint32_t>& slots) {
  std::vector<const std::vector<DocId>*> kept(reps_.size(), nullptr);
  for (size_t g = 0; g < slots.size(); ++g) {
    kept[slots[g]] = &confirmed.members[g];
    for (uint32_t i = member_start_[slots[g]]; i < member_start_[slots[g] + 1]; ++i) rep_of_[members_[i]] = kNone;
  }
  std::vector<uint32_t> start, members;
  for (size_t k = 0; k < reps_.size(); ++k) {
    start.push_back(static_cast<uint32_t>(members.size()));
    if (kept[k] == nullptr) {
      members.insert(members.end(), members_.begin() + member_start_[k], members_.begin() + member_start_[k + 1]);
      continue;
    }
    for (DocId d : *kept[k]) {
      members.push_back(d);
      rep_of_[d] = reps_[k];
    }
  }
  start.push_back(static_cast<uint32_t>(members.size()));
  member_start_ = std::move(start);
  members_ = std::move(members);
  uint64_t copies = 0;
  for (size_t k = 0; k < reps_.size(); ++k) {
    if (member_start_[k + 1] > member_start_[k]) copies += member_start_[k + 1] - member_start_[k] - 1;
  }
  report_.stats.exact_duplicates = copies;
}

Status Scan::ReportPairs(const std::vector<Accepted>& accepted) {
  const bool exact = o_.verify == VerifyMode::kExact;
  auto& docs = report_.docs;
  // Output order is by names: rank the documents by name once; a pair's sort
  // key is then its two ranks.
  std::vector<uint32_t> order(docs.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t x, uint32_t y) { return docs[x].name < docs[y].name; });
  std::vector<uint32_t> rank(docs.size());
  for (uint32_t r = 0; r < order.size(); ++r) rank[order[r]] = r;
  SortedPairs pairs(o_.pair_memory);
  Status status;
  auto add = [&](uint32_t x, uint32_t y, double est, double jac) {
    if (!status.ok() || (docs[x].reference && docs[y].reference)) return;
    if (rank[y] < rank[x]) std::swap(x, y);
    status = pairs.Add(uint64_t{rank[x]} << 32 | rank[y], {x, y, est, jac});
  };
  auto members = [&](uint32_t rep) {
    const uint32_t k = rep_slot_.at(rep);
    return std::span<const uint32_t>(members_.data() + member_start_[k],
                                     member_start_[k + 1] - member_start_[k]);
  };
  uint64_t largest_group = 0;
  uint32_t largest_rep = kNone;
  auto note_group = [&](uint64_t n_pairs, uint32_t rep) {
    if (n_pairs > largest_group) {
      largest_group = n_pairs;
      largest_rep = rep;
    }
  };
  for (const Accepted& p : accepted) {
    const auto ma = members(p.a);
    const auto mb = members(p.b);
    note_group(uint64_t{ma.size()} * mb.size(), p.a);
    for (uint32_t x : ma) {
      for (uint32_t y : mb) add(x, y, p.estimate, p.jaccard);
    }
  }
  for (size_t k = 0; k < reps_.size(); ++k) {
    const auto m = members(reps_[k]);
    note_group(uint64_t{m.size()} * (m.size() - 1) / 2, reps_[k]);
    for (size_t i = 0; i < m.size(); ++i) {
      for (size_t j = i + 1; j < m.size(); ++j) add(m[i], m[j], 1.0, exact ? 1.0 : -1.0);
    }
  }
  if (status.ok()) status = pairs.Finish();
  if (!status.ok()) return status;
  if (largest_group > kManyPairs) {
    report_.notices.push_back(docs[largest_rep].name + " and its copies make " + std::to_string(largest_group) +
                              " pairs; --mode clusters reports each group of copies once");
  }
  report_.stats.pairs = pairs.size();
  report_.pairs = std::move(pairs);
  return Status::Ok();
}

void Scan::ReportClusters(const std::vector<Accepted>& accepted) {
  Tick(Stage::kClustering, 0, 0);
  auto& docs = report_.docs;
  // Link documents through non-reference members where there are some, so
  // that no edge stands for a pair of reference documents alone.
  std::vector<uint32_t> anchor(reps_.size(), kNone);
  for (size_t k = 0; k < reps_.size(); ++k) {
    if (member_start_[k] == member_start_[k + 1]) continue;  // all left out (--exact)
    anchor[k] = members_[member_start_[k]];
    for (uint32_t i = member_start_[k]; i < member_start_[k + 1]; ++i) {
      if (!docs[members_[i]].reference) {
        anchor[k] = members_[i];
        break;
      }
    }
  }
  std::vector<DocPair> edges;
  for (size_t k = 0; k < reps_.size(); ++k) {
    for (uint32_t i = member_start_[k]; i < member_start_[k + 1]; ++i) {
      const uint32_t m = members_[i];
      if (m != anchor[k] && !(docs[m].reference && docs[anchor[k]].reference)) {
        edges.emplace_back(anchor[k], m);
      }
    }
  }
  for (const Accepted& p : accepted) {
    const uint32_t x = anchor[rep_slot_.at(p.a)];
    const uint32_t y = anchor[rep_slot_.at(p.b)];
    if (docs[x].reference && docs[y].reference) continue;
    edges.emplace_back(x, y);
  }
  report_.clusters = BuildClusters(docs, edges, o_.keep, o_.cluster_by,
                                   [this](DocId kept, DocId m) { return Similar(kept, m); });
  Stats& st = report_.stats;
  st.clusters = report_.clusters.size();
  for (const Cluster& c : report_.clusters) st.clustered += c.members.size();
  for (DocId d : Removable(docs, report_.clusters)) {
    ++st.removable;
    st.removable_bytes += docs[d].size;
  }
}

Result<Report> Scan::Run() {
  Status s = ValidateOptions(o_);
  if (!s.ok()) return s;
  banding_ = o_.bands > 0 ? Banding{o_.bands, o_.rows} : ChooseBanding(o_.threshold, o_.num_perm);
  Params& p = report_.params;
  p.threshold = o_.threshold;
  p.shingle = o_.shingle;
  p.ngram = o_.EffectiveNgram();
  p.num_perm = o_.num_perm;
  p.bands = banding_.bands;
  p.rows = banding_.rows;
  p.seed = o_.seed;
  p.verify = o_.verify;
  p.mode = o_.mode;
  p.keep = o_.keep;
  p.cluster_by = o_.cluster_by;
  p.has_reference = !o_.against.empty();

  Tick(Stage::kWalking, 0, 0);
  Result<WalkedCorpus> walked = WalkCorpus(o_);
  if (!walked.ok()) return walked.status();
  for (Status& e : walked->errors) report_.problems.push_back(std::move(e));
  const WalkCounts& wc = walked->counts;
  report_.stats.hidden = wc.hidden;
  report_.stats.glob = wc.glob;
  report_.stats.too_large = wc.too_large;
  report_.stats.special = wc.special;
  files_ = std::move(walked->files);
  stream_copies_.resize(files_.size());

  if (o_.input == InputFormat::kText) {
    ReadTextFiles(files_);
    if (!Rereads()) {
      files_.clear();  // no re-reads
      files_.shrink_to_fit();
    }
  } else {
    ReadJsonlFiles(files_);
    RenameDuplicateIds();
  }
  if (Cancelled()) return Status::Cancelled("interrupted");

  Stats& st = report_.stats;
  for (const DocMeta& m : meta_) {
    switch (m.kind) {
      case DocKind::kOk: ++st.documents; break;
      case DocKind::kEmpty: ++st.empty; break;
      case DocKind::kTooShort: ++st.too_short; break;
      case DocKind::kBinary: ++st.binary; break;
      case DocKind::kFailed: break;
    }
  }

  GroupExactDuplicates();
  // -t 1 means the same text: exact copies only, proven, whatever --verify says.
  const bool identical_only = o_.threshold >= 1.0;
  std::vector<Accepted> accepted;
  if (!identical_only) accepted = FindCandidates();
  if (Cancelled()) return Status::Cancelled("interrupted");
  if (identical_only || o_.verify == VerifyMode::kExact) {
    if (Status confirmed = Confirm(identical_only, &accepted); !confirmed.ok()) return confirmed;
  }
  if (o_.mode == Mode::kPairs) {
    if (Status written = ReportPairs(accepted); !written.ok()) return written;
  } else {
    ReportClusters(accepted);
  }

  // Problems in input order, then those of the walk first.
  std::stable_sort(problems_.begin(), problems_.end(), [](const Problem& x, const Problem& y) {
    return x.file != y.file ? x.file < y.file : x.line < y.line;
  });
  // From the walk; a directory loop or a dangling link (with --follow) is
  // skipped and warned about, but nothing went unread.
  st.unreadable += report_.problems.size() - wc.loops - wc.dangling;
  for (Problem& pr : problems_) {
    if (pr.malformed) {
      ++st.malformed_lines;
    } else if (pr.too_large) {
      ++st.too_large;
    } else if (!pr.counted) {
      ++st.unreadable;
    }
    report_.problems.push_back(std::move(pr.status));
  }
  st.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  Tick(Stage::kDone, 0, 0);
  return std::move(report_);
}

}  // namespace

Result<Report> FindDuplicates(const Options& options, const RunContext& context) {
  Scan scan(options, context);
  return scan.Run();
}

}  // namespace neardup
