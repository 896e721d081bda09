// Verify: candidate pairs -> the pairs that are reported (the verification
// stage), by the chosen --verify.
//
//  - signature: the candidates as found (their estimate reached the
//    threshold); nothing is read again.
//  - none: every candidate, as found.
//  - exact, and -t 1 whatever --verify says: every group of copies and every
//    document of a candidate pair is read again and proven (confirm.h);
//    what cannot be is left out of its group. Candidate pairs are then
//    verified by exact Jaccard over the shingle sets read now, and a Jaccard
//    of 1 between different texts is recomputed over the shingles' text, so
//    no hash collision can produce it. With -t 1 only the proven groups of
//    copies remain: no pair of distinct texts.
//
// Verified::Similar() is the same judgement for any two documents, for the
// clustering stage (--cluster-by keep); Reported() is the judgement on one
// pair from its facts, for `neardup explain`.
//
// Thread safety: VerifyCandidates uses `ctx.workers.threads` threads inside.
#pragma once

#include <atomic>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/parallel.h"
#include "lsh/candidates.h"
#include "lsh/copy_groups.h"
#include "lsh/relation.h"
#include "neardup/options.h"
#include "neardup/status.h"
#include "sign/minhash.h"
#include "sign/sign.h"
#include "sign/signature_table.h"
#include "text/document_source.h"
#include "verify/confirm.h"
#include "walk/file_system.h"

namespace neardup {

// How candidates are checked: the verification rule of a run, decided once
// from its options by VerificationOf().
struct Verification {
  VerifyMode mode = VerifyMode::kSignature;
  double threshold = 0;        // Options::threshold
  double candidate_floor = 0;  // CandidateFloor(): a lower estimate is no candidate
  // -t 1 means the same text: exact copies only, proven by reading them
  // again, whatever --verify says.
  bool identical_only = false;
  // Documents are read again and proven (--exact, or identical_only).
  bool rereads() const { return identical_only || mode == VerifyMode::kExact; }
};
Verification VerificationOf(const Options& options);

// The facts a verdict on one pair rests on.
struct PairFacts {
  bool same_tokens = false;  // identical token sequences: an exact copy
  bool candidate = false;    // LSH makes them a candidate (or same_tokens)
  double estimate = 0;       // signature agreement
  double jaccard = -1;       // exact Jaccard; -1 when not computed
};
// Whether a scan under `rule` reports a pair with these facts: exact copies
// always; else a candidate whose estimate reaches the threshold (signature),
// whose estimate reaches the candidate floor and Jaccard the threshold
// (exact), or any candidate (none).
bool Reported(const Verification& rule, const PairFacts& facts);

// The scores of a pair of documents.
struct PairScores {
  double estimate = 0;  // signature agreement
  double jaccard = -1;  // exact Jaccard; -1 when not computed
};

// What verification reads documents again with: the run's, borrowed.
struct VerifyContext {
  const Options& options;
  const Verification& rule;
  const MinHasher& minhasher;
  FileSystem& fs;
  const Workers& workers;
  RereadProgress& reread;
  // Whether the caller reads the shingle sets after verification (through
  // Similar(), Scores() or sets(): clusters, the dropped lists, a stage
  // verify task's output). When not, --exact checks the pairs of documents
  // alone in their groups while it reads them, and gives each set back once
  // its pairs are done (StreamedPairs, confirm.h): the sets are never all
  // held, and Verified keeps none of them. Default: true.
  bool keep_sets = true;
  // Pairs mode only (keep_sets false): what the report keeps of the pairs
  // (phases.cc's Filters(): --new, --against), each indexed by DocId. A
  // candidate pair is verified only when every filter flags a member of one
  // of its two groups, and a group of copies is confirmed only when it is
  // in such a pair or every filter flags one of its members: the rest would
  // be cut from the report, so nothing of it is read again. So an unchanged
  // `--index --new` re-run reads nothing again. Empty: every pair and group.
  std::vector<std::vector<uint8_t>> report_filters = {};
};

class Verified {
 public:
  // The accepted pairs of representatives, by (a, b), in bounded memory
  // (the candidates themselves, or those --exact accepted).
  CandidatePairs pairs;
  // Documents that could not be proven (exact mode), with why.
  std::vector<std::pair<DocId, Status>> left_out;
  // Exact mode with Options::keep_texts: the token texts read, of the
  // documents proven (null otherwise).
  std::shared_ptr<const KeptTexts> texts;

