// Candidates: representatives' signatures -> candidate pairs (the LSH stage).
//
// The representatives of a CopyGroups are banded (LshIndex); every pair that
// shares a band and that the candidate rule accepts (CandidateRule,
// similarity.h: its signature estimate reaches the candidate floor) is a
// candidate, once.
//
// In cluster modes only connectivity matters, so a bucket of more than
// kLargeBucket members is not expanded into its n(n-1)/2 pairs: a leader is
// taken (its first member), every member whose estimate against it is within
// kLeaderSlack of the threshold joins it as a candidate pair (leader,
// member), and the rest elect the next leader. The work is linear per
// leader instead of quadratic in the bucket. The slack lets a member that
// the leader estimates slightly below the threshold still be linked
// through it (it is verified like every other pair); a member further away
// is left for a later leader.
//
// The result is sorted by (a, b) with a < b, without repeats, and does not
// depend on the thread count. It is held in bounded memory (CandidatePairs:
// Options::pair_memory in memory, sorted runs in temporary files past it),
// however many pairs there are: each worker fills its own share of the
// budget and spills when it is full.
//
// Thread safety: FindCandidates uses `workers.threads` threads inside.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/parallel.h"
#include "base/sorted_runs.h"
#include "base/types.h"
#include "lsh/banding.h"
#include "lsh/copy_groups.h"
#include "lsh/similarity.h"
#include "neardup/options.h"
#include "neardup/status.h"
#include "sign/set_bitmap.h"
#include "sign/signature_table.h"

namespace neardup {

// Buckets larger than this are handled by leaders in cluster modes.
inline constexpr size_t kLargeBucket = 256;
// How far below the threshold a member's estimate against a leader may be
// and still be linked to it.
inline constexpr double kLeaderSlack = 0.1;

// Candidate pairs, sorted by (a, b), each once, in at most `budget_bytes`
// of memory (sorted_runs.h); iterate them as often as needed.
class CandidatePairs : public SortedRuns<Candidate> {
 public:
  CandidatePairs() : CandidatePairs(Options{}.pair_memory) {}
  explicit CandidatePairs(size_t budget_bytes) : SortedRuns<Candidate>(budget_bytes, "candidate pairs") {}
};

struct Candidates {
  CandidatePairs pairs;  // those at or above the candidate floor
  uint64_t visited = 0;  // distinct pairs the banding produced
};

// With `bitmaps` (per DocId, SignedCorpus::bitmaps) and --exact, a pair
// whose bitmaps bound its Jaccard below the threshold (RulesOut(),
// similarity.h) is left out at once, so --exact never reads its documents
// again for it: it is neither kept nor sorted (a large bucket's leader takes
// such a member all the same). Empty: none is left out so.
// REQUIRES: banding.bands * banding.rows <= table.num_perm(); bitmaps is
// empty or holds one per document of `table`.
// Errors: IoError when a temporary file cannot be made or written.
Result<Candidates> FindCandidates(const SignatureTable& table, const CopyGroups& groups, const Options& options,
                                  Banding banding, const Workers& workers, std::span<const SetBitmap> bitmaps = {});

// The candidates of `found` that the bitmaps do not rule out (RulesOut(),
// with CandidateRule::Of(options, bitmaps, docs)): what FindCandidates()
// keeps when it is given `bitmaps` at once, for bitmaps that came after
// banding (those an --index run reads for the documents of candidate pairs
// only). `visited` is kept. Errors: IoError as CandidatePairs::Add().
// REQUIRES: bitmaps is empty or holds one per document (`docs`).
Result<Candidates> RuleOutByBitmaps(Candidates found, const Options& options, std::span<const SetBitmap> bitmaps,
                                    size_t docs);

// The pairs of one large bucket (`ids`, ascending), by leaders as described
// above, those `rule` accepts (CandidateRule::Of(options), with the
// bitmaps of the table's documents when there are): appended to *out. Used
// by FindCandidates and by the stage verify and report tasks (stages.h),
// which get their large buckets from the bucket tasks. IoError as
// CandidatePairs::Add().
Status LeadLargeBucket(const SignatureTable& table, const Options& options, const CandidateRule& rule,
                       std::vector<DocId> ids, CandidatePairs* out);

}  // namespace neardup
