// Confirmer: proves from the documents' current content what --exact and
// -t 1 report, trusting neither an earlier read nor a hash.
//
// Input: groups of documents that were signed with the same content hash
// (exact copies, as far as a hash can tell). Each member is read again:
//  - a text file whose size, mtime, ctime, device or inode differ from what
//    the walk saw, before or after the read, or that is gone, is left out;
//    so is one whose content hash is not what it was when signed (a JSONL
//    document: the same, for the file that holds it);
//  - the token text of every remaining member (Shingler::set_token_text)
//    is compared byte for byte with the group's reference, its first
//    remaining member: a member whose text differs although its hash agrees
//    (a hash collision) is left out as well. So a confirmed group holds
//    documents with the same normalized token sequence, whatever the hashes.
// Every left-out document comes with a Status naming it and why.
// The token texts of the members of groups of copies go to anonymous
// temporary files (TMPDIR), one per worker, so memory stays bounded by the
// read buffers whatever the document sizes; the disk they take is the size
// of those token texts. A document alone in its group keeps none (it is
// compared with no other) until KeepText() asks for it.
//
// The workers take a text document each, and a JSONL file in runs of its
// lines: each line read where it starts, when the signing run saw where
// (DocRecord::offset) and the file is plain; else each run of at least 512
// lines reads the file from its start.
//
// Thread safety: one Confirmer per run; Run() uses `threads` workers inside;
// KeepText() is called by one thread at a time.
//
//   Confirmer c(options, minhasher, fs, threads);
//   RereadProgress progress;
//   Status s = c.Run(origins, groups, want_set, workers, &progress, &out);
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "neardup/options.h"
#include "neardup/status.h"
#include "sign/minhash.h"
#include "text/document_source.h"
#include "text/shingle.h"
#include "verify/kept_texts.h"
#include "walk/file_system.h"
#include "walk/walk.h"

namespace neardup {

// The documents read again so far, of how many: set by verification's
// workers, read by whoever shows the progress (relaxed atomics).
struct RereadProgress {
  std::atomic<uint64_t> done{0};
  std::atomic<uint64_t> total{0};
};

class DocumentReader;
class JsonlDocReader;

// Where a document's text is, and what it was when signed.
struct DocOrigin {
  const InputFile* file = nullptr;  // REQUIRES: outlives the Confirmer
  uint64_t line = 0;                // JSONL line number (from 1); 0 for a text file
  uint64_t offset = kNoOffset;      // JSONL: where the line starts (DocRecord::offset)
  ContentHash content;              // content hash when signed
  // A stream document (a pipe can be read once): the copy of what it gave
  // (StreamCopy), read instead of the file. Null for a file.
  const StreamCopy* copy = nullptr;
};

// Pairs of groups whose Jaccard Confirmer::Run() computes while it reads,
// as soon as both sets are built, each set given back once its last pair is
// done (unless `keep`): for a run that needs the sets for nothing else (pairs
// mode), which then never holds them all at once. Only groups of one member
// take part (their set is their reference's).
struct StreamedPairs {
  double threshold = 0;  // as JaccardIfReaches() takes it
  // Per pair: its two groups (indices into Run()'s groups), each with want_set.
  std::vector<std::pair<uint32_t, uint32_t>> groups;
  // Per group: 1 when its set must outlive Run() (it is in a pair not listed).
  std::vector<char> keep;
  // Out, per pair: JaccardIfReaches(set, set, threshold), or -1 when a set is
  // empty (as when a read failed: such a pair is never confirmed).
  std::vector<double> jaccard;
};

struct ConfirmedGroups {
  // Per group: the confirmed members, ascending; the first is the reference.
  // Empty when no member could be confirmed.
  std::vector<std::vector<DocId>> members;
  // Per group: the reference's sorted, unique shingle set, when it was asked
  // for and the group has a confirmed member; empty for a group whose set was
  // given back after its streamed pairs (StreamedPairs).
  std::vector<std::vector<uint64_t>> sets;
  // The documents left out, with the reason ("PATH: changed during the run").
  std::vector<std::pair<DocId, Status>> left_out;
};

class Confirmer {
 public:
  // `minhasher`, `fs` and the origins given to Run() must outlive the Confirmer.
  Confirmer(const Options& options, const MinHasher& minhasher, FileSystem& fs, int threads);
  ~Confirmer();
  Confirmer(const Confirmer&) = delete;
  Confirmer& operator=(const Confirmer&) = delete;

  // Reads and compares every member of `groups` (ascending DocIds, each
  // group non-empty). `want_set[g]`: also build group g's shingle set.
  // Returns IoError when a temporary file cannot be written (nothing is then
  // confirmed), Cancelled when the workers' cancel was set (their tick
  // is called meanwhile); per-document problems are
  // results (ConfirmedGroups::left_out), not errors. The pairs given to
  // CheckWhileReading() get their Jaccard values meanwhile.
  [[nodiscard]] Status Run(const std::vector<DocOrigin>& origins, const std::vector<std::vector<DocId>>& groups,
                           const std::vector<char>& want_set, const Workers& workers, RereadProgress* progress,
                           ConfirmedGroups* out);