  // Whether documents x and y are similar by the chosen verification: true
  // for two members of one group of copies; else the signature estimate
  // (signature, none) or the exact Jaccard (exact; false when a set is
  // missing) of their representatives against the threshold.
  // REQUIRES: both belong to a group of `groups`.
  bool Similar(DocId x, DocId y) const;
  // With --relation contains|both: whether `member` is contained in `kept`
  // by the chosen verification (RelationRule, lsh/relation.h): the exact
  // overlap of their representatives' sets (exact; false when a set is
  // missing), or their estimate and sizes (signature). False for two members
  // of one group of copies, and without a containment relation.
  // REQUIRES: as Similar().
  bool ContainedIn(DocId member, DocId kept) const;
  // The scores of documents x and y: their signature agreement, and with
  // --exact their exact Jaccard (else -1); 1 and 1 (or -1) for two members
  // of one group of copies. REQUIRES: as Similar().
  PairScores Scores(DocId x, DocId y) const;
  // Exact mode: the shingle set of each representative of a group in a
  // candidate pair (that of the group's first confirmed member).
  const std::unordered_map<DocId, std::vector<uint64_t>>& sets() const { return sets_; }
  // The same sets, moved out: sets(), Similar(), ContainedIn() and Scores()
  // no longer have them. For a caller that only passes them on.
  std::unordered_map<DocId, std::vector<uint64_t>> TakeSets() { return std::move(sets_); }

 private:
  friend Result<Verified> VerifyCandidates(const VerifyContext&, const SignedCorpus&, CopyGroups*, Candidates);
  friend struct PriorVerdicts;
  const SignatureTable* table_ = nullptr;
  const CopyGroups* groups_ = nullptr;
  Verification rule_;
  RelationRule relation_;  // Relation::kSimilar unless VerifyCandidates() was given another
  // Exact mode: the shingle set of each representative in a pair.
  std::unordered_map<DocId, std::vector<uint64_t>> sets_;
  double Similarity(DocId rep_a, DocId rep_b) const;
};

// Verifies `candidates` by ctx.rule (see above); may shrink `groups`
// (exact mode, -t 1). `corpus.table` and `groups` must outlive the result.
// Returns IoError when a temporary file cannot be written or read back
// (the candidates are read in two passes with --exact), Cancelled when
// cancelled; a document that cannot be proven is a result (left_out).
// Stream documents are read again from `corpus.stream_copies`.
Result<Verified> VerifyCandidates(const VerifyContext& ctx, const SignedCorpus& corpus, CopyGroups* groups,
                                  Candidates candidates);

// What VerifyCandidates decided elsewhere, over other tables (the stage
// verify tasks, each over its share): the accepted pairs (jaccard set with
// --exact), the documents left out and the sets of the representatives.
// Adopt() makes of them the Verified that VerifyCandidates would return over
// `corpus` and `groups`, reading nothing: each group loses its left-out
// members, as VerifyCandidates' groups do.
// REQUIRES: every id is a document of `corpus`; the pairs are
// representatives of `groups`; the sets, when given, those of every
// representative of an accepted pair (cluster modes).
struct PriorVerdicts {
  CandidatePairs pairs;                            // with --relation contains|both, each with its kind
  std::vector<std::pair<DocId, Status>> left_out;  // ascending by DocId, each once
  std::unordered_map<DocId, std::vector<uint64_t>> sets;
  // The run's RelationRule::Of(): Verified::ContainedIn() judges by it.
  RelationRule relation = {};
  Verified Adopt(const Verification& rule, const SignedCorpus& corpus, CopyGroups* groups) &&;
};

}  // namespace neardup
