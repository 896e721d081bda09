#include "verify/confirm.h"

#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <string_view>
#include <unordered_set>

#include "base/parallel.h"
#include "base/temp_file.h"
#include "base/union_find.h"
#include "lsh/similarity.h"
#include "neardup/quote.h"
#include "sign/document.h"
#include "sign/jsonl_doc_reader.h"

namespace neardup {

namespace {

constexpr size_t kCompareChunk = 64 * 1024;
// A JSONL file's lines to read again are shared by the workers in runs of at
// least this many (ReadAll) when each run reads the file from its start;
// when each line is read where it starts, in runs of this many, at most
// kSeekJobsPerWorker runs a worker.
constexpr size_t kMinJobLines = 512;
constexpr size_t kMinSeekJobLines = 64;
constexpr size_t kSeekJobsPerWorker = 8;

Status TempError(const char* what) {
  return Status::IoError(std::string("temporary file for --exact in ") + ShellQuoted(TempFile::Folder()) + ": " + what +
                         ": " + std::strerror(errno));
}

}  // namespace

// A worker's temporary file of token texts, written front to back.
struct Confirmer::Spool {
  std::FILE* file = nullptr;
  uint64_t size = 0;
  bool failed = false;
  int error = 0;
  ~Spool() {
    if (file != nullptr) std::fclose(file);
  }
  void Append(std::string_view piece) {
    if (failed) return;
    if (std::fwrite(piece.data(), 1, piece.size(), file) != piece.size()) {
      failed = true;
      error = errno;
    }
    size += piece.size();
  }
  // Reads [offset, offset + n) into `buf`. REQUIRES: flushed.
  bool ReadAt(uint64_t offset, char* buf, size_t n) const { return neardup::ReadAt(file, offset, buf, n); }
};

// One member's re-read.
struct Confirmer::Read {
  DocId doc = 0;
  size_t group = 0;
  bool want_set = false;
  Status status;
  ContentHash content;
  size_t spool = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
  // Its token text is in the spool: a member of a group of copies (compared
  // with the reference), or a document whose text KeepText() asked for.
  bool keep_text = false;
  bool published = false;  // SetReady() was called (by the worker that read it)
  std::vector<uint64_t> set;
};

// StreamedPairs as the workers use it: each group's pairs, whether its set
// is published, and how many of its pairs are left (one more when its set is
// kept); per pair, whether a worker took it.
struct Confirmer::Stream {
  StreamedPairs* pairs = nullptr;
  std::vector<uint32_t> first;                    // per group: where its pairs start in of_group; one more at the end
  std::vector<uint32_t> of_group;                 // pair indices, group by group
  std::vector<size_t> read_of_group;              // per group: the read that builds its set
  std::unique_ptr<std::atomic<uint8_t>[]> ready;  // per group
  std::unique_ptr<std::atomic<uint32_t>[]> left;  // per group
  std::unique_ptr<std::atomic<uint8_t>[]> taken;  // per pair
};

Confirmer::Confirmer(const Options& options, const MinHasher& minhasher, FileSystem& fs, int threads)
    : options_(options), minhasher_(minhasher), fs_(fs), threads_(std::max(1, threads)) {}

Confirmer::~Confirmer() = default;

Status Confirmer::Run(const std::vector<DocOrigin>& origins, const std::vector<std::vector<DocId>>& groups,
                      const std::vector<char>& want_set, const Workers& workers, RereadProgress* progress,
                      ConfirmedGroups* out) {
  reads_.clear();
  for (size_t g = 0; g < groups.size(); ++g) {
    for (size_t k = 0; k < groups[g].size(); ++k) {
      Read r;
      r.doc = groups[g][k];
      r.group = g;
      r.want_set = want_set[g] != 0 && k == 0;  // the first member: the likely reference
      r.keep_text = keep_every_text_ || groups[g].size() > 1;
      reads_.push_back(std::move(r));
    }
  }
  origins_ = &origins;
  PrepareStream(groups.size());
  progress->total = reads_.size();
  if (Status s = ReadAll(origins, workers, progress); !s.ok()) return s;
  if (Status s = Judge(origins, groups.size(), out); !s.ok()) return s;
  return CollectSets(want_set, out);
}

std::vector<std::vector<size_t>> Confirmer::Jobs(const std::vector<DocOrigin>& origins) const {
  // Jobs: a text document each; a JSONL file each, with its wanted lines.
  std::vector<std::vector<size_t>> jobs;
  if (options_.input == InputFormat::kText) {
    for (const size_t i : TextReadOrder()) jobs.push_back({i});
    return jobs;
  }
  std::map<const InputFile*, std::vector<size_t>> by_file;
  for (size_t i = 0; i < reads_.size(); ++i) by_file[origins[reads_[i].doc].file].push_back(i);
  for (auto& [file, ids] : by_file) {
    std::sort(ids.begin(), ids.end(),
              [&](size_t x, size_t y) { return origins[reads_[x].doc].line < origins[reads_[y].doc].line; });
    // The lines of a large plain file are shared by the workers, a run of
    // them a job: each job reads its lines where they start (when known),
    // or the file from its start, parsing its own lines only and stopping
    // after the last. A compressed file or a stream's copy is one job (each
    // would be decompressed or replayed again).
    const bool plain = origins[reads_[ids[0]].doc].copy == nullptr && LinesAtOffsets(*file, options_);
    const bool seek =
        std::all_of(ids.begin(), ids.end(), [&](size_t i) { return origins[reads_[i].doc].offset != kNoOffset; });
    const size_t threads = static_cast<size_t>(threads_);
    const size_t parts = !plain ? 1
                         : seek && threads > 1
                             ? std::clamp<size_t>(ids.size() / kMinSeekJobLines, 1, threads * kSeekJobsPerWorker)
                             : std::clamp<size_t>(ids.size() / kMinJobLines, 1, threads);
    for (size_t c = 0; c < parts; ++c) {
      jobs.emplace_back(ids.begin() + static_cast<std::ptrdiff_t>(c * ids.size() / parts),
                        ids.begin() + static_cast<std::ptrdiff_t>((c + 1) * ids.size() / parts));
    }
  }
  std::stable_sort(jobs.begin(), jobs.end(), [&](const auto& x, const auto& y) {
    return origins[reads_[x[0]].doc].file->path < origins[reads_[y[0]].doc].file->path;
  });
  return jobs;
}

std::vector<size_t> Confirmer::TextReadOrder() const {
  std::vector<size_t> order(reads_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (stream_ == nullptr) return order;
  // Groups joined by streamed pairs, each component read in one stretch
  // from where its first read is: a set waits for its partners only while
  // its component is read, not until the read order reaches them.
  const size_t groups = stream_->first.size() - 1;
  UnionFind components(groups);
  for (const auto& [a, b] : stream_->pairs->groups) components.Union(a, b);
  // The reads go in ascending order: a component's first read is the first met.
  std::vector<size_t> first_read(groups, SIZE_MAX);
  std::vector<size_t> key(reads_.size());
  for (size_t i = 0; i < reads_.size(); ++i) {
    size_t& first = first_read[components.Find(static_cast<uint32_t>(reads_[i].group))];
    if (first == SIZE_MAX) first = i;
    key[i] = first;
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return key[x] < key[y]; });
  return order;
}

Status Confirmer::OpenSpools() {
  spools_.clear();
  for (int w = 0; w < threads_; ++w) {
    auto spool = std::make_unique<Spool>();
    Result<TempFile> temp = TempFile::Create("documents read again");
    if (!temp.ok()) return temp.status();
    spool->file = temp->Release();
    spools_.push_back(std::move(spool));
  }
  return Status::Ok();
}

Status Confirmer::ReadAll(const std::vector<DocOrigin>& origins, const Workers& run_workers, RereadProgress* progress) {
  auto cancelled = [&run_workers] { return run_workers.Cancelled(); };
  const std::vector<std::vector<size_t>> jobs = Jobs(origins);
  if (Status s = OpenSpools(); !s.ok()) return s;
  // One reader per worker, made on its first job.
  std::vector<std::unique_ptr<DocumentReader>> text_readers(static_cast<size_t>(threads_));
  std::vector<std::unique_ptr<JsonlDocReader>> parsers(static_cast<size_t>(threads_));
  // An interrupt, or a spool that cannot be written (the disk full), stops
  // every worker: what is read after it would be lost.
  std::atomic<bool> stop{false};
  Workers workers{.threads = threads_, .tick = run_workers.tick, .cancel = &stop};
  ParallelFor(workers, jobs.size(), [&](int worker, size_t j) {
    const size_t w = static_cast<size_t>(worker);
    if (cancelled()) {
      stop.store(true, std::memory_order_relaxed);
      return;
    }
    if (options_.input == InputFormat::kText) {
      if (text_readers[w] == nullptr) text_readers[w] = std::make_unique<DocumentReader>(options_, minhasher_);
      ReadTextDoc(origins, jobs[j][0], w, *text_readers[w]);
      SetReady(jobs[j][0]);
      progress->done.fetch_add(1, std::memory_order_relaxed);
    } else {
      if (parsers[w] == nullptr) parsers[w] = std::make_unique<JsonlDocReader>(options_, minhasher_);
      ReadJsonlFile(origins, jobs[j], w, *parsers[w]);
      for (const size_t i : jobs[j]) SetReady(i);  // the lines not reached (a failed file)
      progress->done.fetch_add(jobs[j].size(), std::memory_order_relaxed);
    }
    if (spools_[w]->failed) stop.store(true, std::memory_order_relaxed);
  });
  if (cancelled()) return Status::Cancelled("interrupted");
  for (auto& spool : spools_) {
    if (spool->failed || std::fflush(spool->file) != 0) {
      errno = spool->failed ? spool->error : errno;
      return TempError("write");
    }
  }
  return Status::Ok();
}

// Reads text document reads_[i] again, its token text to spool `w`.
void Confirmer::ReadTextDoc(const std::vector<DocOrigin>& origins, size_t i, size_t w, DocumentReader& reader) {
  Read& r = reads_[i];
  const InputFile& f = *origins[r.doc].file;
  const StreamCopy* copy = origins[r.doc].copy;
  Spool& spool = *spools_[w];
  r.spool = w;
  r.offset = spool.size;
  reader.set_token_sink(
      r.keep_text ? DocumentReader::TokenSink([&spool](std::string_view piece) { spool.Append(piece); }) : nullptr);
  // No stat before the read: the one after it compares the file with what
  // the walk saw, ctime included, which any change since moves (and no tool
  // can set back); a change within the ctime's tick is the content hash's
  // to catch (Judge). One path lookup a document fewer.
  Result<std::unique_ptr<ByteReader>> in = OpenAgain(fs_, f, copy, options_);
  if (!in.ok()) {
    // Gone or replaced since the walk is said so, as the stat tells it.
    if (copy == nullptr) r.status = CheckUnchanged(fs_, f);
    if (r.status.ok())
      r.status = Status::Changed(ShellQuoted(f.path) + ": cannot be read again (" + in.status().message() + ")");
    return;
  }
  DocumentSketch sk;
  Status s = reader.ReadStream(**in, nullptr, r.want_set ? &r.set : nullptr, &sk);
  if (!s.ok()) {
    r.status = Status::Changed(ShellQuoted(f.path) + ": cannot be read again (" + s.message() + ")");
    return;
  }
  r.length = spool.size - r.offset;
  r.content = sk.content;
  if (sk.kind != DocumentSketch::Kind::kOk)
    r.status = Status::Changed(ShellQuoted(f.path) + ": changed during the run");
  if (r.status.ok() && copy == nullptr) r.status = CheckUnchanged(fs_, f);
}

// Reads the wanted lines of one JSONL file again (reads_ indices, in line
// order), their token texts to spool `w`: each where it starts when that is
// known for all of them and the file can be read at any place (a plain
// file), else the file from its start, line after line.
void Confirmer::ReadJsonlFile(const std::vector<DocOrigin>& origins, const std::vector<size_t>& wanted, size_t w,
                              JsonlDocReader& parser) {
  const InputFile& f = *origins[reads_[wanted[0]].doc].file;
  const StreamCopy* copy = origins[reads_[wanted[0]].doc].copy;
  Spool& spool = *spools_[w];
  auto fail_all = [&](const Status& s) {
    for (size_t i : wanted) {
      if (reads_[i].status.ok()) reads_[i].status = s;
    }
  };
  for (size_t i : wanted) reads_[i].spool = w;
  if (copy == nullptr) {
    if (Status s = CheckUnchanged(fs_, f); !s.ok()) return fail_all(s);
  }
  Result<std::unique_ptr<ByteReader>> in = OpenAgain(fs_, f, copy, options_);
  if (!in.ok())
    return fail_all(Status::Changed(ShellQuoted(f.path) + ": cannot be read again (" + in.status().message() + ")"));
  const bool seek = (*in)->CanReadAhead() && std::all_of(wanted.begin(), wanted.end(), [&](size_t i) {
                      return origins[reads_[i].doc].offset != kNoOffset;
                    });
  const size_t next = seek ? ReadLinesAt(origins, wanted, std::move(*in), parser, spool)
                           : ReadLinesThrough(origins, wanted, std::move(*in), parser, spool);
  for (size_t k = next; k < wanted.size(); ++k) {
    Read& r = reads_[wanted[k]];
    if (r.status.ok()) r.status = Status::Changed(ShellQuoted(f.path) + ": changed during the run (a line is gone)");
  }
  if (copy == nullptr) {
    if (Status s = CheckUnchanged(fs_, f); !s.ok()) fail_all(s);
  }
}

size_t Confirmer::ReadLinesThrough(const std::vector<DocOrigin>& origins, const std::vector<size_t>& wanted,
                                   std::unique_ptr<ByteReader> in, JsonlDocReader& parser, Spool& spool) {
  JsonlLines lines(std::move(in), options_.max_line);
  JsonlLines::Line line;
  size_t next = 0;
  // The rest of the file is not needed; nor any of it once the spool failed.
  while (next < wanted.size() && !spool.failed) {
    Result<bool> more = lines.Next(&line);
    if (!more.ok()) {
      FailLines(origins, wanted, more.status());
      return wanted.size();
    }
    if (!*more) break;
    for (; next < wanted.size() && origins[reads_[wanted[next]].doc].line == line.number; ++next) {
      TakeLine(origins, wanted[next], line.text, parser, spool);
    }
  }
  return next;
}

size_t Confirmer::ReadLinesAt(const std::vector<DocOrigin>& origins, const std::vector<size_t>& wanted,
                              std::unique_ptr<ByteReader> in, JsonlDocReader& parser, Spool& spool) {
  JsonlLinesAt lines(std::move(in), options_.max_line);
  size_t next = 0;
  for (; next < wanted.size() && !spool.failed; ++next) {
    std::string_view text;
    Result<bool> found = lines.At(origins[reads_[wanted[next]].doc].offset, &text);
    if (!found.ok()) {
      FailLines(origins, wanted, found.status());
      return wanted.size();
    }
    if (!*found) break;  // the file is shorter than it was
    TakeLine(origins, wanted[next], text, parser, spool);
  }
  return next;
}

// The file of the wanted lines cannot be read (again) to their end: `why`.
// Every wanted line not left out yet is left out with it.
void Confirmer::FailLines(const std::vector<DocOrigin>& origins, const std::vector<size_t>& wanted, const Status& why) {
  const InputFile& f = *origins[reads_[wanted[0]].doc].file;
  for (size_t i : wanted) {
    Read& r = reads_[i];
    if (r.status.ok())
      r.status = Status::Changed(ShellQuoted(f.path) + ": cannot be read again (" + why.message() + ")");
  }
}

// Reads line `text` again as reads_[i], its token text to `spool`.
void Confirmer::TakeLine(const std::vector<DocOrigin>& origins, size_t i, std::string_view text, JsonlDocReader& parser,
                         Spool& spool) {
  Read& r = reads_[i];
  bool has = false;
  r.offset = spool.size;
  parser.reader().set_token_sink(
      r.keep_text ? DocumentReader::TokenSink([&spool](std::string_view piece) { spool.Append(piece); }) : nullptr);
  DocumentSketch sk;
  JsonlDoc doc;
  if (parser.Parse(text, &doc, &has).ok() && has) {
    parser.reader().ReadText(doc.text, nullptr, r.want_set ? &r.set : nullptr, &sk);
    r.content = sk.content;
  }
  if (!has || sk.kind != DocumentSketch::Kind::kOk) {
    const DocOrigin& o = origins[r.doc];
    r.status = Status::Changed(ShellQuoted(o.file->path) + ":" + std::to_string(o.line) + ": changed during the run");
  }
  r.length = spool.size - r.offset;
  SetReady(i);
}

void Confirmer::PrepareStream(size_t groups) {
  stream_.reset();
  StreamedPairs* const streamed = streamed_;
  if (streamed == nullptr) return;
  const size_t n = streamed->groups.size();
  streamed->jaccard.assign(n, -1);
  if (n == 0) return;
  auto st = std::make_unique<Stream>();
  st->pairs = streamed;
  st->first.assign(groups + 1, 0);
  for (const auto& [a, b] : streamed->groups) {
    ++st->first[a + 1];
    ++st->first[b + 1];
  }
  for (size_t g = 0; g < groups; ++g) st->first[g + 1] += st->first[g];
  st->of_group.resize(st->first[groups]);
  std::vector<uint32_t> at(st->first.begin(), st->first.end() - 1);
  for (uint32_t k = 0; k < n; ++k) {
    st->of_group[at[streamed->groups[k].first]++] = k;
    st->of_group[at[streamed->groups[k].second]++] = k;
  }
  st->read_of_group.assign(groups, SIZE_MAX);
  for (size_t i = 0; i < reads_.size(); ++i) {
    if (reads_[i].want_set) st->read_of_group[reads_[i].group] = i;
  }
  st->ready = std::make_unique<std::atomic<uint8_t>[]>(groups);
  st->left = std::make_unique<std::atomic<uint32_t>[]>(groups);
  for (size_t g = 0; g < groups; ++g) {
    const uint32_t kept = g < streamed->keep.size() && streamed->keep[g] != 0 ? 1 : 0;
    st->left[g].store(st->first[g + 1] - st->first[g] + kept, std::memory_order_relaxed);
    assert(st->first[g] == st->first[g + 1] || st->read_of_group[g] != SIZE_MAX);
  }
  st->taken = std::make_unique<std::atomic<uint8_t>[]>(n);
  stream_ = std::move(st);
}

// Read i has built its set, or failed (its set is then empty or partial, and
// its group has no confirmed member): publishes it, then computes each pair
// whose other set is published too. Each worker publishes before it looks
// (both sequentially consistent), so of two sets published at once at least
// one worker sees the other's; `taken` lets only one compute the pair.
void Confirmer::SetReady(size_t i) {
  Stream* st = stream_.get();
  Read& r = reads_[i];
  if (st == nullptr || !r.want_set || r.published) return;
  r.published = true;
  const auto g = static_cast<uint32_t>(r.group);
  if (st->first[g] == st->first[g + 1]) return;  // in no streamed pair
  st->ready[g].store(1);
  for (uint32_t at = st->first[g]; at < st->first[g + 1]; ++at) {
    const uint32_t k = st->of_group[at];
    const auto [a, b] = st->pairs->groups[k];
    if (st->ready[a == g ? b : a].load() == 0 || st->taken[k].exchange(1) != 0) continue;
    const std::vector<uint64_t>& x = reads_[st->read_of_group[a]].set;
    const std::vector<uint64_t>& y = reads_[st->read_of_group[b]].set;
    st->pairs->jaccard[k] = x.empty() || y.empty() ? -1 : JaccardIfReaches(x, y, st->pairs->threshold);
    PairDone(a);
    PairDone(b);
  }
}

// One pair of group g is done: the last gives its set back (the memory goes
// to the sets still to be read).
void Confirmer::PairDone(uint32_t g) {
  if (stream_->left[g].fetch_sub(1, std::memory_order_acq_rel) == 1) {
    std::vector<uint64_t>().swap(reads_[stream_->read_of_group[g]].set);
  }
}

// Whether two reads' token texts are equal, byte for byte.
Result<bool> Confirmer::SameText(const Read& a, const Read& b) const {
  if (a.length != b.length) return false;
  std::vector<char> x(kCompareChunk), y(kCompareChunk);
  for (uint64_t pos = 0; pos < a.length; pos += kCompareChunk) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kCompareChunk, a.length - pos));
    if (!spools_[a.spool]->ReadAt(a.offset + pos, x.data(), n) ||
        !spools_[b.spool]->ReadAt(b.offset + pos, y.data(), n)) {
      return TempError("read");
    }
    if (std::memcmp(x.data(), y.data(), n) != 0) return false;
  }
  return true;
}

