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
// signed, text_store_stream.h; the update is one class, IndexUpdate, in
// sign_indexed.cc, over the plans of file_plans.h and what stored_inputs.h
// read).
//
//   Result<std::unique_ptr<SignatureIndex>> ix = OpenIndexFor(options);
//   Result<IndexedCorpus> s = SignWithIndex(ctx, std::move(walked.files), **ix);  // ctx: a SignContext (sign.h)
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "index/index_bitmaps.h"
#include "index/index_keys.h"
#include "index/signature_index.h"
#include "index/stored_inputs.h"
#include "neardup/report.h"
#include "sign/sign.h"

namespace neardup {

inline constexpr uint64_t kIndexBatchDocuments = 4096;

struct IndexedCorpus {
  SignedCorpus corpus;
  std::vector<uint8_t> signed_now;  // per DocId: 1 when signed in this run
  IndexStats stats;
  // When the run wants bitmaps (SignContext::set_bitmaps) and reused some
  // documents: corpus.bitmaps has one per document, those of the documents
  // signed now, and the stored ones of the documents reused are read from
  // here when asked (index_bitmaps.h), for the documents of candidate pairs.
  // Null otherwise, or when the index could not be opened again to read
  // (the reused documents then have none: more are read again, the answer
  // is the same).
  std::unique_ptr<StoredBitmaps> stored_bitmaps;
};

// The signature-shaping parameters of `options`.
SignatureParams SignatureParamsOf(const Options& options);

// Opens options.index for this run (lock, parameter check) and records the
// run's start. Errors as SignatureIndex::Open.
// REQUIRES: options.index is not empty.
Result<std::unique_ptr<SignatureIndex>> OpenIndexFor(const Options& options);

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
