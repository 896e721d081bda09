#include "index/index_sql.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>

#include "neardup/quote.h"

namespace neardup {

namespace {

// An SQLite URI for `path` ("file:" and the path with '%', '?' and '#'
// escaped; an absolute path after an empty authority, so that "//x" stays a
// path).
std::string UriOf(const std::string& path) {
  std::string uri = path.starts_with('/') ? "file://" : "file:";
  for (const char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", static_cast<unsigned char>(c));
      uri += hex;
    } else {
      uri += c;
    }
  }
  return uri;
}

}  // namespace

Stmt& Cached(sqlite3* h, StmtCache& cache, const char* sql) {
  std::unique_ptr<Stmt>& st = cache[sql];
  if (st == nullptr) st = std::make_unique<Stmt>(h, sql);
  st->Reset();
  return *st;
}

Status SqlError(sqlite3* db, const std::string& path, int rc) {
  const int primary = rc & 0xff;
  // A write that fails (SQLITE_IOERR_WRITE: a short write, EFBIG) is, in
  // practice, a full disk or a quota, as SQLITE_FULL (ENOSPC) is.
  if (primary == SQLITE_FULL || rc == SQLITE_IOERR_WRITE ||
      (primary == SQLITE_IOERR && db != nullptr &&
       (sqlite3_system_errno(db) == ENOSPC || sqlite3_system_errno(db) == EFBIG ||
        sqlite3_system_errno(db) == EDQUOT))) {
    return Status::IoError(ShellQuoted(path) +
                           ": disk full (or over quota) while writing the index; it keeps its last committed state");
  }
  const std::string detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  switch (primary) {
    case SQLITE_NOTADB:
      return Status::InvalidArgument(ShellQuoted(path) + ": not a neardup index (not an SQLite database)");
    case SQLITE_CORRUPT:
      return Status::Corrupt(ShellQuoted(path) + ": corrupt index (" + detail +
                             "); start a new index with another --index FILE, or remove " + ShellQuoted(path));
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CANTOPEN:
      return Status::IoError(ShellQuoted(path) + ": read-only or cannot be opened for writing (" + detail + ")");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::IoError(ShellQuoted(path) + ": busy (" + detail + ")");
    default:
      return Status::IoError(ShellQuoted(path) + ": index error (" + detail + ") ");
  }
}

int Exec(sqlite3* db, const char* sql) { return sqlite3_exec(db, sql, nullptr, nullptr, nullptr); }

// Reads one integer (a PRAGMA); the error code in *rc.
int64_t QueryInt(sqlite3* db, const char* sql, int* rc) {
  Stmt st(db, sql);
  if (!st.ok()) {
    *rc = st.prepare_rc();
    return 0;
  }
  const int r = st.Step();
  if (r == SQLITE_ROW) {
    *rc = SQLITE_OK;
    return st.Int(0);
  }
  *rc = r == SQLITE_DONE ? SQLITE_OK : r;
  return 0;
}

bool HasJournal(const std::string& path) {
  struct stat st {};
  return ::stat((path + "-wal").c_str(), &st) == 0 && st.st_size > 0;
}

// A connection to `path`, read-write or read-only, or read-only and
// immutable (?immutable=1: no locks, no -shm; only for a file nobody
// writes); the SQLite result in *rc.
Db Connect(const std::string& path, bool write, bool immutable, int* rc) {
  sqlite3* raw = nullptr;
  const int flags = (write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
  const std::string name = immutable ? UriOf(path) + "?immutable=1" : UriOf(path);
  *rc = sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
  Db db(raw);
  if (*rc == SQLITE_OK) {
    sqlite3_busy_timeout(db.get(), 10000);
    sqlite3_extended_result_codes(db.get(), 1);
  }
  return db;
}

}  // namespace neardup
