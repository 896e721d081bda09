// BuildReview: the review's texts, read again as the scan read them.
#include "scan/review.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/parallel.h"
#include "lsh/relation.h"
#include "lsh/similarity.h"
#include "scan/explain.h"
#include "sign/document.h"
#include "sign/jsonl_doc_reader.h"
#include "sign/minhash.h"
#include "text/document_source.h"
#include "text/word_diff.h"
#include "verify/kept_texts.h"

namespace neardup {
namespace {

// A document read again for the review.
struct ReadAgain {
  bool ok = false;
  std::string note;    // why not, when !ok
  DocReading reading;  // its token text moved into `words`
  DiffWords words;     // the token text's words, split once for every diff
};

// `doc` read again, with its words split for the diffs.
ReadAgain ReadOk(DocReading reading) {
  ReadAgain doc;
  doc.ok = true;
  doc.words = DiffWords(std::move(reading.doc.token_text));
  doc.reading = std::move(reading);
  return doc;
}

// `id` as exact verification read it (Report::kept_texts), for a review
// that compares no shingle sets (ComparesSets()): the text the pair was
// proved on, without reading the document again. Nullopt when none is kept
// (or it cannot be read back: the document is then read again).
std::optional<ReadAgain> KeptReading(const Report& report, DocId id, uint64_t max_words) {
  if (report.kept_texts == nullptr || !report.kept_texts->Has(id)) return std::nullopt;
  Result<KeptText> kept = report.kept_texts->Text(id, max_words);
  if (!kept.ok()) return std::nullopt;
  DocReading reading;
  reading.doc.name = report.docs[id].name;
  reading.doc.token_text = std::move(kept->token_text);
  reading.doc.token_text_capped = kept->capped;
  return ReadOk(std::move(reading));
}

// The review's documents of a batch of groups, each read again once and
// held while the batch's groups are compared (Read() from any number of
// threads at once).
class HeldTexts {
 public:
  const ReadAgain& Read(DocId id) const {
    auto it = held_.find(id);
    return it != held_.end() ? *it->second : missing_;
  }
  void Hold(DocId id, std::shared_ptr<const ReadAgain> doc) { held_.insert_or_assign(id, std::move(doc)); }
  void Hold(DocId id, ReadAgain doc) { Hold(id, std::make_shared<const ReadAgain>(std::move(doc))); }

 protected:
  std::unordered_map<DocId, std::shared_ptr<const ReadAgain>> held_;

 private:
  const ReadAgain missing_{.ok = false, .note = "no diff: not read again", .reading = {}, .words = {}};
};

// Text files, read again by path, a batch by one worker of the run's.
class FileTexts {
 public:
  FileTexts(const Report& report, const Options& options, uint64_t max_words, bool want_sets, FileSystem& fs,
            int workers)
      : report_(report),
        options_(options),
        max_words_(max_words),
        want_sets_(want_sets),
        fs_(fs),
        minhasher_(options.num_perm, options.seed) {
    readers_.resize(static_cast<size_t>(workers));
  }

  bool want_sets() const { return want_sets_; }

  // Document `id` read again by worker `w`, through its own reader.
  ReadAgain Read(int w, DocId id) {
    std::unique_ptr<DocumentReader>& reader = readers_[static_cast<size_t>(w)];
    if (reader == nullptr) reader = std::make_unique<DocumentReader>(options_, minhasher_);
    return ReadOne(*reader, id);
  }

 private:
  ReadAgain ReadOne(DocumentReader& reader, DocId id) const {
    if (!want_sets_) {
      if (std::optional<ReadAgain> kept = KeptReading(report_, id, max_words_)) return std::move(*kept);
    }
    const DocEntry& entry = report_.docs[id];
    ReadAgain doc;
    if (entry.name == "-") {
      doc.note = "no diff: standard input cannot be read again";
      return doc;
    }
    Result<DocReading> r = ReadDocumentFileUnsigned(reader, options_, fs_, entry.name, max_words_, want_sets_);
    if (!r.ok()) {
      doc.note = "no diff: " + r.status().message();
      return doc;
    }
    return ReadOk(std::move(*r));
  }

