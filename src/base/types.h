// The words every phase shares: what an input is (InputFile), what became of
// a document (DocRecord), what identifies its text (ContentHash), a candidate
// pair (Candidate), a problem with one input (InputProblem) and the counts of
// what was read (SignCounts). Plain values with no behaviour beyond
// comparison and adding up; each phase's own types live in its wing.
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <string>

#include "neardup/doc_id.h"
#include "neardup/options.h"
#include "neardup/status.h"

namespace neardup {

// What the walk saw of an input, checked again when it is opened.
struct FileIdentity {
  uint64_t dev = 0;
  uint64_t ino = 0;
  // Not a regular file: a pipe, FIFO, character or block device given
  // explicitly. Read once, front to back; its size is unknown beforehand.
  bool stream = false;
};

// One input file as the walk found it (walk/walk.h).
struct InputFile {
  std::string path;        // as written in the output (PATH joined with the rest)
  uint64_t size = 0;       // bytes, at walk time
  int64_t mtime_ns = 0;    // modification time at walk time
  int64_t ctime_ns = 0;    // status change time at walk time (0 for a stream)
  bool reference = false;  // under an --against path
  // The input it was found under, by position: the PATH arguments in the
  // order given, then the --files-from paths, then the --against paths (the
  // first of them, for a file reached from several). With walk order and
  // line order it makes the input order that --keep first follows.
  uint32_t root = 0;
  // Device and inode at walk time, checked again on open; identity.stream
  // marks a stream document (a non-regular file named explicitly: read once,
  // size unknown, so a second read, e.g. for --exact, is not possible).
  FileIdentity identity;
};

// A 128-bit hash of a document's normalized token text: equal for equal
// token sequences (text/shingle.h computes it).
struct ContentHash {
  uint64_t low = 0;
  uint64_t high = 0;
  friend bool operator==(const ContentHash& x, const ContentHash& y) { return x.low == y.low && x.high == y.high; }
  friend bool operator<(const ContentHash& x, const ContentHash& y) {
    return x.high != y.high ? x.high < y.high : x.low < y.low;
  }
};

// What became of a document once read. Only kOk documents have a signature.
enum class DocKind : uint8_t { kOk, kEmpty, kTooShort, kBinary, kFailed };

inline constexpr uint64_t kNoOffset = UINT64_MAX;

struct DocRecord {
  std::string name;   // as written in the output: path, JSONL id or FILE:LINE
  uint32_t file = 0;  // index into SignatureTable::files
  // JSONL: LineHash() of the line's bytes as signed (without its line end),
  // which --kept-dir checks a dropped line against; 0 when not known (a run
  // without --kept-dir does not hash its lines, a
  // document from the index or a stage table) or for a text file.
  uint32_t line_hash = 0;
  uint64_t line = 0;  // JSONL line number (from 1); 0 for a text file
  // JSONL: where its line starts in its file, in bytes, as this run read it,
  // which an exact re-read seeks to (JsonlLinesAt); kNoOffset when not known:
  // a text file, a compressed file or a stream, a line after one over
  // --max-line, a document from the index (which does not store it). A
  // stage table stores it (table_codec.h), for the verify tasks' re-read.
  uint64_t offset = kNoOffset;
  uint64_t size = 0;  // bytes of text
  // Distinct shingles: the exact size |A| of its shingle set, counted while
  // signed when the run asks (SignContext::count_shingles; a kOk document
  // then has at least 1), and stored by the index (documents.shingles); 0
  // when not known (not asked, or a document stored by the index without a
  // count).
  uint64_t shingles = 0;
  int64_t mtime_ns = 0;  // of its file, when walked
  ContentHash content;   // of its normalized token text
  DocKind kind = DocKind::kFailed;
  bool reference = false;  // under an --against path
};

// A candidate pair of representatives of groups of copies (lsh/).
struct Candidate {
  DocId a = 0, b = 0;   // representatives, a < b
  double estimate = 0;  // signature agreement
  double jaccard = -1;  // exact Jaccard, once verified by --exact; else -1
  // With --relation contains|both, once verified: the relation found.
  PairKind kind = PairKind::kSimilar;
  bool operator<(const Candidate& o) const { return a != o.a ? a < o.a : b < o.b; }
};

// A problem with one input, where it was found.
struct InputProblem {
  enum class Kind : uint8_t {
    kUnreadable,  // counted as unreadable
    kMalformed,   // a JSONL line skipped
    kTooLarge,    // over --max-filesize once decompressed
    kCounted,     // counted elsewhere already (e.g. duplicate ids)
  };
  uint32_t file = 0;  // index into the walked files
  uint64_t line = 0;  // JSONL line number; 0 for the whole file
  Status status;
  Kind kind = Kind::kUnreadable;
  // A malformed JSONL line that does not even start as a JSON object (its
  // first byte other than a blank is not '{'): a line of a file that is not
  // JSONL at all, when the file has no other kind.
  bool not_json = false;
};

// Totals over the documents read.
struct SignCounts {
  uint64_t bytes = 0;          // bytes of text read
  uint64_t invalid_utf8 = 0;   // invalid sequences replaced by U+FFFD
  uint64_t transcoded = 0;     // UTF-16 files transcoded
  uint64_t duplicate_ids = 0;  // JSONL documents renamed FILE:LINE

  // Adds the counts of another share of the documents.
  SignCounts& operator+=(const SignCounts& o) {
    bytes += o.bytes;
    invalid_utf8 += o.invalid_utf8;
    transcoded += o.transcoded;
    duplicate_ids += o.duplicate_ids;
    return *this;
  }
};

}  // namespace neardup
