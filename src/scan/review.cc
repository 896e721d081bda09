// BuildReview: the review's texts, read again as the scan read them.
#include "scan/review.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "lsh/similarity.h"
#include "scan/explain.h"
#include "sign/minhash.h"

namespace neardup {
namespace {

// A document read again for the review.
struct ReadAgain {
  bool ok = false;
  std::string note;  // why not, when !ok
  DocReading reading;
};

class TextSource {
 public:
  TextSource(const Options& options, uint64_t max_words, FileSystem& fs)
      : options_(options), max_words_(max_words), fs_(fs), minhasher_(options.num_perm, options.seed) {}

  ReadAgain Read(const DocEntry& entry) const {
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

// Pairs mode: each pair's documents; pairs come sorted by their first
// document, which is read once per run of pairs.
std::vector<ReviewGroup> ComparePairs(const Report& report, const TextSource& texts,
                                      std::vector<ReviewGroup> groups) {
  ReadAgain kept;
  DocId kept_id = 0;
  bool have_kept = false;
  for (ReviewGroup& g : groups) {
    if (!have_kept || kept_id != g.keep) {
      kept = texts.Read(report.docs[g.keep]);
      kept_id = g.keep;
      have_kept = true;
    }
    for (ReviewMember& m : g.members) {
      const ReadAgain member = texts.Read(report.docs[m.doc]);
      m = Compared(std::move(m), kept, member);
    }
  }
  return groups;
}

// Clusters mode: each member against its cluster's kept document, with the
// exact Jaccard of the two texts as its similarity.
std::vector<ReviewGroup> CompareClusters(const Report& report, const TextSource& texts,
                                         std::vector<ReviewGroup> groups) {
  for (ReviewGroup& g : groups) {
    const ReadAgain kept = texts.Read(report.docs[g.keep]);
    for (ReviewMember& m : g.members) {
      const ReadAgain member = texts.Read(report.docs[m.doc]);
      if (kept.ok && member.ok) m.similarity = ExactJaccard(kept.reading.shingles, member.reading.shingles);
      m = Compared(std::move(m), kept, member);
    }
    SortBySimilarity(&g.members);
  }
  return groups;
}

}  // namespace

Review BuildReview(const Report& report, const Options& options, uint64_t max_words, FileSystem& fs) {
  Review review = ReviewWithoutTexts(report);
  if (options.input != InputFormat::kText) return review;
  review.texts_read = true;
  review.max_words = max_words;
  const TextSource texts(options, max_words, fs);
  review.groups = report.params.mode == Mode::kPairs ? ComparePairs(report, texts, std::move(review.groups))
                                                     : CompareClusters(report, texts, std::move(review.groups));
  return review;
}

Review BuildReview(const Report& report, const Options& options, uint64_t max_words) {
  return BuildReview(report, options, max_words, FileSystem::Default());
}

}  // namespace neardup