  const Report& report_;
  const Options& options_;
  uint64_t max_words_;
  bool want_sets_;  // the shingle sets are compared (ComparesSets())
  FileSystem& fs_;
  MinHasher minhasher_;
  std::vector<std::unique_ptr<DocumentReader>> readers_;  // one a worker, made on its first document
};

// JSONL: the documents of a batch of groups, read again file by file, each
// file once, in line order, with the checks of --exact: the file's stat key
// before and after, and each document's content hash as signed.
class JsonlSource : public HeldTexts {
 public:
  JsonlSource(const Report& report, const Options& options, uint64_t max_words, bool want_sets, FileSystem& fs)
      : report_(report),
        options_(options),
        max_words_(max_words),
        want_sets_(want_sets),
        fs_(fs),
        minhasher_(options.num_perm, options.seed),
        parser_(options, minhasher_) {}

  bool want_sets() const { return want_sets_; }

  // Reads `docs` again, in place of those held (or takes them as
  // verification read them, KeptReading()).
  void Load(std::vector<DocId> docs) {
    held_.clear();
    if (!want_sets_) {
      std::erase_if(docs, [&](DocId id) {
        std::optional<ReadAgain> kept = KeptReading(report_, id, max_words_);
        if (kept.has_value()) Hold(id, std::move(*kept));
        return kept.has_value();
      });
    }
    std::sort(docs.begin(), docs.end(), [&](DocId x, DocId y) {
      const DocPlace& a = report_.places[x];
      const DocPlace& b = report_.places[y];
      return a.file != b.file ? a.file < b.file : a.line < b.line;
    });
    docs.erase(std::unique(docs.begin(), docs.end()), docs.end());
    for (size_t i = 0; i < docs.size();) {
      size_t end = i;
      while (end < docs.size() && report_.places[docs[end]].file == report_.places[docs[i]].file) ++end;
      LoadFile(std::vector<DocId>(docs.begin() + static_cast<std::ptrdiff_t>(i),
                                  docs.begin() + static_cast<std::ptrdiff_t>(end)));
      i = end;
    }
  }

 private:
  // Reads the wanted documents of one file (in line order) again.
  void LoadFile(const std::vector<DocId>& wanted) {
    const SourceFile& sf = report_.source_files[report_.places[wanted[0]].file];
    auto fail_all = [&](const std::string& note) {
      for (DocId id : wanted) {
        Hold(id, ReadAgain{.ok = false, .note = note, .reading = {}, .words = {}});
      }
    };
    if (sf.stream) return fail_all("no diff: a stream cannot be read again");
    InputFile f;
    f.path = sf.path;
    f.size = sf.size;
    f.mtime_ns = sf.mtime_ns;
    f.ctime_ns = sf.ctime_ns;
    f.identity = FileIdentity{.dev = sf.dev, .ino = sf.ino, .stream = false};
    if (Status s = CheckUnchanged(fs_, f); !s.ok()) return fail_all("no diff: " + s.message());
    Result<std::unique_ptr<ByteReader>> in = OpenAgain(fs_, f, nullptr, options_);
    if (!in.ok()) return fail_all("no diff: " + f.path + ": cannot be read again (" + in.status().message() + ")");
    JsonlLines lines(std::move(*in), options_.max_line);
    JsonlLines::Line line;
    JsonlDoc doc;
    size_t next = 0;
    while (next < wanted.size()) {  // the rest of the file is not needed
      Result<bool> more = lines.Next(&line);
      if (!more.ok())
        return fail_all("no diff: " + f.path + ": cannot be read again (" + more.status().message() + ")");
      if (!*more) break;
      for (; next < wanted.size() && report_.places[wanted[next]].line == line.number; ++next) {
        Hold(wanted[next], ReadLine(f.path, line, wanted[next], &doc));
      }
    }
    for (size_t k = next; k < wanted.size(); ++k) {
      Hold(wanted[k], ReadAgain{.ok = false,
                                .note = "no diff: " + f.path + ": changed since it was signed (a line is gone)",
                                .reading = {},
                                .words = {}});
    }
    if (Status s = CheckUnchanged(fs_, f); !s.ok()) fail_all("no diff: " + s.message());
  }