// Judges each group: the signed hash must still hold, then the token text
// must equal the reference's (the first member that still holds).
Status Confirmer::Judge(const std::vector<DocOrigin>& origins, size_t groups, ConfirmedGroups* out) {
  out->members.assign(groups, {});
  out->sets.assign(groups, {});
  out->left_out.clear();
  reference_read_.assign(groups, SIZE_MAX);
  auto place = [&](const DocOrigin& o) {
    std::string where = o.file->path;
    if (o.line > 0) where.append(":").append(std::to_string(o.line));
    return where;
  };
  for (size_t i = 0; i < reads_.size(); ++i) {
    Read& r = reads_[i];
    const DocOrigin& origin = origins[r.doc];
    if (r.status.ok() && !(r.content == origin.content)) {
      r.status = Status::Changed(place(origin) + ": changed during the run");
    }
    if (!r.status.ok()) {
      out->left_out.emplace_back(r.doc, r.status);
      continue;
    }
    const size_t g = r.group;
    if (reference_read_[g] == SIZE_MAX) {
      reference_read_[g] = i;
      out->members[g].push_back(r.doc);
      continue;
    }
    const Read& ref = reads_[reference_read_[g]];
    Result<bool> same = SameText(ref, r);
    if (!same.ok()) return same.status();
    if (*same) {
      out->members[g].push_back(r.doc);
    } else {
      r.status = Status::Corrupt(place(origin) + ": has the content hash of " + place(origins[ref.doc]) +
                                 " but not its text (a hash collision); left out of the results");
      out->left_out.emplace_back(r.doc, r.status);
    }
  }
  return Status::Ok();
}

