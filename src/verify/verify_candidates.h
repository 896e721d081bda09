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
// clustering stage (--cluster-by keep).
//
// Thread safety: VerifyCandidates uses `workers.threads` threads inside.
#pragma once

#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lsh/candidates.h"
#include "lsh/copy_groups.h"
#include "text/document_source.h"
#include "walk/file_system.h"
#include "sign/minhash.h"
#include "neardup/options.h"
#include "base/parallel.h"
#include "sign/signature_table.h"
#include "neardup/status.h"

namespace neardup {

class Verified {
 public:
  std::vector<Candidate> pairs;  // the accepted pairs of representatives, by (a, b)
  // Documents that could not be proven (exact mode), with why.
  std::vector<std::pair<DocId, Status>> left_out;

  // Whether documents x and y are similar by the chosen verification: true
  // for two members of one group of copies; else the signature estimate
  // (signature, none) or the exact Jaccard (exact; false when a set is
  // missing) of their representatives against the threshold.
  // REQUIRES: both belong to a group of `groups`.
  bool Similar(DocId x, DocId y) const;

 private:
  friend Status VerifyCandidates(const SignatureTable&, const std::vector<std::unique_ptr<StreamCopy>>&,
                                 const Options&, const MinHasher&, FileSystem&, const Workers&, CopyGroups*,
                                 Candidates, Verified*);
  const SignatureTable* table_ = nullptr;
  const CopyGroups* groups_ = nullptr;
  const Options* options_ = nullptr;
  // Exact mode: the shingle set of each representative in a pair.
  std::unordered_map<DocId, std::vector<uint64_t>> sets_;
  double Similarity(DocId rep_a, DocId rep_b) const;
};

// Verifies `candidates` by options.verify (see above); may shrink `groups`
// (exact mode, -t 1). `table`, `groups` and `options` must outlive `out`.
// Returns IoError when a temporary file cannot be written, Cancelled when
// cancelled; a document that cannot be proven is a result (left_out).
// `stream_copies`: per input file, its stream copy or null.
[[nodiscard]] Status VerifyCandidates(const SignatureTable& table,
                                      const std::vector<std::unique_ptr<StreamCopy>>& stream_copies,
                                      const Options& options, const MinHasher& minhasher, FileSystem& fs,
                                      const Workers& workers, CopyGroups* groups, Candidates candidates,
                                      Verified* out);

}  // namespace neardup