  // One wanted line read again: its document, if it is the one signed.
  ReadAgain ReadLine(const std::string& path, const JsonlLines::Line& line, DocId id, JsonlDoc* doc) {
    ReadAgain out;
    const DocPlace& place = report_.places[id];
    const std::string where = path + ":" + std::to_string(line.number);
    bool has = false;
    if (!line.too_long && parser_.Parse(line.text, doc, &has).ok() && has) {
      DocReading reading = ReadDocumentText(options_, parser_, doc->text, max_words_, want_sets_);
      if (reading.content.low == place.content_low && reading.content.high == place.content_high) {
        return ReadOk(std::move(reading));
      }
    }
    out.note = "no diff: " + where + ": changed since it was signed";
    return out;
  }

  const Report& report_;
  const Options& options_;
  uint64_t max_words_;
  bool want_sets_;  // the shingle sets are compared (ComparesSets())
  FileSystem& fs_;
  MinHasher minhasher_;
  JsonlDocReader parser_;
};

// `m` with its diff against the kept document, or with the note saying why
// there is none. A containment (m.contained) gets the span view of its
// container's words instead of the diff.
ReviewMember Compared(ReviewMember m, const ReadAgain& kept, const ReadAgain& member) {
  if (!kept.ok || !member.ok) {
    m.note = !member.ok ? member.note : kept.note;
    return m;
  }
  m.note.clear();
  m.capped = kept.reading.doc.token_text_capped || member.reading.doc.token_text_capped;
  if (m.contained != ReviewMember::Way::kNeither) {
    const bool member_inside = m.contained == ReviewMember::Way::kMemberInKept;
    std::vector<SpanRun> span =
        MarkSpan(member_inside ? WordDiff(kept.words, member.words) : WordDiff(member.words, kept.words));
    if (!span.empty()) {
      m.span = std::move(span);
      return m;
    }
  }
  m.diff = FoldedWordDiff(kept.words, member.words);
  // The same words: a diff would show only "N unchanged words".
  const bool same = std::none_of(m.diff->begin(), m.diff->end(), [](const FoldedRun& run) {
    return run.kind == FoldedRun::Kind::kRemoved || run.kind == FoldedRun::Kind::kAdded;
  });
  if (same) {
    m.diff.reset();
    m.note = m.capped ? "no diff: the words compared are the same" : "no diff: the same words (a copy)";
  }
  return m;
}

// Most similar first; unknown similarities last; ties in the report's order.
void SortBySimilarity(std::vector<ReviewMember>* members) {
  std::stable_sort(members->begin(), members->end(),
                   [](const ReviewMember& x, const ReviewMember& y) { return x.similarity > y.similarity; });
}

// The groups compared so far, told to the caller's ReviewProgress.
struct GroupCounter {
  const ReviewProgress& tell;
  uint64_t total = 0;
  uint64_t done = 0;
  void Done(uint64_t groups) {
    done += groups;
    if (tell) tell(done, total);
  }
};

// Whether `m` is like the kept document by `rule`, from the exact overlap
// of their texts (kept first), and which of the two contains the other.
// Without --relation: like when the Jaccard reaches the threshold. With it:
// like when the rule reports the pair as near copies or as the member
// contained in the kept document; a kept document contained in the member
// is not like it (the member, its container, is not the one to remove).
void JudgeMember(const RelationRule& rule, const Overlap& overlap, ReviewMember& m) {
  if (rule.relation == Relation::kSimilar) {
    if (!MeetsThreshold(overlap.Jaccard(), rule.threshold)) m.unlike_kept = true;
    return;
  }
  m.kept_in_member = overlap.ContainmentOfA();
  m.member_in_kept = overlap.ContainmentOfB();
  const std::optional<PairKind> kind = rule.Judge(overlap);
  if (kind == PairKind::kBInA) m.contained = ReviewMember::Way::kMemberInKept;
  if (kind == PairKind::kAInB) m.contained = ReviewMember::Way::kKeptInMember;
  if (!kind.has_value() || kind == PairKind::kAInB) m.unlike_kept = true;
}

// One group's members against its kept document. Pairs mode: the pair's
// similarity stays the report's; a pair passed on its estimate alone
// (--verify signature) may be below the threshold by its texts: marked.
// Clusters mode: the exact Jaccard of the two texts is the similarity, and
// a member below the threshold with the kept document itself, whatever the
// run's verification said, is marked, never to be removed on its say.
// With --relation contains|both the rule judges each member (JudgeMember).
// Without `sets` (ComparesSets()), each pair's exact Jaccard is the report's.
void CompareGroup(const HeldTexts& texts, bool pairs_mode, bool sets, const RelationRule& rule, ReviewGroup& g) {
  const ReadAgain& kept = texts.Read(g.keep);
  for (ReviewMember& m : g.members) {
    const ReadAgain& member = texts.Read(m.doc);
    if (kept.ok && member.ok && sets) {
      const Overlap overlap = OverlapOf(kept.reading.shingles, member.reading.shingles);
      if (!pairs_mode) m.similarity = overlap.Jaccard();
      JudgeMember(rule, overlap, m);
    } else if (kept.ok && member.ok && !MeetsThreshold(m.similarity, rule.threshold)) {
      m.unlike_kept = true;  // as JudgeMember judges near copies
    }
    m = Compared(std::move(m), kept, member);
  }
  if (!pairs_mode) SortBySimilarity(&g.members);
}

// Whether the review compares the documents' shingle sets: unless every
// group is a pair whose exact Jaccard the scan reported, which is all
// JudgeMember would tell of near copies (a pair reported holds it).
bool ComparesSets(const Report& report) {
  if (report.params.mode != Mode::kPairs || report.params.relation != Relation::kSimilar) return true;
  return std::any_of(report.pairs.begin(), report.pairs.end(), [](const ReportedPair& p) { return p.jaccard < 0; });
}

// Where a batch of groups ends: at `docs` documents or `bytes` of their
// text, so that the texts held stay bounded.
struct BatchLimits {
  size_t docs = 0;
  uint64_t bytes = 0;
};
// Text files: small batches, each read and compared by one of the run's
// threads, a few at once. JSONL: each batch reads each of its files once
// from the start, so batches as large as the memory allows.
constexpr BatchLimits kFileBatch{.docs = 512, .bytes = uint64_t{3} << 19};
constexpr BatchLimits kJsonlBatch{.docs = 65536, .bytes = uint64_t{64} << 20};

// A batch of groups and the documents they show, each once, sorted.
struct Batch {
  std::vector<ReviewGroup> groups;
  std::vector<DocId> docs;
};

// The batch of `groups` from `*next` on, within `limits`; moves its groups
// out and advances `*next` past them.
Batch TakeBatch(const Report& report, std::vector<ReviewGroup>& groups, size_t* next, BatchLimits limits) {
  Batch batch;
  uint64_t bytes = 0;
  // A compressed file's text counts 4 times its size, as signing guesses it.
  auto take = [&](DocId d) {
    const DocEntry& e = report.docs[d];
    batch.docs.push_back(d);
    bytes += CompressedName(e.name) ? 4 * e.size : e.size;
  };
  size_t& i = *next;
  for (; i < groups.size() && batch.docs.size() < limits.docs && bytes < limits.bytes; ++i) {
    take(groups[i].keep);
    for (const ReviewMember& m : groups[i].members) take(m.doc);
    batch.groups.push_back(std::move(groups[i]));
  }
  std::sort(batch.docs.begin(), batch.docs.end());
  batch.docs.erase(std::unique(batch.docs.begin(), batch.docs.end()), batch.docs.end());
  return batch;
}

// JSONL: the groups a batch at a time, each batch to `sink` once compared.
// Each batch's documents are read again once each, file by file, then its
// groups compared by the run's threads.
void CompareJsonlInBatches(const Report& report, const Options& options, JsonlSource& texts,
                           std::vector<ReviewGroup> groups, const ReviewSink& sink, GroupCounter& counter) {
  const bool pairs_mode = report.params.mode == Mode::kPairs;
  const bool sets = texts.want_sets();
  const RelationRule rule = RelationRule::Of(options);
  const Workers workers{.threads = Workers::Resolve(options.threads), .tick = {}, .cancel = nullptr};
  for (size_t i = 0; i < groups.size();) {
    Batch batch = TakeBatch(report, groups, &i, kJsonlBatch);
    texts.Load(std::move(batch.docs));
    ParallelFor(workers, batch.groups.size(),
                [&](int, size_t k) { CompareGroup(texts, pairs_mode, sets, rule, batch.groups[k]); });
    counter.Done(batch.groups.size());
    sink(batch.groups);
  }
}

// The bytes `doc` holds.
uint64_t HeldBytes(const ReadAgain& doc) {
  return sizeof doc + doc.note.capacity() + doc.words.bytes() + doc.reading.shingles.capacity() * sizeof(uint64_t) +
         doc.reading.doc.name.capacity();
}

// Text files: each document of the review read again once, by whichever of
// the run's threads first needs it, and held while later batches show it,
// within a budget of bytes: past it, the documents shown again soonest are
// kept (a document dropped is read again when a later batch shows it).
// Take() from any number of threads at once; Release() from one.
class SharedTexts {
 public:
  SharedTexts(FileTexts& files, const Report& report, const std::vector<Batch>& batches, uint64_t budget)
      : files_(files), batches_(batches), budget_(budget), uses_(report.docs.size()), slots_(report.docs.size()) {
    for (size_t k = 0; k < batches.size(); ++k) {
      for (const DocId d : batches[k].docs) uses_[d].push_back(static_cast<uint32_t>(k));
    }
  }

