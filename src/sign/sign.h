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
// Thread safety: Sign() uses `ctx.workers.threads` threads inside; the
// `ctx.progress` counters are updated from them.
//
//   SignProgress counts;
//   const SignContext ctx{options, minhasher, FileSystem::Default(), workers, false, counts};
//   SignedCorpus s = Sign(ctx, std::move(walked.files));
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "base/types.h"
#include "neardup/options.h"
#include "sign/bitmap_gate.h"
#include "sign/minhash.h"
#include "sign/set_bitmap.h"
#include "sign/signature_table.h"
#include "text/document_source.h"
#include "walk/file_system.h"
#include "walk/walk.h"

namespace neardup {

// Live counts, read by the caller's progress callback while Sign() runs.
struct SignProgress {
  std::atomic<uint64_t> inputs_done{0};  // files finished
  std::atomic<uint64_t> bytes{0};        // bytes read
  std::atomic<uint64_t> documents{0};    // documents signed
};

// A JSONL document that was read but not signed (empty, or under
// --min-words): all a run needs of it is to count it and, when it has an id,
// to know the id (ids must be unique among all documents).
struct UnsignedDoc {
  uint64_t line = 0;               // from 1
  uint32_t file = 0;               // index into SignatureTable::files
  DocKind kind = DocKind::kEmpty;  // kEmpty or kTooShort
};
struct NamedUnsignedDoc {
  UnsignedDoc doc;
  std::string name;  // its id (or, once renamed, FILE:LINE)
};

struct SignedCorpus {
  SignatureTable table;
  // With `keep_streams`: per file, the copy of a stream document (else null).
  std::vector<std::unique_ptr<StreamCopy>> stream_copies;
  std::vector<InputProblem> problems;  // in the order found
  SignCounts counts;
  // With SignContext::compact_unsigned: the JSONL documents not signed, kept
  // out of the table (no DocId, no signature row), each in input order:
  // those without an id (16 bytes each; named FILE:LINE), those with one.
  std::deque<UnsignedDoc> unnamed_unsigned;
  std::deque<NamedUnsignedDoc> named_unsigned;
  // With SignContext::set_bitmaps: per DocId, the bitmap of its shingle set
  // (set_bitmap.h), empty for a document that has none; empty when not asked.
  std::vector<SetBitmap> bitmaps;
};

// The bytes of text whose documents get a SetBitmap in one run, in input
// order (a text file counts the size the walk saw): at most 4 bits a byte,
// so the bitmaps of a run take at most 512 MiB (about 170 MiB for English
// words: 1 to 2 bytes a shingle). The documents after these have none, and
// --exact reads every one of them in a candidate pair again.
inline constexpr uint64_t kBitmapTextBudget = uint64_t{1} << 30;

// Whether a run of `options` builds SignedCorpus::bitmaps, which rule
// candidate pairs out before any document is read again: when it verifies by
// exact Jaccard (the default) at a threshold below kBitmapsBelow. They cost
// every document a pass over its shingle hashes while it is signed, and pay
// only where banding lets through many candidates far below the threshold:
// at -t 0.5 on mail (18 times as many candidates as pairs) they save more
// than they cost, at -t 0.8 they do not, on mail nor on the bench's files
// (CPU of the default over --verify signature, -j 1: mail 1.27x with them,
// 1.08x without; 100,000 files 1.19x and 1.12x). SignContext::set_bitmaps
// asks it; a scan's BitmapGate (bitmap_gate.h) stops them below it too
// where its first documents show they cannot pay.
inline constexpr double kBitmapsBelow = 0.7;
inline bool WantsBitmaps(const Options& options) {
  return options.verify == VerifyMode::kExact && options.threshold < kBitmapsBelow;
}

// What every signing function shares: decided once for a run (Run::Signing,
// scan/run.h) and passed as one value; what its fields do not name follows
// from the options, as their defaults say. A caller that signs otherwise (a
// stage sign task) copies it and sets what differs. Borrows everything; the
// referents outlive it.
struct SignContext {
  const Options& options;      // REQUIRES: ValidateOptions(options) is OK
  const MinHasher& minhasher;  // of options' num_perm and seed
  // Where input bytes come from; a copy of a context may read elsewhere
  // (`SignContext c = ctx; c.fs = other;`), every other field kept.
  std::reference_wrapper<FileSystem> fs;
  const Workers& workers;
  // Record stream documents so that they can be read again (--exact, -t 1).
  bool keep_streams;
  SignProgress& progress;  // live counts, updated from the workers
  // JSONL: keep the documents that are not signed (empty, too short) out of
  // the table, in SignedCorpus::unnamed_unsigned and named_unsigned (a few
  // dozen bytes each rather than a signature row). Sign() always signs so:
  // that is what it is for, the whole of a run's files; SignShare() (a stage
  // sign task) and the index's signing keep every document in the table.
  // Default: false.
  bool compact_unsigned = false;
  // JSONL: when set, called on the thread that commits blocks with each
  // block's documents (in DocId order; it may move from them) and their
  // signatures (one row of num_perm values each, borrowed for the call),
  // which then never enter the table: a share of any size is signed in
  // bounded memory, and its signatures are not copied on their way out. The
  // table keeps no document of a JSONL file; the caller keeps the tally of
  // DocIds. Text files are one row each, sized up front: a caller bounds
  // them by signing its files in chunks.
  // With set_bitmaps, `bitmaps` holds one a document (empty: it has none),
  // in the order of `docs`; else it is empty. It returns false when what it
  // was given went nowhere (a full disk): no more of the input is read, and
  // the caller has the reason.
  std::function<bool(std::vector<DocRecord>& docs, std::span<const uint32_t> signatures,
                     std::span<const SetBitmap> bitmaps)>
      drain = {};
  // JSONL: hash each signed line into DocRecord::line_hash, which only
  // --kept-dir checks (a stage sign task sets it always: its shard keeps the
  // hashes for a later filter task). Default: with --kept-dir; without, a
  // pass over every line's bytes is spared.
  bool line_hashes = !options.kept_dir.empty();
  // Build SignedCorpus::bitmaps (or hand them to `drain`), which --exact
  // rules out candidate pairs with before it reads documents again. Default:
  // WantsBitmaps(options); a stage sign task stores them for its verify
  // tasks.
  bool set_bitmaps = WantsBitmaps(options);
  // With set_bitmaps: when set, a document gets its bitmap only while the
  // gate wants them, and each signed document is shown to it (a scan's
  // BitmapGate, bitmap_gate.h, which stops them where they cannot pay).
  // Default: null, every document gets one (the index and the stage sign
  // tasks store them for later runs).
  BitmapGate* bitmap_gate = nullptr;
  // Count each signed document's distinct shingles into DocRecord::shingles
  // (DocumentReader::set_count_shingles), which containment divides by.
  // Default: false, the count is not free; a run that judges containment
  // asks for it.
  bool count_shingles = false;
  // The bytes of text, in input order (DocRecord::size), whose documents get
  // a bitmap: those after it have none. Default: kBitmapTextBudget, a run's;
  // a caller that signs a share in chunks passes what is left of it.
  uint64_t bitmap_text = kBitmapTextBudget;
};

// Signs every document of `files` (as walked): the whole of a run's files.
// JSONL documents that are not signed go to SignedCorpus::unnamed_unsigned
// and named_unsigned, not to the table, whatever ctx.compact_unsigned says.
SignedCorpus Sign(const SignContext& ctx, std::vector<InputFile> files);
// As Sign(), for a share of a run's files (a stage sign task): JSONL ids are
// left as read, to be made unique over every share (RenameDuplicateIds).
// With `line_base` (JSONL, one a file), file i's bytes as ctx.fs reads them
// start after its line line_base[i] (a range of a file split between
// shares), and its line numbers continue from there.
SignedCorpus SignShare(const SignContext& ctx, std::vector<InputFile> files,
                       const std::vector<uint64_t>* line_base = nullptr);

}  // namespace neardup
