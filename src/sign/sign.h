// Sign: the walked input files -> a SignatureTable (the signing stage).
//
// Every input file is read once through the document sources
// (document_source.h): a text file is one document, streamed through
// DocumentReader; a JSONL file is one document per line, whose lines are
// parsed and signed in batches by the workers and committed in input order.
// A document's text is dropped as soon as it is signed. The table's DocIds
// follow the input: files in walk order, lines in file order. The result is
// the same for every thread count.
//
// JSONL ids name one document each: every document whose id is not unique in
// the run is named FILE:LINE instead (as one without an id is), with a
// problem saying so.
//
// Problems with single inputs (unreadable, vanished, changed size during the
// read, over --max-filesize, malformed or too long lines) are results, in
// SignedCorpus::problems, and signing goes on.
//
// Thread safety: Sign() uses `workers.threads` threads inside; `progress`
// counters are updated from them.
//
//   SignedCorpus s = Sign(options, std::move(walked.files), minhasher, fs, workers, &counters);
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "walk/walk.h"
#include "text/document_source.h"
#include "walk/file_system.h"
#include "sign/minhash.h"
#include "neardup/options.h"
#include "base/parallel.h"
#include "sign/signature_table.h"
#include "neardup/status.h"

namespace neardup {

// A problem with one input, where it was found.
struct InputProblem {
  enum class Kind : uint8_t {
    kUnreadable,   // counted as unreadable
    kMalformed,    // a JSONL line skipped
    kTooLarge,     // over --max-filesize once decompressed
    kCounted,      // counted elsewhere already (e.g. duplicate ids)
  };
  uint32_t file = 0;  // index into the walked files
  uint64_t line = 0;  // JSONL line number; 0 for the whole file
  Status status;
  Kind kind = Kind::kUnreadable;
};

// Live counts, read by the caller's progress callback while Sign() runs.
struct SignProgress {
  std::atomic<uint64_t> inputs_done{0};  // files finished
  std::atomic<uint64_t> bytes{0};        // bytes read
  std::atomic<uint64_t> documents{0};    // documents signed
};

// Totals over the documents read.
struct SignCounts {
  uint64_t bytes = 0;         // bytes of text read
  uint64_t invalid_utf8 = 0;  // invalid sequences replaced by U+FFFD
  uint64_t transcoded = 0;    // UTF-16 files transcoded
  uint64_t duplicate_ids = 0;  // JSONL documents renamed FILE:LINE
};

struct SignedCorpus {
  SignatureTable table;
  // With `keep_streams`: per file, the copy of a stream document (else null).
  std::vector<std::unique_ptr<StreamCopy>> stream_copies;
  std::vector<InputProblem> problems;  // in the order found
  SignCounts counts;
};

// Signs every document of `files` (as walked). With `keep_streams`, stream
// documents are recorded so they can be read again (--exact, -t 1).
// REQUIRES: ValidateOptions(options) is OK; `minhasher` has options' num_perm
// and seed; `progress` may be null.
SignedCorpus Sign(const Options& options, std::vector<InputFile> files, const MinHasher& minhasher, FileSystem& fs,
                  const Workers& workers, bool keep_streams, SignProgress* progress);

}  // namespace neardup
