// The SQL layer of the index: an owned connection (Db), an owned prepared
// statement (Stmt) and the statements a connection keeps (StmtCache), one
// line per SQLite error, and the connection a reader or the writer opens.
// The index's files (signature_index, index_schema, index_check,
// index_lock) speak SQL through it; it knows no table.
//
// Errors are SQLite result codes (extended ones: a connection turns them
// on) until SqlError() makes a one-line Status naming the file of them.
//
// Thread safety: a connection and its statements are used by one thread at a
// time (SQLITE_OPEN_NOMUTEX).
//
//   int rc = SQLITE_OK;
//   Db db = Connect("mirror.db", /*write=*/false, /*immutable=*/false, &rc);
//   const int64_t version = QueryInt(db.get(), "PRAGMA user_version", &rc);
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "neardup/status.h"

namespace neardup {

// Owns a prepared statement.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) { rc_ = sqlite3_prepare_v2(db, sql, -1, &st_, nullptr); }
  ~Stmt() { sqlite3_finalize(st_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* raw() { return st_; }
  int prepare_rc() const { return rc_; }
  void Reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  void Bind(int i, int64_t v) { sqlite3_bind_int64(st_, i, v); }
  void BindU(int i, uint64_t v) { sqlite3_bind_int64(st_, i, static_cast<int64_t>(v)); }
  void Bind(int i, const std::string& s) {
    sqlite3_bind_text(st_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  }
  void BindBlob(int i, const void* p, size_t n) { sqlite3_bind_blob(st_, i, p, static_cast<int>(n), SQLITE_TRANSIENT); }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return sqlite3_step(st_); }
  int64_t Int(int c) const { return sqlite3_column_int64(st_, c); }
  uint64_t UInt(int c) const { return static_cast<uint64_t>(sqlite3_column_int64(st_, c)); }
  std::string Text(int c) const {
    const unsigned char* t = sqlite3_column_text(st_, c);
    return t == nullptr
               ? std::string()
               : std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(st_, c)));
  }
  bool IsNull(int c) const { return sqlite3_column_type(st_, c) == SQLITE_NULL; }
  int Type(int c) const { return sqlite3_column_type(st_, c); }
  const void* Blob(int c) const { return sqlite3_column_blob(st_, c); }
  size_t Bytes(int c) const { return static_cast<size_t>(sqlite3_column_bytes(st_, c)); }

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
  int rc_ = SQLITE_OK;
};

// Prepared statements kept for the life of a connection, by their SQL: the
// writes run once per file or document.
using StmtCache = std::unordered_map<std::string, std::unique_ptr<Stmt>>;

// The statement `sql` of `cache`, prepared on `h` the first time, reset.
Stmt& Cached(sqlite3* h, StmtCache& cache, const char* sql);

// One line for an SQLite error on `path`.
Status SqlError(sqlite3* db, const std::string& path, int rc);

// Runs SQL without results; the SQLite result.
int Exec(sqlite3* db, const char* sql);

// Reads one integer (a PRAGMA); the error code in *rc.
int64_t QueryInt(sqlite3* db, const char* sql, int* rc);

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
// An open connection; closing it rolls back what it left uncommitted.
using Db = std::unique_ptr<sqlite3, DbCloser>;

// Whether `path` has a -wal journal with something in it (committed pages
// not yet in the file, or a writer at work).
bool HasJournal(const std::string& path);

// A connection to `path`, read-write or read-only, or read-only and
// immutable (?immutable=1: no locks, no -shm; only for a file nobody
// writes); the SQLite result in *rc.
Db Connect(const std::string& path, bool write, bool immutable, int* rc);

}  // namespace neardup
