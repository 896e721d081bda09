// SignWithIndex: the signing stage with an index (--index): only new and
// changed files are read and signed; the others' documents come from the
// index (signature_index.h), and the index is brought up to date.
//
// The table it returns is the one Sign() (sign.h) gives for the same files:
// same DocIds (files in walk order, lines in file order), names (duplicate
// ids renamed after the stored and new documents are merged), kinds, content
// hashes, signatures, counts and per-file problems (malformed JSONL lines are
// stored with their messages), so the output of a scan is byte-identical with
// and without an index.
//
// Per walked file, found by its key (index_keys.h: its canonical absolute
// path): unchanged (dev, inode, size, mtime_ns, ctime_ns and the options
// that decide its documents, mtime and ctime older by more than the
// timestamp resolution, 2 s, than when the index saw the file) -> its stored
// documents, none of its bytes read; the same stat but younger than that
// ("racily clean") -> signed again, its documents counted as reused (and not
// new) when they are the stored ones; a plain JSONL file that only grew (its
// old bytes hash as stored, and it ended with a newline) -> only its new
// lines are signed; anything else -> signed whole. Stream documents are never stored; files
// that could not be read whole are not stored (retried next run). Entries
// under the scanned paths whose files are gone are removed; entries outside
// them are kept. Writes are grouped in transactions of about
// kIndexBatchDocuments documents.
//
// Thread safety: as Sign(); the index is used by one thread at a time (the
// calling thread, or the writer that stores text files while they are
// signed; the update is one class, IndexUpdate, in sign_indexed.cc).
//
//   Result<std::unique_ptr<SignatureIndex>> ix = OpenIndexFor(options);
//   Result<IndexedCorpus> s = SignWithIndex(ctx, std::move(walked.files), **ix);  // ctx: a SignContext (sign.h)
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "index/index_keys.h"
#include "index/signature_index.h"
#include "neardup/report.h"
#include "sign/sign.h"

namespace neardup {

inline constexpr uint64_t kIndexBatchDocuments = 4096;

struct IndexedCorpus {
  SignedCorpus corpus;
  std::vector<uint8_t> signed_now;  // per DocId: 1 when signed in this run
  IndexStats stats;
};

// The signature-shaping parameters of `options`.
SignatureParams SignatureParamsOf(const Options& options);

// Opens options.index for this run (lock, parameter check) and records the
// run's start. Errors as SignatureIndex::Open.
// REQUIRES: options.index is not empty.
Result<std::unique_ptr<SignatureIndex>> OpenIndexFor(const Options& options);

// What the index holds of the files a run may walk, read before the
// signing: every file entry, and the documents (records and signatures) and
// problems of the entries under the run's paths (paths, against and listed
// paths: the files a walk of them can meet). Reading it begins the index's
// write transaction, so it may run on another thread while the inputs are
// walked (as the scan does), then be handed to SignWithIndex on this one.
//
// The entries read are laid out in path order, the order of a walk, in a
// matrix with room to grow: when the walk meets these files in that order
// (unchanged, grown, or with files added or removed around them), their
// signatures become the run's matrix, moved within it, without a copy.
struct StoredInputs {
  IndexKeys keys;  // the run's arguments, canonical (index_keys.h)
  std::vector<IndexedFile> files;
  std::vector<size_t> by_path;        // the entries under the run's paths, in path order
  std::vector<size_t> first;          // per entry: its first document in `docs`, or SIZE_MAX when not read
  std::vector<DocRecord> docs;        // as SignatureIndex::LoadDocuments gives them
  SignatureTable::Matrix signatures;  // num_perm values per document of `docs`
  std::vector<std::vector<StoredProblem>> problems;  // per entry (empty when not read)
};

// Reads what SignWithIndex needs of `index` for a run of `options`.
// Errors as the index's reads (corrupt, I/O).
// REQUIRES: `index` from OpenIndexFor(options), no transaction open.
Result<StoredInputs> ReadStoredInputs(const Options& options, SignatureIndex& index);

// Signs `files` (as walked) with `index` and what ReadStoredInputs() read of
// it (in the transaction that call began); see above.
Result<IndexedCorpus> SignWithIndex(const SignContext& ctx, std::vector<InputFile> files, SignatureIndex& index,
                                    StoredInputs stored);

// Signs `files` (as walked) with `index`; see above. Returns the index's
// error (disk full, corrupt) or Cancelled; the index then keeps its last
// committed state.
// REQUIRES: as Sign(); `index` from OpenIndexFor(options).
Result<IndexedCorpus> SignWithIndex(const SignContext& ctx, std::vector<InputFile> files, SignatureIndex& index);

}  // namespace neardup
