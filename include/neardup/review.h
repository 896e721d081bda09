// Review: what the review page (-f html, WriteHtml()) shows of a report.
//
// A Review is the report's groups as a reader checks them before deleting
// anything: the clusters, largest first (pairs mode: each pair as a group of
// two, its first document kept), each with its kept document and every other
// member's similarity to it and folded word diff against it (word_diff.h).
// The diffs need the texts, so the scan's documents are read again
// (BuildReview); the writer only renders the value.
//
// Invariants: groups follow the report (pairs: one per reported pair, in
// order, ids 0, 1, ...; clusters: Cluster::id, a stable sort by size,
// largest first); members are the group's documents other than `keep`, in
// the report's order, except that BuildReview sorts a cluster's members by
// their similarity to `keep`, most similar first (a stable sort); a member
// has a diff, a span view (a containment, --relation contains|both) or a
// note saying why not (a member with the same words as the kept document
// has no diff, only a note).
//
// Thread safety: plain values; BuildReview is a pure function of its
// arguments and the file system.
//
//   Review review = BuildReview(report, options);
//   WriteHtml(report, review, out);
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "neardup/options.h"
#include "neardup/report.h"
#include "neardup/word_diff.h"

namespace neardup {

// A document of a group other than the kept one, compared with the kept one.
struct ReviewMember {
  DocId doc = 0;  // in Report::docs (name, size, mtime, reference)
  // Pairs mode: the pair's Jaccard, or its estimate when no Jaccard was
  // computed. Clusters mode: the exact Jaccard of the member's and the kept
  // document's texts read again. < 0: not known (a text not read again).
  double similarity = -1;
  // The folded word diff of the kept document's token text (normalized
  // words) against the member's; none when either could not be read again.
  std::optional<std::vector<FoldedRun>> diff;
  bool capped = false;  // a token text compared was cut at max_words words
  std::string note;     // why there is no diff ("no diff: ..."), when !diff
  // The member is not like the kept document itself: its score against it
  // (the exact Jaccard when known, else the estimate) is under the
  // threshold, as --cluster-by connected allows, or as the exact Jaccard of
  // texts read again shows after --verify signature; removing it on this
  // cluster's say is not safe. Marked in every mode.
  bool unlike_kept = false;
  // --relation contains|both, texts read again: which of the two documents
  // is contained in the other by the scan's relation rule (kSimilar: neither,
  // or the pair is a near copy), its containments both ways (< 0: not
  // known), and for a containment the span view of the container's words
  // with the contained document's span marked (MarkSpan), in place of the
  // word diff.
  enum class Way : uint8_t { kNeither, kMemberInKept, kKeptInMember };
  Way contained = Way::kNeither;
  double member_in_kept = -1;  // C(member, kept) = |M ∩ K| / |M|
  double kept_in_member = -1;  // C(kept, member) = |M ∩ K| / |K|
  std::optional<std::vector<SpanRun>> span;
};

struct ReviewGroup {
  uint32_t id = 0;
  DocId keep = 0;  // the kept document (pairs mode: the pair's first)
  std::vector<ReviewMember> members;
};

struct Review {
  bool texts_read = false;  // the documents were read again
  // The texts are those exact verification proved the pairs on, kept from
  // its read (Report::kept_texts), not read once more for the review.
  bool texts_proved = false;
  uint64_t max_words = kDefaultMaxWords;  // words compared per document
  std::vector<ReviewGroup> groups;
};

// The review of `report` without reading anything: pair similarities, no
// diffs, every member noted "the documents were not read again".
Review ReviewWithoutTexts(const Report& report);

// The review of `report`, a scan with `options`: each document shown is read
// again as the scan read it (a text file by path; a JSONL document by its
// file and line, Report::places, each file once per batch of groups, in line
// order), its token text capped at `max_words` words. A document that cannot
// be read again (standard input, a stream, a file changed or gone, a JSONL
// line that no longer hashes as signed) gets a note, not a diff; this is not
// an error. A JSONL report without places: ReviewWithoutTexts(report).
// Pairs mode, each pair's exact Jaccard reported: a document whose token
// text the scan's verification kept (Report::kept_texts, Options::keep_texts)
// is shown as verification read it, not read again (Review::texts_proved),
// and each pair is judged by its reported Jaccard.
// `progress`, when set, is called after each batch of groups is compared
// (see BuildReviewInBatches), from the calling thread, with the groups done
// and their total (for a moving counter: it may be called often).
// REQUIRES: `options` are those of the scan that made `report`.
using ReviewProgress = std::function<void(uint64_t done, uint64_t total)>;
Review BuildReview(const Report& report, const Options& options, uint64_t max_words = kDefaultMaxWords,
                   const ReviewProgress& progress = {});

// The same review a batch of groups at a time, for a caller that need not
// hold it whole (the review page renders each batch as it comes, HtmlReview
// in writers.h): `sink` is called from the calling thread with each batch,
// in order, which it may take from. Returns the review without its groups
// (texts_read, max_words). Each document is read at most once a batch; a
// batch holds a bounded amount of text. Text files: each batch is read and
// compared by one of Options::threads threads, several batches at once (at
// most one a thread and one more held); a document is read once for the
// batches in flight, and held for later ones within a few megabytes (those
// shown again soonest kept). JSONL: a batch's files are read in turn, its
// groups compared by the threads.
using ReviewSink = std::function<void(std::vector<ReviewGroup>& batch)>;
Review BuildReviewInBatches(const Report& report, const Options& options, uint64_t max_words, const ReviewSink& sink,
                            const ReviewProgress& progress = {});

}  // namespace neardup