// Shingle sets of the references: the first member's, read with its set,
// or, when another member took its place, made from that one's token text.
Status Confirmer::CollectSets(const std::vector<char>& want_set, ConfirmedGroups* out) {
  for (size_t g = 0; g < want_set.size(); ++g) {
    if (want_set[g] == 0 || reference_read_[g] == SIZE_MAX) continue;
    Read& ref = reads_[reference_read_[g]];
    if (!ref.want_set) {
      if (Status s = SetFromTokenText(&ref); !s.ok()) return s;
    }
    out->sets[g] = std::move(ref.set);  // the read needs it no more
  }
  return Status::Ok();
}

// The Shingler turns a token text into the same tokens it came from: words
// are separated by spaces, characters are as they were.
Status Confirmer::SetFromTokenText(Read* r) const {
  Shingler shingler(options_.shingle, options_.EffectiveNgram(), options_.seed);
  std::vector<char> buf(kCompareChunk);
  uint64_t pos = 0;
  while (pos < r->length) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kCompareChunk, r->length - pos));
    if (!spools_[r->spool]->ReadAt(r->offset + pos, buf.data(), n)) return TempError("read");
    size_t cut = n;
    if (pos + n < r->length) {  // end the piece on a whole UTF-8 character
      while (cut > 0 && (static_cast<unsigned char>(buf[cut - 1]) & 0xC0) == 0x80) --cut;
      if (cut > 0 && static_cast<unsigned char>(buf[cut - 1]) >= 0xC0) --cut;
    }
    shingler.Feed(std::string_view(buf.data(), cut));
    r->set.insert(r->set.end(), shingler.shingles().begin(), shingler.shingles().end());
    shingler.shingles().clear();
    pos += cut;
  }
  shingler.Finish();
  r->set.insert(r->set.end(), shingler.shingles().begin(), shingler.shingles().end());
  std::sort(r->set.begin(), r->set.end());
  r->set.erase(std::unique(r->set.begin(), r->set.end()), r->set.end());
  return Status::Ok();
}

