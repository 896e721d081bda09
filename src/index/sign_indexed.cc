#include "index/sign_indexed.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include "index/file_plans.h"
#include "index/index_rows.h"
#include "index/index_schema.h"
#include "index/new_job.h"
#include "index/text_store_stream.h"
#include "neardup/quote.h"
#include "sign/sign_internal.h"
#include "walk/hashing_file_system.h"

namespace neardup {

namespace {

// A stored problem's message as this run shows it: ":LINE: reason" was
// stored for "PATH:LINE: reason" (IndexedFile::walked_as), PATH being how
// this run walked the file, quoted as ShellQuoted() does.
std::string ShownMessage(const std::string& walked_as, std::string stored) {
  if (!stored.starts_with(':')) return stored;
  return ShellQuoted(walked_as) + stored;
}

// The run's options as its row in `runs` keeps them (`index info` shows them).
std::string RunOptions(const Options& o) {
  std::string s;
  auto add = [&s](const std::string& x) { s.append(s.empty() ? "" : " ").append(x); };
  for (const auto& p : o.paths) add(p);
  for (const auto& p : o.against) add(std::string("--against ").append(p));
  if (!o.listed_paths.empty()) add(std::to_string(o.listed_paths.size()).append(" listed paths"));
  add(std::string("--input ").append(RowsAreDocuments(o.input) ? "jsonl" : "text"));
  add(std::string("--mode ").append(ToString(o.mode)));
  add(std::string("--verify ").append(ToString(o.verify)));
  char t[32];
  std::snprintf(t, sizeof t, "-t %g", o.threshold);
  add(t);
  if (o.new_only) add("--new");
  return s;
}

// The index keys of the walked files.
std::vector<std::string> KeysOf(const IndexKeys& keys, const std::vector<InputFile>& files) {
  std::vector<std::string> out;
  out.reserve(files.size());
  for (const InputFile& f : files) out.push_back(keys.KeyOf(f.path));
  return out;
}

// The walked files not reused, as signed in this run.
struct SubCorpus {
  std::vector<uint32_t> sub_of;         // sub-corpus file -> walked file
  SignedCorpus corpus;                  // their documents, signatures and problems
  std::vector<SignCounts> file_counts;  // by sub-corpus file
};

// The walked files not reused, as a sub-corpus to sign.
SubCorpus ChangedFiles(const Options& options, const std::vector<InputFile>& files, const FilePlans& fp) {
  const size_t n = files.size();
  SubCorpus s{.sub_of = {},
              .corpus = {.table = SignatureTable(options.num_perm),
                         .stream_copies = {},
                         .problems = {},
                         .counts = {},
                         .unnamed_unsigned = {},
                         .named_unsigned = {},
                         .bitmaps = {}},
              .file_counts = {}};
  for (size_t i = 0; i < n; ++i) {
    if (fp.plan[i] == Plan::kReuse) continue;
    s.sub_of.push_back(static_cast<uint32_t>(i));
    s.corpus.table.files.push_back(files[i]);
  }
  s.corpus.stream_copies.resize(s.sub_of.size());
  s.file_counts.resize(s.sub_of.size());
  return s;
}

// Where each walked file's documents go in the merged table: its stored
// ones (reused, or the old lines of a file that grew), then the new ones.
struct Layout {
  std::vector<size_t> sub_first;  // by sub-corpus file, into the sub-corpus table's docs
  std::vector<size_t> first;      // by walked file, into the merged table
  std::vector<size_t> n_old;      // by walked file: its stored documents used
};

// Computes the Layout of the walked files.
Layout LayOut(const FilePlans& fp, const SubCorpus& s) {
  const size_t n = fp.plan.size();
  const size_t m = s.sub_of.size();
  Layout lay;
  lay.sub_first.assign(m + 1, 0);
  for (const DocRecord& r : s.corpus.table.docs) ++lay.sub_first[r.file + 1];
  for (size_t k = 0; k < m; ++k) lay.sub_first[k + 1] += lay.sub_first[k];
  lay.first.assign(n + 1, 0);
  lay.n_old.assign(n, 0);
  std::vector<size_t> sub_index(n, SIZE_MAX);
  for (size_t k = 0; k < m; ++k) sub_index[s.sub_of[k]] = k;
  for (size_t i = 0; i < n; ++i) {
    if (fp.plan[i] != Plan::kSign) lay.n_old[i] = fp.stored[fp.entry[i]].documents;
    const size_t n_new = fp.plan[i] != Plan::kReuse ? lay.sub_first[sub_index[i] + 1] - lay.sub_first[sub_index[i]] : 0;
    lay.first[i + 1] = lay.first[i] + lay.n_old[i] + n_new;
  }
  return lay;
}

// Moves the stored rows that ReadStoredInputs() read (in path order) to
// their rows in the run's table, within the matrix they were read into, and
// their records likewise within the records read, so that both become the
// run's table without a copy: rows moving down are moved first, in
// ascending order, then rows moving up, in descending order; with the rows
// in the same order before and after, no row is overwritten before it is
// moved. Returns false, moving nothing, when the rows would change order or
// the matrix's reserved space cannot hold the table; the caller then copies.
// Rows (and records) of new documents and of entries not read ahead are left
// to be written.
bool MoveStoredRows(const FilePlans& fp, const Layout& lay, size_t np, StoredInputs& stored) {
  struct Move {
    size_t from, to, count;  // in rows
  };
  std::vector<Move> moves;
  const size_t n = fp.plan.size();
  for (size_t i = 0; i < n; ++i) {
    if (fp.plan[i] == Plan::kSign || stored.first[fp.entry[i]] == SIZE_MAX) continue;
    const Move m{.from = stored.first[fp.entry[i]], .to = lay.first[i], .count = lay.n_old[i]};
    if (!moves.empty() &&
        (m.from < moves.back().from + moves.back().count || m.to < moves.back().to + moves.back().count)) {
      return false;
    }
    moves.push_back(m);
  }
  const size_t rows = lay.first[n];
  if (rows * np > stored.signatures.capacity()) return false;
  if (rows * np > stored.signatures.size()) stored.signatures.resize(rows * np);  // within the reserved space
  if (rows > stored.docs.size()) stored.docs.resize(rows);
  uint32_t* values = stored.signatures.data();
  auto docs = stored.docs.begin();
  // memmove copies overlapping rows either way; the records need the
  // direction: forward when moving down, backward when moving up.
  auto move_rows = [&](const Move& m) {
    std::memmove(values + m.to * np, values + m.from * np, m.count * np * sizeof(uint32_t));
    const auto from = docs + static_cast<ptrdiff_t>(m.from);
    const auto end = from + static_cast<ptrdiff_t>(m.count);
    if (m.to < m.from) {
      std::move(from, end, docs + static_cast<ptrdiff_t>(m.to));
    } else {
      std::move_backward(from, end, docs + static_cast<ptrdiff_t>(m.to + m.count));
    }
  };
  for (const Move& m : moves) {
    if (m.to < m.from) move_rows(m);
  }
  for (auto m = moves.rbegin(); m != moves.rend(); ++m) {
    if (m->to > m->from) move_rows(*m);
  }
  stored.signatures.resize(rows * np);
  stored.docs.resize(rows);
  return true;
}

// Commits the index's open transaction and begins the next one every
// kIndexBatchDocuments documents or so.
class BatchCommitter {
 public:
  explicit BatchCommitter(SignatureIndex& index) : index_(index) {}
  // Counts a file's `docs` documents (and the file itself) into the batch.
  Status Add(uint64_t docs) {
    in_batch_ += docs + 1;
    if (in_batch_ < kIndexBatchDocuments) return Status::Ok();
    in_batch_ = 0;
    if (Status s = index_.Commit(); !s.ok()) return s;
    return index_.Begin();
  }

