// The schema of an --index file and its migrations: the tables a new index
// gets, how an index of an older version is brought to this one, the checks
// that a file is a neardup index this build reads (OpenDb), the signature
// parameters kept in `meta`, and how the rows of `files` and `documents` are
// laid out in columns (written by signature_index.cc, read by it and by
// index_check.cc). The schema is described in docs/index.md; its version is
// PRAGMA user_version (kIndexSchemaVersion), and PRAGMA application_id marks
// the file as neardup's.
//
// Migrations run when a file is opened for writing, each in one transaction:
// version 1 -> 2 (MigrateV1), then the pending marks added to a version 2
// file made before them, then version 2 -> 3 (the `bitmaps` table, empty:
// index_bitmaps.h), then 3 -> 4 (nothing but the number: a version 4 file
// may hold signatures of MinHash definition 1, which a build that reads
// version 3 must not mix with its own; `meta` says which definition, no
// row meaning definition 0), then 4 -> 5 (`documents.shingles`, 0 in the
// rows already there: not known until their files are signed again). A
// file opened to read is read as it is.
//
// Errors are one line naming the file (SqlError and the checks below).
//
// Thread safety: free functions; a connection is used by one thread at a time.
//
//   bool fresh = false;
//   Result<Db> db = OpenDb("mirror.db", /*write=*/false, /*create=*/nullptr, &fresh);
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "index/index_rows.h"
#include "index/index_sql.h"
#include "index/signature_index.h"
#include "neardup/index.h"

namespace neardup {

// A document's key: its file's id times 2^32 plus its line, so that the
// documents of a file are one range of a rowid table (appended in order,
// pages stay full).
inline constexpr int kLineBits = 32;
inline constexpr uint64_t kMaxLine = (uint64_t{1} << kLineBits) - 1;
inline int64_t DocKey(int64_t file_id, uint64_t line) { return (file_id << kLineBits) | static_cast<int64_t>(line); }

// The time as the index stores it: UTC, ISO 8601, to the second.
std::string NowUtc();

// The parameters as stored in `meta`, name and value, in a fixed order.
std::vector<std::pair<std::string, std::string>> ParamRows(const SignatureParams& p);

// An index is one file under one name: SQLite names its journal (-wal,
// -shm) after the name a process opened, so two processes writing the same
// file through two hard-linked names each keep a journal of their own, and
// one killed mid-write leaves the file "malformed" (SQLite's "How To Corrupt
// An SQLite Database File", 2.5). A file with more than one name is refused
// for writing, before SQLite or the lock touch it. `st` is the file's stat.
Status CheckOneName(const std::string& path, const struct stat& st);

// Opens `path` with SQLite and checks that it is a neardup index of a schema
// this build reads. With `create` (not null), an empty database gets the
// schema and those parameters in one transaction; to `write`, an older schema
// is migrated to this one. *fresh says whether it was created now. Errors:
// "PATH: not a neardup index ...", "PATH: index schema version N is newer
// ...", SqlError's.
Result<Db> OpenDb(const std::string& path, bool write, const SignatureParams* create, bool* fresh);

// Stores `params` (and the time, as `created`) in the `meta` of a new index.
Status PutParams(sqlite3* h, const std::string& path, const SignatureParams& params);
// OK when `params` are the ones stored in `meta` (stored now when `meta`
// holds none and no file is indexed yet); else "PATH: the signature
// parameters differ from the index's (...)", naming each difference. When
// the only difference is an older MinHash definition in `meta` (signatures
// made before this one), OK with *older_minhash set: the caller signs the
// files again (SignFilesAgain).
Status CheckParams(sqlite3* h, const std::string& path, const SignatureParams& params, bool* older_minhash);
// Marks every file entry to be signed again when next walked (its age
// unknown, as a version 1 entry's: see sign_indexed.h), and stores `params`'
// MinHash definition in `meta`, in one transaction: signatures of the older
// definition are then never reused, and a file whose documents are still
// the stored ones (content hashes, names, kinds) counts as reused, not new.
Status SignFilesAgain(sqlite3* h, const std::string& path, const SignatureParams& params);

// Marks the files whose signed documents have no shingle count (0: stored
// by a version 4 index or a run without --relation) to be signed again when
// next walked, as SignFilesAgain() does. Returns how many were marked.
Result<uint64_t> SignUncountedAgain(sqlite3* h, const std::string& path);

// The index's --new job, from `meta`; empty when no --new run delivered yet.
Result<NewJob> ReadNewJob(sqlite3* h, const std::string& path);

// The SELECT of every `files` row; `old` columns a file may lack (seen_ns:
// version 1; pending: a version 2 file made before the pending marks) read
// as 0.
std::string FileColumns(bool has_seen_ns, bool has_pending);

// Reads the current row of `q` (FileColumns()) into *f. Returns the name of
// the first column that is not of its type (INTEGER; path TEXT; jsonl and
// ends_newline 0 or 1), or empty.
std::string ReadFileRow(const Stmt& q, IndexedFile* f);

// The rows' limits of the database `h` at `num_perm` values per signature.
Result<RowLimits> LimitsOf(sqlite3* h, const std::string& path, size_t num_perm);

// A content hash as stored: 16 bytes, high then low, big-endian; bound to
// column `col` of `st`.
void PutContent(Stmt& st, int col, const ContentHash& c);

// A content hash as PutContent() stored it in column `col` of `st`; zero
// when the column is not 16 bytes.
ContentHash GetContent(const Stmt& st, int col);

// The SELECT of document rows (DocumentColumns + " WHERE ..."): key, name,
// size, content, kind, signature, shingles.
inline constexpr const char* kDocumentColumns =
    "SELECT key, name, size, content, kind, signature, shingles FROM documents";

// The current row of `q` (kDocumentColumns), raw.
DocumentRow RawDocumentRow(const Stmt& q);

// The record of the current row of `q`, once RawDocumentRow() passed the
// checks, and its signature into `sig`.
DocRecord ReadDocumentRow(const Stmt& q, std::vector<uint32_t>& sig);

}  // namespace neardup