// A group of one kept no token text: its document is read again, its text to
// spool 0.
Result<bool> Confirmer::KeepText(size_t g) {
  const size_t i = reference_read_[g];
  Read& r = reads_[i];
  if (r.keep_text) return r.status.ok();
  const ContentHash confirmed = r.content;
  r.keep_text = true;
  r.want_set = false;
  if (options_.input == InputFormat::kText) {
    if (late_text_reader_ == nullptr) late_text_reader_ = std::make_unique<DocumentReader>(options_, minhasher_);
    ReadTextDoc(*origins_, i, 0, *late_text_reader_);
  } else {
    if (late_parser_ == nullptr) late_parser_ = std::make_unique<JsonlDocReader>(options_, minhasher_);
    ReadJsonlFile(*origins_, {i}, 0, *late_parser_);
  }
  if (spools_[0]->failed || std::fflush(spools_[0]->file) != 0) {
    errno = spools_[0]->failed ? spools_[0]->error : errno;
    return TempError("write");
  }
  if (r.status.ok() && !(r.content == confirmed)) {
    const DocOrigin& o = (*origins_)[r.doc];
    std::string where = o.file->path;
    if (o.line > 0) where.append(":").append(std::to_string(o.line));
    r.status = Status::Changed(where + ": changed during the run");
  }
  if (!r.status.ok()) late_left_out_.emplace_back(r.doc, r.status);
  return r.status.ok();
}