  // The documents of batch `k`, those not held read by worker `w`.
  HeldTexts Take(int w, size_t k) {
    HeldTexts texts;
    for (const DocId d : batches_[k].docs) {
      Slot& slot = slots_[d];
      const std::lock_guard<std::mutex> lock(slot.mu);  // one reader a document
      if (slot.doc == nullptr) slot.doc = std::make_shared<const ReadAgain>(files_.Read(w, d));
      texts.Hold(d, slot.doc);
    }
    return texts;
  }

  // Once batch `k` is done (batches in order): drops the documents no later
  // batch shows, then those shown again last, past the budget.
  void Release(size_t k) {
    for (const DocId d : batches_[k].docs) {
      if (!slots_[d].kept) held_.push_back(d);
      slots_[d].kept = true;
    }
    std::vector<std::pair<uint32_t, DocId>> next;  // (the next batch showing it, the document)
    for (const DocId d : held_) {
      const std::vector<uint32_t>& uses = uses_[d];
      const auto later = std::upper_bound(uses.begin(), uses.end(), static_cast<uint32_t>(k));
      if (later == uses.end()) {
        Drop(d);
      } else {
        next.emplace_back(*later, d);
      }
    }
    std::sort(next.begin(), next.end());
    held_.clear();
    uint64_t bytes = 0;
    for (const auto& [use, d] : next) {
      const uint64_t size = Bytes(d);
      if (bytes + size > budget_) {
        Drop(d);
        continue;
      }
      bytes += size;
      held_.push_back(d);
    }
  }

