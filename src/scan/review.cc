// BuildReview: the review's texts, read again as the scan read them.
#include "scan/review.h"

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lsh/similarity.h"
#include "scan/explain.h"
#include "sign/jsonl_doc_reader.h"
#include "sign/minhash.h"
#include "text/document_source.h"

namespace neardup {
namespace {

// A document read again for the review.
struct ReadAgain {
  bool ok = false;
  std::string note;  // why not, when !ok
  DocReading reading;
};

// Where the review's documents are read from.
class Texts {
 public:
  virtual ~Texts() = default;
  virtual ReadAgain Read(DocId id) const = 0;
};

class TextSource : public Texts {
 public:
  TextSource(const Options& options, uint64_t max_words, FileSystem& fs)
      : options_(options), max_words_(max_words), fs_(fs), minhasher_(options.num_perm, options.seed) {}

  void set_report(const Report* report) { report_ = report; }
  ReadAgain Read(DocId id) const override {
    const DocEntry& entry = report_->docs[id];
    ReadAgain doc;
    if (entry.name == "-") {
      doc.note = "no diff: standard input cannot be read again";
      return doc;
    }
    Result<DocReading> r = ReadDocumentFile(options_, minhasher_, fs_, entry.name, max_words_);
    if (!r.ok()) {
      doc.note = "no diff: " + r.status().message();
      return doc;
    }
    doc.ok = true;
    doc.reading = std::move(*r);
    return doc;
  }

 private:
  const Options& options_;
  uint64_t max_words_;
  FileSystem& fs_;
  MinHasher minhasher_;
  const Report* report_ = nullptr;
};

// JSONL: the documents of a batch of groups, read again file by file, each
// file once, in line order, with the checks of --exact: the file's stat key
// before and after, and each document's content hash as signed.
class JsonlSource : public Texts {
 public:
  JsonlSource(const Report& report, const Options& options, uint64_t max_words, FileSystem& fs)
      : report_(report),
        options_(options),
        max_words_(max_words),
        fs_(fs),
        minhasher_(options.num_perm, options.seed),
        parser_(options, minhasher_) {}

  ReadAgain Read(DocId id) const override {
    auto it = held_.find(id);
    if (it != held_.end()) return it->second;
    ReadAgain doc;
    doc.note = "no diff: not read again";
    return doc;
  }

  // Reads `docs` again, in place of those held.
  void Load(std::vector<DocId> docs) {
    held_.clear();
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
        held_[id] = ReadAgain{.ok = false, .note = note, .reading = {}};
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
    Result<std::unique_ptr<ByteReader>> in = OpenAgain(fs_, f, nullptr);
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
        held_[wanted[next]] = ReadLine(f.path, line, wanted[next], &doc);
      }
    }
    for (size_t k = next; k < wanted.size(); ++k) {
      held_[wanted[k]] = ReadAgain{
          .ok = false, .note = "no diff: " + f.path + ": changed since it was signed (a line is gone)", .reading = {}};
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
      out.reading = ReadDocumentText(options_, parser_, doc->text, max_words_);
      out.ok = out.reading.content.low == place.content_low && out.reading.content.high == place.content_high;
    }
    if (!out.ok) {
      out.reading = {};
      out.note = "no diff: " + where + ": changed since it was signed";
    }
    return out;
  }

  const Report& report_;
  const Options& options_;
  uint64_t max_words_;
  FileSystem& fs_;
  MinHasher minhasher_;
  JsonlDocReader parser_;
  std::unordered_map<DocId, ReadAgain> held_;
};

// `m` with its diff against the kept document, or with the note saying why
// there is none.
ReviewMember Compared(ReviewMember m, const ReadAgain& kept, const ReadAgain& member) {
  if (!kept.ok || !member.ok) {
    m.note = !member.ok ? member.note : kept.note;
    return m;
  }
  m.note.clear();
  m.diff = FoldDiff(WordDiff(kept.reading.doc.token_text, member.reading.doc.token_text));
  m.capped = kept.reading.doc.token_text_capped || member.reading.doc.token_text_capped;
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
  void Done() {
    ++done;
    if (tell) tell(done, total);
  }
};