std::shared_ptr<const KeptTexts> Confirmer::TakeKeptTexts() {
  auto texts = std::make_shared<KeptTexts>();
  std::vector<uint32_t> file_of(spools_.size());
  for (size_t w = 0; w < spools_.size(); ++w) {
    file_of[w] = texts->AddFile(spools_[w]->file);
    spools_[w]->file = nullptr;
  }
  for (const Read& r : reads_) {
    if (r.keep_text && r.status.ok()) texts->Add(r.doc, file_of[r.spool], r.offset, r.length);
  }
  spools_.clear();
  return texts;
}

Result<double> Confirmer::TextJaccard(size_t group_a, size_t group_b) const {
  assert(reads_[reference_read_[group_a]].keep_text && reads_[reference_read_[group_b]].keep_text);
  const size_t k = static_cast<size_t>(options_.EffectiveNgram());
  auto shingles = [&](size_t g, std::unordered_set<std::string>* out) -> Status {
    const Read& r = reads_[reference_read_[g]];
    std::string text(r.length, '\0');
    if (r.length > 0 && !spools_[r.spool]->ReadAt(r.offset, text.data(), text.size())) return TempError("read");
    // Tokens: words end with a space; in char mode every code point is one.
    std::vector<std::string_view> tokens;
    if (options_.shingle == ShingleUnit::kWord) {
      size_t start = 0;
      for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == ' ') {
          tokens.emplace_back(text.data() + start, i - start);
          start = i + 1;
        }
      }
    } else {
      for (size_t i = 0; i < text.size();) {
        size_t len = 1;
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0xF0)
          len = 4;
        else if (c >= 0xE0)
          len = 3;
        else if (c >= 0xC0)
          len = 2;
        tokens.emplace_back(text.data() + i, std::min(len, text.size() - i));
        i += len;
      }
    }
    // A shingle is k tokens; a shorter document is one shingle of all of them.
    // Tokens are joined with a byte no token holds.
    const size_t n = tokens.size();
    const size_t width = std::min(k, n);
    for (size_t s = 0; s + width <= n && width > 0; ++s) {
      std::string sh;
      for (size_t t = s; t < s + width; ++t) sh.append(tokens[t]).push_back('\x1f');
      out->insert(std::move(sh));
    }
    return Status::Ok();
  };
  std::unordered_set<std::string> a, b;
  if (Status s = shingles(group_a, &a); !s.ok()) return s;
  if (Status s = shingles(group_b, &b); !s.ok()) return s;
  size_t common = 0;
  for (const std::string& sh : a) common += b.count(sh);
  const size_t all = a.size() + b.size() - common;
  return all == 0 ? 0.0 : static_cast<double>(common) / static_cast<double>(all);
}

}  // namespace neardup