 private:
  SignatureIndex& index_;
  uint64_t in_batch_ = 0;
};

// The update of the index in one run of SignWithIndex, and the run's table.
// It holds what every step shares: the index, the walked files and what
// ReadStoredInputs() read, their plans (PlanFiles), the options' reading
// fingerprint and num_perm, the file system JSONL files are hashed through,
// the batch committer, the files signed now (SubCorpus) and where each
// file's documents go (Layout). The steps, in order: SignChanged(), then
// Finish().
//
// Thread safety: used from the calling thread; while text files are signed,
// StoreTextFile() runs on TextStoreStream's writer, and the index with it.
class IndexUpdate {
 public:
  // Plans the run: which walked files are reused, grown or signed whole.
  IndexUpdate(const SignContext& ctx, SignatureIndex& index, std::vector<InputFile> files, StoredInputs stored);
  IndexUpdate(const IndexUpdate&) = delete;
  IndexUpdate& operator=(const IndexUpdate&) = delete;

  // Signs the walked files not reused (JSONL files through the hashing file
  // system, a grown file from just after its stored bytes), storing text
  // files while they are signed. Returns Cancelled or the index's error.
  Status SignChanged();
  // Lays out the run's table, fills it with the stored documents, stores the
  // JSONL files signed now, removes the entries of files gone, merges in the
  // documents signed now, and records the run's end.
  // REQUIRES: SignChanged() returned OK; called once.
  Result<IndexedCorpus> Finish();

