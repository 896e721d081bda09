// IndexRows: the checks every value read from an --index file passes before
// it is used, in one place: a scan (SignatureIndex's reads) stops at the
// first row that fails them, `neardup index check` lists every one.
//
// An index is a file anyone may edit (the sqlite3 shell, a disk error SQLite
// does not see, another program): a count, an id, a line or a blob length
// read from it is checked against its type's range, the run's parameters,
// the file's size and the other rows of its entry before anything is
// allocated by it or indexed with it. A row that fails is an error, never
// skipped: a document dropped is a wrong answer.
//
// Each check returns the problem as text ("files row 3 (/srv/a.jsonl):
// documents is -1, not 0 to 1200"), empty when the row is sound. The text
// names the table and the row, and is what `index check` prints after
// "FILE: "; CorruptRow() makes a scan's one-line error of it.
//
// Thread safety: free functions of their arguments.
//
//   RowLimits limits{.num_perm = 128, .max_documents = db_bytes / 512};
//   if (std::string p = FileRowProblem(file, limits); !p.empty()) return CorruptRow(ix_path, p);
#pragma once

#include <cstdint>
#include <string>

#include "index/signature_index.h"
#include "neardup/status.h"

namespace neardup {

// The largest file id: a document's key is id * 2^32 + line, an int64.
inline constexpr int64_t kMaxFileId = (int64_t{1} << 31) - 1;
// The largest JSONL line number a document key holds.
inline constexpr uint64_t kMaxStoredLine = (uint64_t{1} << 32) - 1;

// What the rows of one index are checked against.
struct RowLimits {
  size_t num_perm = 0;  // values per signature (the run's, or the index's meta)
  // Most documents the file can hold: its size over the bytes of one
  // signature (each document row holds one). A count above it is a lie, and
  // is never used to size anything.
  uint64_t max_documents = 0;
  // Whether every path is absolute (schema version 2; version 1 keyed
  // files by relative paths too, and `index check` reads it as it is).
  bool absolute_paths = true;
};

// Most documents an index of `database_bytes` (page_count * page_size, WAL
// included) holds at `num_perm` values per signature.
uint64_t MaxDocuments(uint64_t database_bytes, size_t num_perm);

// Whether `path` is read through a decompressor (.gz, .zst): its size is not
// its text's, and a JSONL file of it keeps no line count.
bool CompressedPath(const std::string& path);

// One `files` row as read. Its integer columns were INTEGER values (else
// `not_integer` names the first that was not) and its path TEXT.
// Problems: an id out of 1..kMaxFileId; a path that is empty, or not
// absolute (limits.absolute_paths); a
// count, size or time out of its type's range; jsonl or ends_newline not 0
// or 1; a text file not of exactly one document; a plain JSONL file with
// more lines than bytes or more documents than lines; more documents than
// the limit.
std::string FileRowProblem(const IndexedFile& f, const RowLimits& limits, const std::string& not_integer = {});

// One `documents` row as read, raw: the values the decoder checks before it
// makes a DocRecord of them.
struct DocumentRow {
  int64_t key = 0;
  bool name_ok = true;  // TEXT or NULL
  int64_t size = 0;
  bool size_integer = true;
  size_t content_bytes = 16;  // a BLOB's length; SIZE_MAX when not a BLOB
  int64_t kind = 0;
  bool kind_integer = true;
  size_t signature_bytes = 0;  // a BLOB's length; SIZE_MAX when not a BLOB
  int64_t shingles = 0;        // distinct shingles; 0: not known (version 5)
  bool shingles_integer = true;
};

// Document row `d`, the `ordinal`-th (from 0) of file `f` (its key in f's
// range). Problems: more documents than f.documents; a line out of range (0
// for a text file; 1 and up for JSONL, at most f.lines + 1 for a plain
// file); a name neither TEXT nor NULL; a size out of range; a content hash
// not a 16-byte BLOB; a kind not 0 to 4; a signature not num_perm * 4 bytes;
// a shingle count not an integer, 0 or more.
std::string DocumentRowProblem(const DocumentRow& d, const IndexedFile& f, uint64_t ordinal, const RowLimits& limits);

// After all of f's document rows were read: `read` of them. A problem when
// it is not f.documents.
std::string DocumentCountProblem(const IndexedFile& f, uint64_t read);

// One `problems` row of file `f`: its line and whether its message is TEXT.
std::string ProblemRowProblem(const IndexedFile& f, int64_t line, bool line_integer, bool message_ok);

// `text` (a path, a value read) for a one-line message: control bytes
// (newlines among them: a file name may hold one) as \xNN.
std::string OneLine(const std::string& text);

// "files row ID (PATH)": how the messages name an entry (PATH as OneLine()).
std::string FileRowName(const IndexedFile& f);

// A scan's error for `problem` in the index at `index_path`: "IX: corrupt
// index: PROBLEM; `neardup index check IX` lists every problem; remove IX
// (the next run signs every file again) or give another --index FILE".
Status CorruptRow(const std::string& index_path, const std::string& problem);

}  // namespace neardup
