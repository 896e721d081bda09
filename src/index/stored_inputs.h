// StoredInputs: what the index holds of the files a run may walk, read
// before the signing (ReadStoredInputs), and handed to SignWithIndex
// (sign_indexed.h).
//
// Thread safety: ReadStoredInputs() reads on the run's threads and returns
// once they are done; it uses the index as its one thread at a time.
//
//   Result<StoredInputs> stored = ReadStoredInputs(options, *ix);  // ix: OpenIndexFor(options)
//   // ... the index's transaction is open: walk the inputs meanwhile, then
//   Result<IndexedCorpus> s = SignWithIndex(ctx, std::move(walked.files), *ix, std::move(*stored));
#pragma once

#include <atomic>
#include <cstddef>
#include <vector>

#include "index/index_keys.h"
#include "index/signature_index.h"
#include "neardup/options.h"
#include "sign/signature_table.h"

namespace neardup {

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
// Errors as the index's reads (corrupt, I/O); Cancelled soon after `stop`
// (when set) reads true (a kept result is given instead: stored_result.h).
// REQUIRES: `index` from OpenIndexFor(options), no transaction open.
Result<StoredInputs> ReadStoredInputs(const Options& options, SignatureIndex& index,
                                      const std::atomic<bool>* stop = nullptr);

}  // namespace neardup