  // The pairs Run() checks while it reads (StreamedPairs), their groups
  // being Run()'s; null (the default): none. REQUIRES: outlives Run().
  void CheckWhileReading(StreamedPairs* pairs) { streamed_ = pairs; }

  // The Jaccard similarity of the references of two confirmed groups over
  // their shingles as text, with no hash involved: for a pair whose hashed
  // shingle sets agree entirely (1 by hashes), which must not be reported as
  // 1 unless the texts make it so. Memory: both documents' shingles.
  // REQUIRES: Run() returned OK; both groups have a confirmed member, and
  // KeepText() returned true for both.
  [[nodiscard]] Result<double> TextJaccard(size_t group_a, size_t group_b) const;

  // Makes sure the token text of group g's reference is kept, for
  // TextJaccard(): a reference alone in its group kept none, and is read
  // again now (once). Returns false when it is no longer what Run()
  // confirmed (it changed since): it is then in LateLeftOut(), and must be
  // left out of every pair. IoError as Run().
  // REQUIRES: Run() returned OK; group g has a confirmed member.
  [[nodiscard]] Result<bool> KeepText(size_t g);
  // The documents KeepText() found changed since Run(), with the reason.
  const std::vector<std::pair<DocId, Status>>& LateLeftOut() const { return late_left_out_; }

  // Makes Run() keep the token text of every document it reads, not only
  // those of groups of copies (for the review page: TakeKeptTexts()).
  // REQUIRES: called before Run().
  void KeepEveryText() { keep_every_text_ = true; }
  // The token texts kept of the documents still confirmed (neither left out
  // by Run() nor by KeepText()), with the temporary files that hold them;
  // the Confirmer is done with then. REQUIRES: Run() returned OK.
  std::shared_ptr<const KeptTexts> TakeKeptTexts();

 private:
  struct Spool;
  struct Read;
  [[nodiscard]] Status ReadAll(const std::vector<DocOrigin>& origins, const Workers& workers, RereadProgress* progress);
  // The jobs of ReadAll, indices into reads_: a text document each; the
  // wanted lines of a JSONL file, in line order, one run of them each (a
  // large plain file is shared by the workers), jobs in path order.
  std::vector<std::vector<size_t>> Jobs(const std::vector<DocOrigin>& origins) const;
  // The order in which the text documents are read: the reads' own, except
  // that the groups of each component of streamed pairs are read together.
  std::vector<size_t> TextReadOrder() const;
  // A new spool per worker, each in a temporary file.
  [[nodiscard]] Status OpenSpools();
  void ReadTextDoc(const std::vector<DocOrigin>& origins, size_t i, size_t w, DocumentReader& reader);
  void ReadJsonlFile(const std::vector<DocOrigin>& origins, const std::vector<size_t>& wanted, size_t w,
                     JsonlDocReader& parser);
  // ReadJsonlFile's two ways: the file from its start, or each line where
  // it starts. Each returns how many of `wanted` it reached.
  size_t ReadLinesThrough(const std::vector<DocOrigin>& origins, const std::vector<size_t>& wanted,
                          std::unique_ptr<ByteReader> in, JsonlDocReader& parser, Spool& spool);
  size_t ReadLinesAt(const std::vector<DocOrigin>& origins, const std::vector<size_t>& wanted,
                     std::unique_ptr<ByteReader> in, JsonlDocReader& parser, Spool& spool);
  void FailLines(const std::vector<DocOrigin>& origins, const std::vector<size_t>& wanted, const Status& why);
  void TakeLine(const std::vector<DocOrigin>& origins, size_t i, std::string_view text, JsonlDocReader& parser,
                Spool& spool);
  [[nodiscard]] Result<bool> SameText(const Read& a, const Read& b) const;
  [[nodiscard]] Status Judge(const std::vector<DocOrigin>& origins, size_t groups, ConfirmedGroups* out);
  [[nodiscard]] Status CollectSets(const std::vector<char>& want_set, ConfirmedGroups* out);
  [[nodiscard]] Status SetFromTokenText(Read* r) const;
  struct Stream;
  void PrepareStream(size_t groups);
  void SetReady(size_t i);
  void PairDone(uint32_t g);
  const Options& options_;
  const MinHasher& minhasher_;
  FileSystem& fs_;
  const int threads_;
  std::vector<std::unique_ptr<Spool>> spools_;        // one per worker
  std::vector<Read> reads_;                           // per (group, member) slot
  std::vector<size_t> reference_read_;                // per group: index into reads_, or SIZE_MAX
  const std::vector<DocOrigin>* origins_ = nullptr;   // Run()'s
  std::unique_ptr<DocumentReader> late_text_reader_;  // KeepText()'s
  std::unique_ptr<JsonlDocReader> late_parser_;
  std::vector<std::pair<DocId, Status>> late_left_out_;
  bool keep_every_text_ = false;       // KeepEveryText()
  StreamedPairs* streamed_ = nullptr;  // CheckWhileReading()'s
  std::unique_ptr<Stream> stream_;     // streamed_ as the workers use it
};

}  // namespace neardup
