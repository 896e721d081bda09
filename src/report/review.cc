// The groups of a review, before any text is read again (review.h).
#include "neardup/review.h"

#include <algorithm>
#include <utility>

#include "lsh/similarity.h"

namespace neardup {
namespace {

constexpr const char* kNotTextInput = "no diff: the documents were not read again";

ReviewMember MemberOf(DocId doc, double similarity) {
  ReviewMember m;
  m.doc = doc;
  m.similarity = similarity;
  m.note = kNotTextInput;
  return m;
}

}  // namespace

Review ReviewWithoutTexts(const Report& report) {
  Review review;
  if (report.params.mode == Mode::kPairs) {
    uint32_t n = 0;
    for (const ReportedPair& pair : report.pairs) {
      ReviewGroup g;
      g.id = n++;
      g.keep = pair.a;
      g.members.push_back(MemberOf(pair.b, pair.jaccard >= 0 ? pair.jaccard : pair.estimate));
      review.groups.push_back(std::move(g));
    }
    return review;
  }
  // Every member whose score with the kept document is below the threshold
  // is marked, in every mode: connected components hold members unlike the
  // kept document, and an estimate alone (--verify signature) may pass a
  // member whose exact Jaccard is below it (CompareClusters marks those
  // once it has the texts).
  // With --relation contains|both a contained document is removable only
  // when it is contained in the kept document itself (cluster.h): its low
  // Jaccard does not make it unlike.
  const bool relations = report.params.relation != Relation::kSimilar;
  std::vector<char> unlike(report.docs.size(), 0);
  for (const Removal& r : report.removable) {
    const double score = r.jaccard >= 0 ? r.jaccard : r.estimate;
    const bool contained = relations && report.docs[r.doc].contained;
    unlike[r.doc] = MeetsThreshold(score, report.params.threshold) || contained ? 0 : 1;
  }
  std::vector<const Cluster*> order;
  for (const Cluster& c : report.clusters) order.push_back(&c);
  std::stable_sort(order.begin(), order.end(),
                   [](const Cluster* x, const Cluster* y) { return x->members.size() > y->members.size(); });
  for (const Cluster* c : order) {
    ReviewGroup g;
    g.id = c->id;
    g.keep = c->keep;
    for (const DocId id : c->members) {
      if (id == c->keep) continue;
      g.members.push_back(MemberOf(id, -1));
      g.members.back().unlike_kept = unlike[id] != 0;
    }
    review.groups.push_back(std::move(g));
  }
  return review;
}

}  // namespace neardup