 private:
  struct Slot {
    std::mutex mu;
    std::shared_ptr<const ReadAgain> doc;  // null until read, and once dropped
    bool kept = false;                     // in held_ (Release()'s thread only)
  };

  uint64_t Bytes(DocId d) {
    const std::lock_guard<std::mutex> lock(slots_[d].mu);
    return slots_[d].doc == nullptr ? 0 : HeldBytes(*slots_[d].doc);
  }
  void Drop(DocId d) {
    slots_[d].kept = false;
    const std::lock_guard<std::mutex> lock(slots_[d].mu);
    slots_[d].doc.reset();
  }

  FileTexts& files_;
  const std::vector<Batch>& batches_;
  const uint64_t budget_;
  std::vector<std::vector<uint32_t>> uses_;  // by DocId: the batches showing it, ascending
  std::vector<Slot> slots_;                  // by DocId
  std::vector<DocId> held_;                  // kept past their batches
};

// The bytes of documents held for later batches (SharedTexts): memory
// against reads. Reviewing /usr/share/man/man1 (11,106 pairs of 10,071
// documents) reads 15,366 documents with none held, 13,986 with 8 MB,
// 13,347 with 16 MB, and each document once only with 128 MB (peak RSS 101,
// 111, 120 and 189 MB). None: the 8 MB saved about 2% of the page's CPU for
// 10 MB more memory.
constexpr uint64_t kHeldTextBytes = 0;

// Text files: the groups a batch at a time, each batch compared whole by
// one of the run's threads, several batches at once, and given to `sink` in
// order on the calling thread: no thread waits for the slowest document or
// pair of a batch, and no batch waits for the sink. Each document is read
// again once, while held (SharedTexts); at most one batch a thread, and one
// more, is compared at a time.
// REQUIRES: `files` has a reader for each of the run's threads.
void CompareFilesInBatches(const Report& report, const Options& options, FileTexts& files,
                           std::vector<ReviewGroup> groups, const ReviewSink& sink, GroupCounter& counter) {
  const bool pairs_mode = report.params.mode == Mode::kPairs;
  const bool sets = files.want_sets();
  const RelationRule rule = RelationRule::Of(options);
  const int threads = Workers::Resolve(options.threads);
  std::vector<Batch> batches;
  for (size_t i = 0; i < groups.size();) batches.push_back(TakeBatch(report, groups, &i, kFileBatch));
  SharedTexts texts(files, report, batches, kHeldTextBytes);
  OrderedWork<size_t> work(
      Workers{.threads = threads, .tick = {}, .cancel = nullptr}, static_cast<size_t>(threads) + 1,
      [&](int w, size_t& k) {
        const HeldTexts held = texts.Take(w, k);
        for (ReviewGroup& g : batches[k].groups) CompareGroup(held, pairs_mode, sets, rule, g);
      },
      [&](size_t& k) {
        texts.Release(k);
        counter.Done(batches[k].groups.size());
        sink(batches[k].groups);
        batches[k].groups = {};
      });
  for (size_t k = 0; k < batches.size(); ++k) work.Submit(k);
  work.Finish();
}

}  // namespace

Review BuildReviewInBatches(const Report& report, const Options& options, uint64_t max_words, FileSystem& fs,
                            const ReviewSink& sink, const ReviewProgress& progress) {
  Review review = ReviewWithoutTexts(report);
  std::vector<ReviewGroup> groups = std::move(review.groups);
  review.groups.clear();
  const bool jsonl = RowsAreDocuments(options.input) && report.places.size() == report.docs.size();
  if (options.input != InputFormat::kText && !jsonl) {
    if (!groups.empty()) sink(groups);
    return review;
  }
  review.texts_read = true;
  review.max_words = max_words;
  GroupCounter counter{.tell = progress, .total = groups.size(), .done = 0};
  const bool sets = ComparesSets(report);
  review.texts_proved = !sets && report.kept_texts != nullptr;
  if (jsonl) {
    JsonlSource texts(report, options, max_words, sets, fs);
    CompareJsonlInBatches(report, options, texts, std::move(groups), sink, counter);
  } else {
    FileTexts files(report, options, max_words, sets, fs, Workers::Resolve(options.threads));
    CompareFilesInBatches(report, options, files, std::move(groups), sink, counter);
  }
  return review;
}

Review BuildReview(const Report& report, const Options& options, uint64_t max_words, FileSystem& fs,
                   const ReviewProgress& progress) {
  std::vector<ReviewGroup> groups;
  Review review = BuildReviewInBatches(
      report, options, max_words, fs,
      [&groups](std::vector<ReviewGroup>& batch) {
        for (ReviewGroup& g : batch) groups.push_back(std::move(g));
      },
      progress);
  review.groups = std::move(groups);
  return review;
}

Review BuildReviewInBatches(const Report& report, const Options& options, uint64_t max_words, const ReviewSink& sink,
                            const ReviewProgress& progress) {
  return BuildReviewInBatches(report, options, max_words, FileSystem::Default(), sink, progress);
}

Review BuildReview(const Report& report, const Options& options, uint64_t max_words, const ReviewProgress& progress) {
  return BuildReview(report, options, max_words, FileSystem::Default(), progress);
}

}  // namespace neardup