 private:
  IndexedCorpus NewCorpus() const;
  void PlaceStored(size_t i, size_t j, DocRecord&& r, const uint32_t* sig, IndexedCorpus* out) const;
  Status LoadStored(bool adopted, IndexedCorpus* out);
  Status LoadFromIndex(const std::vector<const IndexedFile*>& wanted, const std::vector<uint32_t>& file_of_slot,
                       IndexedCorpus* out);
  std::optional<IndexedFile> EntryOf(size_t k);
  Status StoreFile(size_t k, std::span<const DocRecord> docs, std::span<const uint32_t> sigs,
                   std::span<const StoredProblem> problems, std::span<const SetBitmap> bitmaps);
  void KeysOfReused(IndexedCorpus* out);
  Status StoreTextFile(size_t k);
  Status StoreSigned();
  Status RemoveGone(IndexStats* stats);
  void MergeSigned(bool all_signed, IndexedCorpus* out);
  void KeepStoredCopies();
  Status StoreStats();
  void CountVerified(IndexedCorpus* out);
  void MarkPending(IndexedCorpus* out);
  Status EndRun(IndexedCorpus* out);

  const SignContext& ctx_;
  SignatureIndex& index_;
  const bool jsonl_;
  const Reading reading_;                // the options' reading fingerprints
  const size_t np_;                      // options.num_perm
  std::vector<InputFile> files_;         // as walked; moved into the table by Finish()
  StoredInputs stored_;                  // its `files` moved into plans_
  const std::vector<std::string> keys_;  // by walked file: its key in the index
  const FilePlans plans_;
  // By walked file signed again with an entry (FilePlans::compare): its
  // stored documents, copied before the stored rows move (empty when they
  // were not read ahead).
  std::unordered_map<size_t, std::vector<DocRecord>> compared_stored_;
  HashingFileSystem hashing_;
  // The index is brought up to date in the transaction ReadStoredInputs()
  // began, committed every kIndexBatchDocuments documents or so: text files
  // while they are signed (TextStoreStream), JSONL files once signed.
  BatchCommitter batch_;
  SubCorpus sub_;
  Layout lay_;                           // set by Finish()
  std::vector<int64_t> reused_pending_;  // entries walked whose documents were not delivered yet
  std::vector<PendingMark> unchanged_;   // files signed again to the stored documents: their marks
  std::vector<int64_t> bitmap_keys_;     // per DocId: a reused document's key, or -1 (KeysOfReused)
};

IndexUpdate::IndexUpdate(const SignContext& ctx, SignatureIndex& index, std::vector<InputFile> files,
                         StoredInputs stored)
    : ctx_(ctx),
      index_(index),
      jsonl_(RowsAreDocuments(ctx.options.input)),
      reading_(ctx.options),
      np_(static_cast<size_t>(ctx.options.num_perm)),
      files_(std::move(files)),
      stored_(std::move(stored)),
      keys_(KeysOf(stored_.keys, files_)),
      plans_(PlanFiles({files_, keys_}, std::move(stored_.files), stored_.by_path, reading_, ctx.fs, ctx.workers)),
      hashing_(ctx.fs),
      batch_(index),
      sub_(ChangedFiles(ctx.options, files_, plans_)) {
  KeepStoredCopies();
}

// Copies the stored documents of the files signed again that have an entry
// (FilePlans::compare), to compare them with what they are signed as now
// (CountVerified).
void IndexUpdate::KeepStoredCopies() {
  for (size_t i = 0; i < files_.size(); ++i) {
    if (plans_.compare[i] == 0) continue;
    const size_t k = plans_.entry[i];
    std::vector<DocRecord>& copy = compared_stored_[i];
    if (stored_.first[k] == SIZE_MAX) continue;  // not read ahead: counted as changed
    const auto from = stored_.docs.begin() + static_cast<ptrdiff_t>(stored_.first[k]);
    copy.assign(from, from + static_cast<ptrdiff_t>(plans_.stored[k].documents));
  }
}

// A file signed again whose documents are the stored ones (same lines,
// names, sizes, content hashes and kinds: a racily clean file, a file whose
// entry has no hash to prove it, or one edited to text that reads the same)
// did not change: its documents count as reused, not signed, and are not new
// for --new.
void IndexUpdate::CountVerified(IndexedCorpus* out) {
  const std::vector<DocRecord>& docs = out->corpus.table.docs;
  for (const auto& [i, stored] : compared_stored_) {
    const size_t first = lay_.first[i], count = lay_.first[i + 1] - first;
    if (stored.empty() || stored.size() != count) continue;
    bool same = true;
    for (size_t j = 0; j < count && same; ++j) {
      const DocRecord& now = docs[first + j];
      const DocRecord& was = stored[j];
      const std::string& path = files_[i].path;
      const std::string name = !was.name.empty() ? was.name
                               : was.line == 0   ? path
                                                 : path + ":" + std::to_string(was.line);
      same = now.line == was.line && now.name == name && now.size == was.size && now.content == was.content &&
             now.kind == was.kind;
    }
    if (!same) continue;
    const IndexedFile& e = plans_.stored[plans_.entry[i]];
    unchanged_.push_back({e.id, e.pending});  // written again, as delivered as it was
    std::fill_n(out->signed_now.begin() + static_cast<ptrdiff_t>(first), count, uint8_t{0});
    out->stats.signed_now -= count;
    out->stats.reused += count;
    out->stats.reused_invalid_utf8 += e.invalid_utf8;  // read again, but advised on by the run that stored it
  }
}

// The walked files whose stored entries are pending (signed by a run whose
// output was not delivered): with --new their documents count as new, as
// those signed now do, so that what a failed run did not deliver is reported
// by the next run (at least once). The run covers them (EndRun).
void IndexUpdate::MarkPending(IndexedCorpus* out) {
  for (size_t i = 0; i < files_.size(); ++i) {
    if (plans_.entry[i] == SIZE_MAX || plans_.stored[plans_.entry[i]].pending == 0) continue;
    reused_pending_.push_back(plans_.stored[plans_.entry[i]].id);
    if (!ctx_.options.new_only) continue;
    const size_t first = lay_.first[i], count = lay_.first[i + 1] - first;
    std::fill_n(out->signed_now.begin() + static_cast<ptrdiff_t>(first), count, uint8_t{1});
  }
}

Status IndexUpdate::SignChanged() {
  const size_t m = sub_.sub_of.size();
  SignedCorpus& sub = sub_.corpus;
  // Every file is hashed as it is signed (IndexedFile::raw_hash); the slots
  // are made here, before the workers read them.
  hashing_.Reserve(m);
  for (size_t k = 0; k < m; ++k) {
    const InputFile& f = sub.table.files[k];
    if (!f.identity.stream) hashing_.Slot(f);
  }
  // The run's context, reading through the hashing file system. The index
  // builds the bitmaps a plain Sign() builds (WantsBitmaps), so that
  // --index --exact rules out what a run without an index rules out.
  SignContext through_hashing = ctx_;
  through_hashing.fs = hashing_;
  through_hashing.set_bitmaps = ctx_.set_bitmaps || WantsBitmaps(ctx_.options);
  if (jsonl_) {
    std::vector<uint64_t> line_base(m, 0);
    for (size_t k = 0; k < m; ++k) {
      const InputFile& f = sub.table.files[k];
      if (f.identity.stream || CompressedPath(f.path)) continue;
      RawRead& slot = hashing_.Slot(f);
      if (plans_.plan[sub_.sub_of[k]] == Plan::kAppend) {
        const IndexedFile& e = plans_.stored[plans_.entry[sub_.sub_of[k]]];
        slot.skip = e.size;
        slot.prefix_hash = e.raw_hash;
        line_base[k] = e.lines;
      }
    }
    SignJsonlFiles(through_hashing, &sub, &line_base, &sub_.file_counts);
    if (ctx_.workers.Cancelled()) return Status::Cancelled("interrupted");
    return Status::Ok();
  }
  std::optional<TextStoreStream> stream;
  std::function<void(size_t, bool)> done;
  if (m > 0) {
    stream.emplace(m, [this](size_t k) { return StoreTextFile(k); });
    done = [&stream](size_t k, bool ok) { stream->Done(k, ok); };
  }
  SignTextFiles(through_hashing, &sub, &sub_.file_counts, done);
  const Status stored_now = stream ? stream->Finish() : Status::Ok();
  if (ctx_.workers.Cancelled()) return Status::Cancelled("interrupted");
  return stored_now;
}

// The run's corpus before any document goes in (its table is sized, or
// taken over, by Finish()): the counts of the files signed now, no row
// marked signed yet, a stream copy slot per walked file.
IndexedCorpus IndexUpdate::NewCorpus() const {
  const size_t n = files_.size();
  IndexedCorpus out{.corpus = {.table = SignatureTable(ctx_.options.num_perm),
                               .stream_copies = {},
                               .problems = {},
                               .counts = sub_.corpus.counts,
                               .unnamed_unsigned = {},
                               .named_unsigned = {},
                               .bitmaps = {}},
                    .signed_now = std::vector<uint8_t>(lay_.first[n], 0),
                    .stats = {},
                    .stored_bitmaps = nullptr};
  out.stats.used = true;
  out.stats.signed_again = index_.signs_again();
  out.stats.counted_again = index_.counts_again();
  out.corpus.stream_copies.resize(n);
  return out;
}

Result<IndexedCorpus> IndexUpdate::Finish() {
  const size_t n = files_.size();
  lay_ = LayOut(plans_, sub_);
  IndexedCorpus out = NewCorpus();
  // Nothing stored is used (a first run): the signed table is the answer as
  // it is, taken over by MergeSigned without a copy.
  const bool all_signed = std::all_of(plans_.plan.begin(), plans_.plan.end(), [](Plan p) { return p == Plan::kSign; });
  const bool adopted = !all_signed && MoveStoredRows(plans_, lay_, np_, stored_);
  if (adopted) {
    out.corpus.table.AdoptMatrix(std::move(stored_.signatures), std::move(stored_.docs));
  } else if (!all_signed) {
    out.corpus.table.Resize(lay_.first[n]);
  }  // else MergeSigned takes the signed table over
  if (Status s = LoadStored(adopted, &out); !s.ok()) return s;
  if (!all_signed) KeysOfReused(&out);
  if (jsonl_) {
    if (Status s = StoreSigned(); !s.ok()) return s;
  }
  if (Status s = StoreStats(); !s.ok()) return s;
  if (Status s = RemoveGone(&out.stats); !s.ok()) return s;
  MergeSigned(all_signed, &out);
  CountVerified(&out);
  MarkPending(&out);
  out.corpus.table.files = std::move(files_);
  if (jsonl_) RenameDuplicateIds(&out.corpus);
  if (Status s = EndRun(&out); !s.ok()) return s;
  return out;
}

// Puts document j of walked file i, as stored, in its row of `out`.
void IndexUpdate::PlaceStored(size_t i, size_t j, DocRecord&& r, const uint32_t* sig, IndexedCorpus* out) const {
  SignatureTable& table = out->corpus.table;
  const size_t at = lay_.first[i] + j;
  const InputFile& f = files_[i];
  DocRecord& to = table.docs[at];
  if (&to != &r) to = std::move(r);
  to.file = static_cast<uint32_t>(i);
  if (to.name.empty()) to.name = to.line == 0 ? f.path : f.path + ":" + std::to_string(to.line);  // NULL: by path
  to.mtime_ns = f.mtime_ns;
  to.reference = f.reference;
  if (!jsonl_) to.size = f.size;
  uint32_t* row = table.MutableSignature(static_cast<DocId>(at));
  if (sig != row) std::copy(sig, sig + np_, row);  // in place when the matrix was taken over
}

// Loads the stored documents of the files reused or grown into their rows of
// `out`, with their stored problems and counts: from what ReadStoredInputs()
// read, or (an entry it did not read) from the index. `adopted`: the table's
// matrix and records are the ones read, already moved in place
// (MoveStoredRows).
Status IndexUpdate::LoadStored(bool adopted, IndexedCorpus* out) {
  SignedCorpus& c = out->corpus;
  std::vector<const IndexedFile*> wanted;  // entries not read ahead, by slot
  std::vector<uint32_t> file_of_slot;
  for (size_t i = 0; i < files_.size(); ++i) {
    if (plans_.plan[i] == Plan::kSign) continue;
    const size_t k = plans_.entry[i];
    const IndexedFile& e = plans_.stored[k];
    c.counts.bytes += e.bytes;
    c.counts.invalid_utf8 += e.invalid_utf8;
    c.counts.transcoded += e.transcoded;
    out->stats.reused += lay_.n_old[i];
    out->stats.reused_invalid_utf8 += e.invalid_utf8;
    if (stored_.first[k] == SIZE_MAX) {
      wanted.push_back(&e);
      file_of_slot.push_back(static_cast<uint32_t>(i));
      continue;
    }
    const size_t first = stored_.first[k];
    for (size_t j = 0; j < lay_.n_old[i]; ++j) {
      const uint32_t* sig = adopted ? c.table.MutableSignature(static_cast<DocId>(lay_.first[i] + j))
                                    : &stored_.signatures[(first + j) * np_];
      DocRecord& r = adopted ? c.table.docs[lay_.first[i] + j] : stored_.docs[first + j];
      PlaceStored(i, j, std::move(r), sig, out);
    }
    for (StoredProblem& p : stored_.problems[k]) {
      c.problems.push_back({.file = static_cast<uint32_t>(i),
                            .line = p.line,
                            .status = Status::Corrupt(ShownMessage(files_[i].path, std::move(p.message))),
                            .kind = InputProblem::Kind::kMalformed});
    }
  }
  if (wanted.empty()) return Status::Ok();
  return LoadFromIndex(wanted, file_of_slot, out);
}

// Loads the stored documents and problems of the entries `wanted` (the
// ids of walked files file_of_slot[slot]) from the index into `out`.
Status IndexUpdate::LoadFromIndex(const std::vector<const IndexedFile*>& wanted,
                                  const std::vector<uint32_t>& file_of_slot, IndexedCorpus* out) {
  // The index checks each row and each entry's count (LoadDocuments): no
  // slot gets more than its n_old (the entry's count) documents.
  std::vector<size_t> loaded(wanted.size(), 0);
  if (Status s = index_.LoadDocuments(wanted,
                                      [&](size_t slot, DocRecord&& r, SignatureView sig) {
                                        const uint32_t i = file_of_slot[slot];
                                        PlaceStored(i, loaded[slot]++, std::move(r), sig.data(), out);
                                      });
      !s.ok()) {
    return s;
  }
  return index_.LoadProblems(wanted, [&](size_t slot, StoredProblem&& p) {
    out->corpus.problems.push_back(
        {.file = file_of_slot[slot],
         .line = p.line,
         .status = Status::Corrupt(ShownMessage(files_[file_of_slot[slot]].path, std::move(p.message))),
         .kind = InputProblem::Kind::kMalformed});
  });
}

// The index entry of sub-corpus file k as signed now (id, document count
// and the stored part of a grown file not yet set); nullopt for a JSONL
// file that changed while it was read (signed again next run).
std::optional<IndexedFile> IndexUpdate::EntryOf(size_t k) {
  const InputFile& f = sub_.corpus.table.files[k];
  const SignCounts& counts = sub_.file_counts[k];
  IndexedFile e;
  e.path = keys_[sub_.sub_of[k]];
  e.walked_as = f.path;
  e.dev = f.identity.dev;
  e.inode = f.identity.ino;
  e.size = f.size;
  e.mtime_ns = f.mtime_ns;
  e.ctime_ns = f.ctime_ns;
  e.reading = reading_.For(f.path);
  e.jsonl = jsonl_;
  e.bytes = counts.bytes;
  e.invalid_utf8 = counts.invalid_utf8;
  e.transcoded = counts.transcoded;
  const RawRead* slot = f.identity.stream ? nullptr : hashing_.Find(f);
  const bool whole = slot != nullptr && slot->done && slot->bytes == f.size;
  if (jsonl_ && !CompressedPath(f.path)) {
    if (!whole) return std::nullopt;
    const RawRead& raw = *slot;
    e.lines = raw.newlines;
    // A Parquet file is never extended by its bytes (its footer is last):
    // never taken as grown (PlanFiles' append path needs a line's end).
    e.ends_newline = ctx_.options.input != InputFormat::kParquet && (raw.bytes == 0 || raw.last == '\n');
  }
  // The hash of the bytes signed, which proves the entry when only its stat
  // changed (PlanFiles); 0 (unknown) for a file not read to its end (binary).
  if (whole) e.raw_hash = slot->hash;
  return e;
}

// Writes sub-corpus file k, signed now and read whole, to the index with
// its documents `docs` (signatures `sigs`) and malformed lines. Streams and
// JSONL files that changed while read are left out (signed again next run).
Status IndexUpdate::StoreFile(size_t k, std::span<const DocRecord> docs, std::span<const uint32_t> sigs,
                              std::span<const StoredProblem> problems, std::span<const SetBitmap> bitmaps) {
  const InputFile& f = sub_.corpus.table.files[k];
  const size_t i = sub_.sub_of[k];
  if (f.identity.stream || plans_.shared_key[i] != 0) return Status::Ok();
  std::optional<IndexedFile> entry = EntryOf(k);
  if (!entry) return Status::Ok();  // changed while read: sign again next run
  IndexedFile& e = *entry;
  const size_t count = docs.size();
  // A Parquet file's rows are its lines (the newlines of its bytes mean nothing).
  if (ctx_.options.input == InputFormat::kParquet) e.lines = count;
  Status st;
  if (plans_.plan[i] == Plan::kAppend) {
    const IndexedFile& old = plans_.stored[plans_.entry[i]];
    e.id = old.id;
    e.bytes += old.bytes;
    e.invalid_utf8 += old.invalid_utf8;
    e.transcoded += old.transcoded;
    e.documents = old.documents + count;
    st = index_.AppendToFile(e, docs, sigs, problems, bitmaps);
  } else {
    if (plans_.entry[i] != SIZE_MAX) e.id = plans_.stored[plans_.entry[i]].id;
    st = index_.PutFile(e, docs, sigs, problems, bitmaps);
  }
  if (!st.ok()) return st;
  return batch_.Add(count);
}

// Writes text file k of the sub-corpus, just signed, to the index: what
// TextStoreStream's writer calls.
Status IndexUpdate::StoreTextFile(size_t k) {
  const SignatureTable& table = sub_.corpus.table;
  const std::span<const DocRecord> docs(table.docs.data() + k, 1);  // a text file is one document
  const std::span<const uint32_t> sigs(table.values().data() + k * np_, np_);
  // Its bitmap, when one was built (the signing worker set it before it
  // said the file was done).
  const std::vector<SetBitmap>& bitmaps = sub_.corpus.bitmaps;
  const std::span<const SetBitmap> bitmap = bitmaps.size() == table.docs.size()
                                                ? std::span<const SetBitmap>(bitmaps.data() + k, 1)
                                                : std::span<const SetBitmap>();
  return StoreFile(k, docs, sigs, {}, bitmap);
}

// Writes the files signed now that were read whole (not streams) to the
// index, with their documents, signatures and malformed lines.
Status IndexUpdate::StoreSigned() {
  const SignedCorpus& sub = sub_.corpus;
  const size_t m = sub_.sub_of.size();
  // Which signed files are whole (no problem with the file itself).
  std::vector<uint8_t> whole(m, 1);
  for (const InputProblem& p : sub.problems) {
    if (p.kind != InputProblem::Kind::kMalformed) whole[p.file] = 0;
  }
  std::vector<std::vector<StoredProblem>> file_problems(m);
  for (const InputProblem& p : sub.problems) {
    if (p.kind == InputProblem::Kind::kMalformed) file_problems[p.file].push_back({p.line, p.status.message()});
  }
  for (size_t k = 0; k < m; ++k) {
    if (whole[k] == 0) continue;
    const size_t lo = lay_.sub_first[k], count = lay_.sub_first[k + 1] - lay_.sub_first[k];
    const std::span<const DocRecord> docs(sub.table.docs.data() + lo, count);
    const std::span<const uint32_t> sigs = sub.table.values().subspan(lo * np_, count * np_);
    const std::span<const SetBitmap> bitmaps = sub.bitmaps.size() == sub.table.docs.size()
                                                   ? std::span<const SetBitmap>(sub.bitmaps).subspan(lo, count)
                                                   : std::span<const SetBitmap>();
    if (Status st = StoreFile(k, docs, sigs, file_problems[k], bitmaps); !st.ok()) return st;
  }
  return Status::Ok();
}

// Gives the entries of the files reused by their bytes (FilePlans::restat)
// the stat seen now, and this run's start as when the index saw them, so
// that the next run reuses them by their stat alone once it proves them
// unchanged (StatProvesUnchanged). Their documents, counts and pending marks
// stay as they were: what they hold did not change.
Status IndexUpdate::StoreStats() {
  for (size_t i = 0; i < files_.size(); ++i) {
    if (plans_.restat[i] == 0) continue;
    const InputFile& f = files_[i];
    IndexedFile e = plans_.stored[plans_.entry[i]];
    e.dev = f.identity.dev;
    e.inode = f.identity.ino;
    e.mtime_ns = f.mtime_ns;
    e.ctime_ns = f.ctime_ns;
    if (Status s = index_.UpdateStat(e); !s.ok()) return s;
    if (Status s = batch_.Add(0); !s.ok()) return s;
  }
  return Status::Ok();
}

// Removes the index entries under the scanned paths whose files are gone.
Status IndexUpdate::RemoveGone(IndexStats* stats) {
  for (size_t k = 0; k < plans_.stored.size(); ++k) {
    const IndexedFile& e = plans_.stored[k];
    if (plans_.walked[k] != 0) continue;
    if (!stored_.keys.Covers(e.path)) continue;
    if (Status s = index_.RemoveFile(e.id); !s.ok()) return s;
    stats->removed += e.documents;
    if (Status b = batch_.Add(e.documents); !b.ok()) return b;
  }
  return Status::Ok();
}

// When the run wants bitmaps, sizes out's to one per document (MergeSigned
// moves in those of the documents signed now) and records the key of each
// document reused (or kept by a file that grew), whose stored bitmap is read
// when asked (EndRun, StoredBitmaps).
void IndexUpdate::KeysOfReused(IndexedCorpus* out) {
  if (!ctx_.set_bitmaps && !WantsBitmaps(ctx_.options)) return;
  const std::vector<DocRecord>& docs = out->corpus.table.docs;
  out->corpus.bitmaps.assign(docs.size(), SetBitmap());
  bitmap_keys_.assign(docs.size(), -1);
  for (size_t i = 0; i < files_.size(); ++i) {
    if (plans_.plan[i] == Plan::kSign) continue;
    const int64_t id = plans_.stored[plans_.entry[i]].id;
    for (size_t at = lay_.first[i]; at < lay_.first[i] + lay_.n_old[i]; ++at)
      bitmap_keys_[at] = DocKey(id, docs[at].line);
  }
}

// Moves the documents signed now into `out`, after the stored ones of their
// file (or takes the signed table over whole when nothing stored is used),
// and their problems, renumbered to walked files.
void IndexUpdate::MergeSigned(bool all_signed, IndexedCorpus* out) {
  SignedCorpus& c = out->corpus;
  SignedCorpus& sub = sub_.corpus;
  size_t m = sub_.sub_of.size();
  if (all_signed) {
    c.table = std::move(sub.table);
    c.stream_copies = std::move(sub.stream_copies);
    c.bitmaps = std::move(sub.bitmaps);
    out->stats.signed_now = c.table.size();
    std::fill(out->signed_now.begin(), out->signed_now.end(), 1);
    m = 0;  // nothing to move row by row
  }
  // The bitmaps of the documents signed now, at their DocIds, beside the
  // stored ones (PlaceStoredBitmaps).
  const bool bitmaps = m > 0 && sub.bitmaps.size() == sub.table.docs.size() && !c.bitmaps.empty();
  for (size_t k = 0; k < m; ++k) {
    const size_t i = sub_.sub_of[k];
    const size_t lo = lay_.sub_first[k], count = lay_.sub_first[k + 1] - lay_.sub_first[k];
    const size_t at = lay_.first[i] + lay_.n_old[i];
    for (size_t j = 0; j < count; ++j) {
      DocRecord& r = c.table.docs[at + j];
      r = std::move(sub.table.docs[lo + j]);
      r.file = static_cast<uint32_t>(i);
      out->signed_now[at + j] = 1;
      if (bitmaps) c.bitmaps[at + j] = std::move(sub.bitmaps[lo + j]);
    }
    const auto sig = sub.table.values().subspan(lo * np_, count * np_);
    std::copy(sig.begin(), sig.end(), c.table.MutableSignature(static_cast<DocId>(at)));
    out->stats.signed_now += count;
    c.stream_copies[i] = std::move(sub.stream_copies[k]);
  }
  for (InputProblem& p : sub.problems) {
    p.file = sub_.sub_of[p.file];
    c.problems.push_back(std::move(p));
  }
}

// Records the end of the run with its counts, and commits.
Status IndexUpdate::EndRun(IndexedCorpus* out) {
  IndexRun run;
  run.reused = out->stats.reused;
  run.signed_now = out->stats.signed_now;
  run.removed = out->stats.removed;
  run.documents = out->corpus.table.size();
  out->stats.run = index_.run();
  if (Status s = index_.PutBackMarks(unchanged_); !s.ok()) return s;
  // Only a --new run of the index's job covers pending files (NewJob). A
  // report cut down by --against (pairs of reference documents alone are
  // never reported) may not deliver every pair: it has no job.
  if (ctx_.options.new_only && ctx_.options.against.empty()) {
    Result<NewJob> stored = index_.StoredNewJob();
    if (!stored.ok()) return stored.status();
    NewJob job = NewJobOf(ctx_.options, stored_.keys);
    if (stored->fingerprint.empty() || stored->fingerprint == job.fingerprint) {
      if (Status s = index_.CoverPending(reused_pending_); !s.ok()) return s;
      out->stats.new_job = std::move(job);
    } else {
      out->stats.other_job = stored->description;
    }
  }
  if (Status s = index_.EndRun(run); !s.ok()) return s;
  if (Status s = index_.Commit(); !s.ok()) return s;
  if (!bitmap_keys_.empty()) {
    // Under the lock still: the snapshot holds what this run committed.
    Result<std::unique_ptr<StoredBitmaps>> stored = StoredBitmaps::Open(index_.path(), std::move(bitmap_keys_));
    if (stored.ok()) out->stored_bitmaps = std::move(*stored);
  }
  return Status::Ok();
}

}  // namespace

SignatureParams SignatureParamsOf(const Options& o) { return SignatureParams::From(o); }

Result<std::unique_ptr<SignatureIndex>> OpenIndexFor(const Options& options) {
  Result<std::unique_ptr<SignatureIndex>> ix = SignatureIndex::Open(
      options.index, SignatureParamsOf(options),
      IndexOpenOptions{.lock_wait = options.lock_wait, .count_shingles = options.relation != Relation::kSimilar});
  if (!ix.ok()) return ix;
  Result<int64_t> run = (*ix)->StartRun(RunOptions(options));
  if (!run.ok()) return run.status();
  return ix;
}

Result<IndexedCorpus> SignWithIndex(const SignContext& ctx, std::vector<InputFile> files, SignatureIndex& index) {
  Result<StoredInputs> stored = ReadStoredInputs(ctx.options, index);
  if (!stored.ok()) return stored.status();
  return SignWithIndex(ctx, std::move(files), index, std::move(*stored));
}

Result<IndexedCorpus> SignWithIndex(const SignContext& ctx, std::vector<InputFile> files, SignatureIndex& index,
                                    StoredInputs stored) {
  // The transaction ReadStoredInputs() began goes on, committed in batches
  // while writing.
  IndexUpdate update(ctx, index, std::move(files), std::move(stored));
  if (Status s = update.SignChanged(); !s.ok()) return s;
  return update.Finish();
}

}  // namespace neardup