// Pairs mode: each pair's documents; pairs come sorted by their first
// document, which is read once per run of pairs.
std::vector<ReviewGroup> ComparePairs(const Texts& texts, std::vector<ReviewGroup> groups, double threshold,
                                      GroupCounter& counter) {
  ReadAgain kept;
  DocId kept_id = 0;
  bool have_kept = false;
  for (ReviewGroup& g : groups) {
    if (!have_kept || kept_id != g.keep) {
      kept = texts.Read(g.keep);
      kept_id = g.keep;
      have_kept = true;
    }
    for (ReviewMember& m : g.members) {
      const ReadAgain member = texts.Read(m.doc);
      // A pair passed on its estimate alone (--verify signature) may be
      // below the threshold by its texts: marked.
      if (kept.ok && member.ok &&
          !MeetsThreshold(ExactJaccard(kept.reading.shingles, member.reading.shingles), threshold)) {
        m.unlike_kept = true;
      }
      m = Compared(std::move(m), kept, member);
    }
    counter.Done();
  }
  return groups;
}

// Clusters mode: each member against its cluster's kept document, with the
// exact Jaccard of the two texts as its similarity.
std::vector<ReviewGroup> CompareClusters(const Texts& texts, std::vector<ReviewGroup> groups, double threshold,
                                         GroupCounter& counter) {
  for (ReviewGroup& g : groups) {
    const ReadAgain kept = texts.Read(g.keep);
    for (ReviewMember& m : g.members) {
      const ReadAgain member = texts.Read(m.doc);
      if (kept.ok && member.ok) {
        m.similarity = ExactJaccard(kept.reading.shingles, member.reading.shingles);
        // Below the threshold with the kept document itself, whatever the
        // run's verification said: marked, never to be removed on its say.
        if (!MeetsThreshold(m.similarity, threshold)) m.unlike_kept = true;
      }
      m = Compared(std::move(m), kept, member);
    }
    SortBySimilarity(&g.members);
    counter.Done();
  }
  return groups;
}

std::vector<ReviewGroup> Compare(const Report& report, const Texts& texts, std::vector<ReviewGroup> groups,
                                 GroupCounter& counter) {
  return report.params.mode == Mode::kPairs
             ? ComparePairs(texts, std::move(groups), report.params.threshold, counter)
             : CompareClusters(texts, std::move(groups), report.params.threshold, counter);
}

// JSONL: the groups a batch at a time, so that
// the texts held stay bounded; each batch reads each of its files once.
std::vector<ReviewGroup> CompareJsonl(const Report& report, const Options& options, uint64_t max_words, FileSystem& fs,
                                      std::vector<ReviewGroup> groups, GroupCounter& counter) {
  // A batch ends at kBatchDocs documents or kBatchBytes of their text: what
  // it holds is bounded, and each file is read once per batch, not once per
  // document.
  constexpr size_t kBatchDocs = 65536;
  constexpr uint64_t kBatchBytes = uint64_t{64} << 20;
  JsonlSource texts(report, options, max_words, fs);
  std::vector<ReviewGroup> out;
  out.reserve(groups.size());
  for (size_t i = 0; i < groups.size();) {
    std::vector<ReviewGroup> batch;
    std::vector<DocId> docs;
    uint64_t bytes = 0;
    for (; i < groups.size() && docs.size() < kBatchDocs && bytes < kBatchBytes; ++i) {
      docs.push_back(groups[i].keep);
      bytes += report.docs[groups[i].keep].size;
      for (const ReviewMember& m : groups[i].members) {
        docs.push_back(m.doc);
        bytes += report.docs[m.doc].size;
      }
      batch.push_back(std::move(groups[i]));
    }
    texts.Load(std::move(docs));
    for (ReviewGroup& g : Compare(report, texts, std::move(batch), counter)) out.push_back(std::move(g));
  }
  return out;
}

}  // namespace

Review BuildReview(const Report& report, const Options& options, uint64_t max_words, FileSystem& fs,
                   const ReviewProgress& progress) {
  Review review = ReviewWithoutTexts(report);
  const bool jsonl = options.input == InputFormat::kJsonl && report.places.size() == report.docs.size();
  if (options.input != InputFormat::kText && !jsonl) return review;
  review.texts_read = true;
  review.max_words = max_words;
  GroupCounter counter{.tell = progress, .total = review.groups.size(), .done = 0};
  if (jsonl) {
    review.groups = CompareJsonl(report, options, max_words, fs, std::move(review.groups), counter);
    return review;
  }
  TextSource texts(options, max_words, fs);
  texts.set_report(&report);
  review.groups = Compare(report, texts, std::move(review.groups), counter);
  return review;
}

Review BuildReview(const Report& report, const Options& options, uint64_t max_words, const ReviewProgress& progress) {
  return BuildReview(report, options, max_words, FileSystem::Default(), progress);
}

}  // namespace neardup
