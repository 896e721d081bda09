// SignatureIndex over SQLite: the only file that includes sqlite3.h.
#include "index/signature_index.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <new>
#include <thread>
#include <unordered_map>

#include "base/parallel.h"
#include "index/index_rows.h"
#include "neardup/quote.h"

namespace neardup {

namespace {

// A document's key: its file's id times 2^32 plus its line, so that the
// documents of a file are one range of a rowid table (appended in order,
// pages stay full).
constexpr int kLineBits = 32;
constexpr uint64_t kMaxLine = (uint64_t{1} << kLineBits) - 1;
int64_t DocKey(int64_t file_id, uint64_t line) { return (file_id << kLineBits) | static_cast<int64_t>(line); }

// PRAGMA application_id of a neardup index: "NDUP".
constexpr int32_t kApplicationId = 0x4E445550;

// The schema of a new index (version 2: version 1, `files.seen_ns`, and
// what --new delivers at least once: `files.pending`, `runs.delivered` and
// `run_files`; see kPendingSchema).
constexpr const char* kSchema = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE files(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  dev INTEGER NOT NULL, inode INTEGER NOT NULL, size INTEGER NOT NULL,
  mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,
  reading INTEGER NOT NULL,
  jsonl INTEGER NOT NULL,
  lines INTEGER NOT NULL, raw_hash INTEGER NOT NULL, ends_newline INTEGER NOT NULL,
  bytes INTEGER NOT NULL, invalid_utf8 INTEGER NOT NULL, transcoded INTEGER NOT NULL,
  documents INTEGER NOT NULL,
  run INTEGER NOT NULL,
  seen_ns INTEGER NOT NULL DEFAULT 0,
  pending INTEGER NOT NULL DEFAULT 0);
CREATE TABLE documents(
  key INTEGER PRIMARY KEY,
  name TEXT,
  size INTEGER NOT NULL,
  content BLOB NOT NULL,
  kind INTEGER NOT NULL,
  signature BLOB NOT NULL);
CREATE TABLE problems(
  file_id INTEGER NOT NULL,
  line INTEGER NOT NULL,
  message TEXT NOT NULL,
  PRIMARY KEY(file_id, line)) WITHOUT ROWID;
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  started TEXT NOT NULL, ended TEXT,
  pid INTEGER NOT NULL, host TEXT NOT NULL,
  reused INTEGER, signed INTEGER, removed INTEGER, documents INTEGER,
  exit_status INTEGER,
  options TEXT NOT NULL,
  delivered INTEGER);
CREATE TABLE run_files(run INTEGER NOT NULL, file_id INTEGER NOT NULL, PRIMARY KEY(run, file_id)) WITHOUT ROWID;
CREATE VIEW named_documents AS
  SELECT f.path AS path, d.key & 4294967295 AS line,
         coalesce(d.name, CASE WHEN f.jsonl THEN f.path || ':' || (d.key & 4294967295) ELSE f.path END) AS name,
         d.size AS size, f.mtime_ns AS mtime_ns, hex(d.content) AS content, d.kind AS kind
  FROM documents d JOIN files f ON f.id = d.key >> 32;
CREATE TABLE lock(id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, host TEXT NOT NULL, started TEXT NOT NULL);
)sql";

std::string NowUtc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

int64_t WallClockNs() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::string HostName() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "?";
  return buf;
}

// The parameters as stored in `meta`, name and value, in a fixed order.
std::vector<std::pair<std::string, std::string>> ParamRows(const SignatureParams& p) {
  return {{"--shingle", ToString(p.shingle)},
          {"--ngram", std::to_string(p.ngram)},
          {"--num-perm", std::to_string(p.num_perm)},
          {"--seed", std::to_string(p.seed)},
          {"--encoding", p.encoding == Encoding::kUtf8 ? "utf8" : "latin1"},
          {"tokenizer", std::to_string(p.tokenizer_version)}};
}

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

Stmt& Cached(sqlite3* h, StmtCache& cache, const char* sql) {
  std::unique_ptr<Stmt>& st = cache[sql];
  if (st == nullptr) st = std::make_unique<Stmt>(h, sql);
  st->Reset();
  return *st;
}

// One line for an SQLite error on `path`.
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

// Runs SQL without results.
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

// The pending marks, added to a version 2 index made before they were part
// of version 2 (version 2 is that schema with them): `files.pending` (0: its
// documents were delivered; else the id of the run that last signed them),
// `runs.delivered` (1: the run's whole output was written) and `run_files`
// (the pending files a run covered, cleared when it delivered). Entries of
// such a file count as delivered.
Status AddPendingMarks(sqlite3* db, const std::string& path) {
  int rc = SQLITE_OK;
  const int64_t has = QueryInt(db, "SELECT count(*) FROM pragma_table_info('files') WHERE name = 'pending'", &rc);
  if (rc != SQLITE_OK) return SqlError(db, path, rc);
  if (has != 0) return Status::Ok();
  constexpr const char* kSql = R"sql(
BEGIN IMMEDIATE;
ALTER TABLE files ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN delivered INTEGER;
CREATE TABLE IF NOT EXISTS run_files(run INTEGER NOT NULL, file_id INTEGER NOT NULL, PRIMARY KEY(run, file_id)) WITHOUT ROWID;
COMMIT;
)sql";
  if (rc = Exec(db, kSql); rc != SQLITE_OK) {
    Status s = SqlError(db, path, rc);
    Exec(db, "ROLLBACK");
    return s;
  }
  return Status::Ok();
}

// Version 1 -> 2, in one transaction: `files.seen_ns` added, 0 (unknown)
// for every entry, so each is read again and compared once (racily clean,
// see sign_indexed.h); and the entries of relative paths dropped: version 1
// keyed files by the path as spelled, relative to the cwd of the run that
// stored them, which is not known any more (version 2 keys are absolute,
// canonical paths). Their files are signed again by the next run.
Status MigrateV1(sqlite3* db, const std::string& path) {
  constexpr const char* kSql = R"sql(
BEGIN IMMEDIATE;
ALTER TABLE files ADD COLUMN seen_ns INTEGER NOT NULL DEFAULT 0;
DELETE FROM documents WHERE (key >> 32) IN (SELECT id FROM files WHERE substr(path, 1, 1) != '/');
DELETE FROM problems WHERE file_id IN (SELECT id FROM files WHERE substr(path, 1, 1) != '/');
DELETE FROM files WHERE substr(path, 1, 1) != '/';
DROP VIEW named_documents;
CREATE VIEW named_documents AS
  SELECT f.path AS path, d.key & 4294967295 AS line,
         coalesce(d.name, CASE WHEN f.jsonl THEN f.path || ':' || (d.key & 4294967295) ELSE f.path END) AS name,
         d.size AS size, f.mtime_ns AS mtime_ns, hex(d.content) AS content, d.kind AS kind
  FROM documents d JOIN files f ON f.id = d.key >> 32;
PRAGMA user_version = 2;
COMMIT;
)sql";
  if (const int rc = Exec(db, kSql); rc != SQLITE_OK) {
    Status s = SqlError(db, path, rc);
    Exec(db, "ROLLBACK");
    return s;
  }
  return Status::Ok();
}

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using Db = std::unique_ptr<sqlite3, DbCloser>;

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

// Whether `path` has a -wal journal with something in it (committed pages
// not yet in the file, or a writer at work).
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

// Opens `path` with SQLite and checks that it is a neardup index of a schema
// this build reads. With `create`, an empty database gets the schema.
// *fresh says whether it was created now.
// An index is one file under one name: SQLite names its journal (-wal,
// -shm) after the name a process opened, so two processes writing the same
// file through two hard-linked names each keep a journal of their own, and
// one killed mid-write leaves the file "malformed" (SQLite's "How To Corrupt
// An SQLite Database File", 2.5). A file with more than one name is refused
// for writing, before SQLite or the lock touch it. `st` is the file's stat.
Status CheckOneName(const std::string& path, const struct stat& st) {
  if (st.st_nlink <= 1) return Status::Ok();
  return Status::InvalidArgument(ShellQuoted(path) + ": the index has " + std::to_string(st.st_nlink) +
                                 " names (hard links); SQLite keeps its journal by name, so writing it under two "
                                 "names can corrupt it: remove the other names, or give a copy (cp) as --index FILE");
}

// A file that does not start as SQLite's do is not an index: says so
// before SQLite looks at it. OK for an SQLite file (or an empty one, when
// `create`); to `write`, only a file with one name (CheckOneName).
Status CheckIndexHead(const std::string& path, bool create, bool write) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    if (e == ENOENT) return Status::NotFound(ShellQuoted(path) + ": no such index");
    return Status::IoError(ShellQuoted(path) + ": cannot open the index: " + std::strerror(e));
  }
  struct stat st {};
  char head[16] = {0};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  const ssize_t n = regular ? ::read(fd, head, sizeof head) : -1;
  ::close(fd);
  if (!regular) return Status::InvalidArgument(ShellQuoted(path) + ": not a neardup index (not a regular file)");
  if (n != 0 && (n != 16 || std::memcmp(head, "SQLite format 3", 16) != 0)) {
    return Status::InvalidArgument(ShellQuoted(path) + ": not a neardup index (not an SQLite database)");
  }
  if (n == 0 && !create) return Status::InvalidArgument(ShellQuoted(path) + ": not a neardup index (an empty file)");
  return write ? CheckOneName(path, st) : Status::Ok();
}

// The index's --new job, from `meta`; empty when no --new run delivered yet.
Result<NewJob> ReadNewJob(sqlite3* h, const std::string& path) {
  NewJob job;
  Stmt q(h, "SELECT key, value FROM meta WHERE key IN ('new_job', 'new_job_options')");
  if (!q.ok()) return SqlError(h, path, q.prepare_rc());
  int rc = SQLITE_OK;
  while ((rc = q.Step()) == SQLITE_ROW) {
    (q.Text(0) == "new_job" ? job.fingerprint : job.description) = q.Text(1);
  }
  if (rc != SQLITE_DONE) return SqlError(h, path, rc);
  return job;
}

Result<Db> OpenDb(const std::string& path, bool write, bool create, bool* fresh) {
  if (Status s = CheckIndexHead(path, create, write); !s.ok()) return s;
  int rc = SQLITE_OK;
  Db db = Connect(path, write, /*immutable=*/false, &rc);
  if (rc != SQLITE_OK) return SqlError(db.get(), path, rc);
  int64_t app = QueryInt(db.get(), "PRAGMA application_id", &rc);
  if (!write && (rc & 0xff) == SQLITE_CANTOPEN && !HasJournal(path)) {
    // A WAL index in a directory this process cannot write (a read-only
    // mount): SQLite cannot make the -shm file readers share. With no -wal
    // journal, nobody is writing it and every committed page is in the file
    // itself: read it as immutable (no locks, no -shm).
    db = Connect(path, write, /*immutable=*/true, &rc);
    if (rc != SQLITE_OK) return SqlError(db.get(), path, rc);
    app = QueryInt(db.get(), "PRAGMA application_id", &rc);
  } else if (!write && (rc & 0xff) == SQLITE_CANTOPEN) {
    return Status::IoError(ShellQuoted(path) +
                           ": cannot be read here: its -wal journal holds pages not yet in it, and its "
                           "directory is read-only (no -shm file can be made); open it once where it can be "
                           "written (any neardup scan --index, or `sqlite3 " +
                           ShellQuoted(path) + " .tables`)");
  }
  if (rc != SQLITE_OK) return SqlError(db.get(), path, rc);
  const int64_t version = QueryInt(db.get(), "PRAGMA user_version", &rc);
  if (rc != SQLITE_OK) return SqlError(db.get(), path, rc);
  const int64_t tables = QueryInt(db.get(), "SELECT count(*) FROM sqlite_master", &rc);
  if (rc != SQLITE_OK) return SqlError(db.get(), path, rc);
  *fresh = false;
  if (app == 0 && version == 0 && tables == 0) {
    if (!create) return Status::InvalidArgument(ShellQuoted(path) + ": not a neardup index (an empty database)");
    // Large pages hold a signature row (~600 bytes at 128 permutations)
    // with little slack; set before the first table exists.
    std::string sql = std::string("PRAGMA page_size = 16384; BEGIN IMMEDIATE;").append(kSchema);
    sql.append("PRAGMA application_id = ").append(std::to_string(kApplicationId)).append(";");
    sql.append("PRAGMA user_version = ").append(std::to_string(kIndexSchemaVersion)).append(";COMMIT;");
    rc = Exec(db.get(), sql.c_str());
    if (rc != SQLITE_OK) {
      Status s = SqlError(db.get(), path, rc);
      Exec(db.get(), "ROLLBACK");
      return s;
    }
    *fresh = true;
  } else if (app != kApplicationId) {
    return Status::InvalidArgument(ShellQuoted(path) +
                                   ": not a neardup index (an SQLite database of another application)");
  } else if (version > kIndexSchemaVersion) {
    return Status::InvalidArgument(ShellQuoted(path)
                                       .append(": index schema version ")
                                       .append(std::to_string(version))
                                       .append(" is newer than this neardup reads (")
                                       .append(std::to_string(kIndexSchemaVersion))
                                       .append("); use a newer neardup, or start a new index"));
  } else if (version == 1 && write) {
    if (Status s = MigrateV1(db.get(), path); !s.ok()) return s;
    if (Status s = AddPendingMarks(db.get(), path); !s.ok()) return s;
  } else if (version == 2 && write) {
    if (Status s = AddPendingMarks(db.get(), path); !s.ok()) return s;
  } else if (version < 1) {
    return Status::InvalidArgument(ShellQuoted(path) + ": unknown index schema version " + std::to_string(version));
  }  // a version 1 file opened to read: its tables read as version 2's (info, check)
  if (write) {
    rc = Exec(db.get(), "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    if (rc != SQLITE_OK) return SqlError(db.get(), path, rc);
  }
  return db;
}

// Who holds the lock, from the `lock` row. The holder writes it just after
// taking the lock (and creating the schema of a new index), so it is given
// a moment to appear.
std::string Holder(const std::string& path) {
  for (int attempt = 0; attempt < 40; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    bool fresh = false;
    Result<Db> db = OpenDb(path, /*write=*/false, /*create=*/false, &fresh);
    if (!db.ok()) continue;
    Stmt st(db->get(), "SELECT pid, host, started FROM lock WHERE id = 1");
    if (!st.ok() || st.Step() != SQLITE_ROW) continue;
    return std::string("pid ")
        .append(std::to_string(st.Int(0)))
        .append(" on ")
        .append(OneLine(st.Text(1)))
        .append(" since ")
        .append(st.Text(2));
  }
  return "another process";
}

void PutContent(Stmt& st, int col, const ContentHash& c) {
  unsigned char b[16];
  for (int i = 0; i < 8; ++i) {
    b[i] = static_cast<unsigned char>(c.high >> (56 - 8 * i));
    b[8 + i] = static_cast<unsigned char>(c.low >> (56 - 8 * i));
  }
  st.BindBlob(col, b, sizeof b);
}

ContentHash GetContent(const Stmt& st, int col) {
  ContentHash c;
  if (st.Bytes(col) != 16) return c;
  const auto* b = static_cast<const unsigned char*>(st.Blob(col));
  for (int i = 0; i < 8; ++i) {
    c.high = (c.high << 8) | b[i];
    c.low = (c.low << 8) | b[8 + i];
  }
  return c;
}

}  // namespace

struct SignatureIndex::Impl {
  Db db;
  StmtCache cache;  // cleared before db closes
  int fd = -1;      // holds the flock
  int num_perm = 0;
  int64_t run = 0;
  int64_t run_started_ns = 0;  // wall clock when StartRun() was called: the seen_ns of what the run writes
  // Entries Files() last read: a hint for LoadDocuments' choice of plan (a
  // count(*) reads the whole table), right or not.
  int64_t files_read = -1;
  RowLimits limits;  // what the rows are checked against, set by Files()
  ~Impl() {
    cache.clear();
    if (db != nullptr) {
      Exec(db.get(), "ROLLBACK");  // what an error left uncommitted
      Exec(db.get(), "DELETE FROM lock");
      db.reset();  // closes SQLite (checkpoints the WAL) before the flock goes
    }
    if (fd >= 0) ::close(fd);
  }
};

SignatureIndex::SignatureIndex(std::unique_ptr<Impl> impl, std::string path)
    : impl_(std::move(impl)), path_(std::move(path)) {}
SignatureIndex::~SignatureIndex() = default;

Result<std::unique_ptr<SignatureIndex>> SignatureIndex::Open(const std::string& path, const SignatureParams& params,
                                                             const IndexOpenOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->num_perm = params.num_perm;
  impl->fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
  if (impl->fd < 0) {
    const int e = errno;
    if (e == EACCES || e == EROFS || e == EPERM || e == ETXTBSY) {
      return Status::IoError(ShellQuoted(path) + ": the index is read-only (" + std::strerror(e) + ")");
    }
    if (e == EISDIR) return Status::InvalidArgument(ShellQuoted(path) + ": not a neardup index (a directory)");
    return Status::IoError(ShellQuoted(path) + ": cannot open the index: " + std::strerror(e));
  }
  struct stat st {};
  if (::fstat(impl->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return Status::InvalidArgument(ShellQuoted(path) + ": not a neardup index (not a regular file)");
  }
  if (Status s = CheckOneName(path, st); !s.ok()) return s;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int64_t>(options.lock_wait * 1000));
  while (::flock(impl->fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) {
      return Status::IoError(ShellQuoted(path) + ": cannot lock the index: " + std::strerror(errno));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      std::string msg = ShellQuoted(path) + ": in use by " + Holder(path);
      msg += options.lock_wait > 0 ? " (waited " + std::to_string(static_cast<int64_t>(options.lock_wait)) + " s)"
                                   : "; give --lock-wait SECONDS to wait for it";
      return Status::IoError(msg);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  bool fresh = false;
  Result<Db> db = OpenDb(path, /*write=*/true, /*create=*/true, &fresh);
  if (!db.ok()) return db.status();
  impl->db = std::move(*db);
  sqlite3* h = impl->db.get();
  const auto rows = ParamRows(params);
  if (fresh) {
    if (int rc = Exec(h, "BEGIN IMMEDIATE"); rc != SQLITE_OK) return SqlError(h, path, rc);
    Stmt ins(h, "INSERT INTO meta(key, value) VALUES(?, ?)");
    for (const auto& [k, v] : rows) {
      ins.Reset();
      ins.Bind(1, k);
      ins.Bind(2, v);
      if (int rc = ins.Step(); rc != SQLITE_DONE) return SqlError(h, path, rc);
    }
    ins.Reset();
    ins.Bind(1, std::string("created"));
    ins.Bind(2, NowUtc());
    if (int rc = ins.Step(); rc != SQLITE_DONE) return SqlError(h, path, rc);
    if (int rc = Exec(h, "COMMIT"); rc != SQLITE_OK) return SqlError(h, path, rc);
  } else {
    std::unordered_map<std::string, std::string> stored;
    Stmt q(h, "SELECT key, value FROM meta");
    if (!q.ok()) return SqlError(h, path, q.prepare_rc());
    for (int rc; (rc = q.Step()) != SQLITE_DONE;) {
      if (rc != SQLITE_ROW) return SqlError(h, path, rc);
      stored[q.Text(0)] = q.Text(1);
    }
    std::string diff;
    for (const auto& [k, v] : rows) {
      const auto it = stored.find(k);
      const std::string theirs = it == stored.end() ? "none" : OneLine(it->second);
      if (theirs != v)
        diff.append(diff.empty() ? "" : ", ").append(k + ": " + v + " here, " + theirs + " in the index");
    }
    if (!diff.empty()) {
      return Status::InvalidArgument(ShellQuoted(path) + ": the signature parameters differ from the index's (" + diff +
                                     "); to start a new index, give another --index FILE or remove " +
                                     ShellQuoted(path));
    }
  }
  // The holder, for a second run's message.
  {
    Stmt lock(h, "INSERT OR REPLACE INTO lock(id, pid, host, started) VALUES(1, ?, ?, ?)");
    lock.Bind(1, static_cast<int64_t>(::getpid()));
    lock.Bind(2, HostName());
    lock.Bind(3, NowUtc());
    if (int rc = lock.Step(); rc != SQLITE_DONE) return SqlError(h, path, rc);
  }
  return std::unique_ptr<SignatureIndex>(new SignatureIndex(std::move(impl), path));
}

namespace {

// The columns of `files` as read, in the order FileColumns() selects them.
constexpr const char* kFileColumnNames[] = {
    "id",    "path",     "dev",          "inode", "size",         "mtime_ns",   "ctime_ns",  "reading", "jsonl",
    "lines", "raw_hash", "ends_newline", "bytes", "invalid_utf8", "transcoded", "documents", "seen_ns", "pending"};

// The SELECT of every `files` row; `old` columns a file may lack (seen_ns:
// version 1; pending: a version 2 file made before the pending marks) read
// as 0.
std::string FileColumns(bool has_seen_ns, bool has_pending) {
  return std::string(
             "SELECT id, path, dev, inode, size, mtime_ns, ctime_ns, reading, jsonl, lines, raw_hash, ends_newline, "
             "bytes, invalid_utf8, transcoded, documents, ")
      .append(has_seen_ns ? "seen_ns, " : "0, ")
      .append(has_pending ? "pending" : "0")
      .append(" FROM files");
}

// Reads the current row of `q` (FileColumns()) into *f. Returns the name of
// the first column that is not of its type (INTEGER; path TEXT; jsonl and
// ends_newline 0 or 1), or empty.
std::string ReadFileRow(const Stmt& q, IndexedFile* f) {
  f->id = q.Int(0);
  f->path = q.Text(1);
  f->dev = q.UInt(2);
  f->inode = q.UInt(3);
  f->size = q.UInt(4);
  f->mtime_ns = q.Int(5);
  f->ctime_ns = q.Int(6);
  f->reading = q.UInt(7);
  f->jsonl = q.Int(8) != 0;
  f->lines = q.UInt(9);
  f->raw_hash = q.UInt(10);
  f->ends_newline = q.Int(11) != 0;
  f->bytes = q.UInt(12);
  f->invalid_utf8 = q.UInt(13);
  f->transcoded = q.UInt(14);
  f->documents = q.UInt(15);
  f->seen_ns = q.Int(16);
  f->pending = q.Int(17);
  if (q.Type(1) != SQLITE_TEXT) return "path";
  for (int c = 0; c < 18; ++c) {
    if (c != 1 && q.Type(c) != SQLITE_INTEGER) return kFileColumnNames[c];
  }
  for (const int c : {8, 11}) {
    if (q.Int(c) != 0 && q.Int(c) != 1) return std::string(kFileColumnNames[c]) + " (0 or 1)";
  }
  return {};
}

// The rows' limits of the database `h` at `num_perm` values per signature.
Result<RowLimits> LimitsOf(sqlite3* h, const std::string& path, size_t num_perm) {
  int rc = SQLITE_OK;
  const int64_t pages = QueryInt(h, "PRAGMA page_count", &rc);
  if (rc != SQLITE_OK) return SqlError(h, path, rc);
  const int64_t page_size = QueryInt(h, "PRAGMA page_size", &rc);
  if (rc != SQLITE_OK) return SqlError(h, path, rc);
  const uint64_t bytes =
      static_cast<uint64_t>(std::max<int64_t>(pages, 0)) * static_cast<uint64_t>(std::max<int64_t>(page_size, 0));
  return RowLimits{.num_perm = num_perm, .max_documents = MaxDocuments(bytes, num_perm)};
}

// The current row of `q` (key, name, size, content, kind, signature), raw.
DocumentRow RawDocumentRow(const Stmt& q) {
  const int name_type = q.Type(1);
  return DocumentRow{.key = q.Int(0),
                     .name_ok = name_type == SQLITE_TEXT || name_type == SQLITE_NULL,
                     .size = q.Int(2),
                     .size_integer = q.Type(2) == SQLITE_INTEGER,
                     .content_bytes = q.Type(3) == SQLITE_BLOB ? q.Bytes(3) : SIZE_MAX,
                     .kind = q.Int(4),
                     .kind_integer = q.Type(4) == SQLITE_INTEGER,
                     .signature_bytes = q.Type(5) == SQLITE_BLOB ? q.Bytes(5) : SIZE_MAX};
}

// The record of the current row of `q`, once RawDocumentRow() passed the
// checks, and its signature into `sig`.
DocRecord ReadDocumentRow(const Stmt& q, std::vector<uint32_t>& sig) {
  DocRecord r;
  r.line = q.UInt(0) & kMaxLine;
  r.name = q.Text(1);
  r.size = q.UInt(2);
  r.content = GetContent(q, 3);
  r.kind = static_cast<DocKind>(q.Int(4));
  std::memcpy(sig.data(), q.Blob(5), sig.size() * sizeof(uint32_t));
  return r;
}

}  // namespace

Result<std::vector<IndexedFile>> SignatureIndex::Files() {
  sqlite3* h = impl_->db.get();
  Result<RowLimits> limits = LimitsOf(h, path_, static_cast<size_t>(impl_->num_perm));
  if (!limits.ok()) return limits.status();
  impl_->limits = *limits;
  Stmt q(h, FileColumns(true, true).c_str());
  if (!q.ok()) return SqlError(h, path_, q.prepare_rc());
  int count_rc = SQLITE_OK;
  const int64_t count = QueryInt(h, "SELECT count(*) FROM files", &count_rc);
  std::vector<IndexedFile> out;
  if (count_rc == SQLITE_OK && count > 0) out.reserve(static_cast<size_t>(count));  // one allocation
  uint64_t documents = 0;
  for (int rc; (rc = q.Step()) != SQLITE_DONE;) {
    if (rc != SQLITE_ROW) return SqlError(h, path_, rc);
    IndexedFile f;
    const std::string not_integer = ReadFileRow(q, &f);
    if (std::string p = FileRowProblem(f, impl_->limits, not_integer); !p.empty()) return CorruptRow(path_, p);
    documents += f.documents;  // each at most max_documents: no overflow
    if (documents > impl_->limits.max_documents) {
      return CorruptRow(path_, "files: the documents of its rows add up to more than the index's size can hold (" +
                                   std::to_string(impl_->limits.max_documents) + "), at " + FileRowName(f));
    }
    out.push_back(std::move(f));
  }
  impl_->files_read = static_cast<int64_t>(out.size());
  return out;
}

namespace {

// The slot of each wanted file id: a table by id when the ids are dense
// enough (most indexes: ids are given in order), else a sorted list. Never
// sized by an id alone.
class SlotOf {
 public:
  explicit SlotOf(const std::vector<const IndexedFile*>& wanted) {
    for (size_t k = 0; k < wanted.size(); ++k) sorted_.emplace_back(wanted[k]->id, k);
    std::sort(sorted_.begin(), sorted_.end());
    const int64_t max_id = sorted_.empty() ? 0 : sorted_.back().first;
    if (static_cast<uint64_t>(max_id) <= 4 * uint64_t{sorted_.size()} + 65536) {
      dense_.assign(static_cast<size_t>(max_id) + 1, SIZE_MAX);
      for (const auto& [id, slot] : sorted_) dense_[static_cast<size_t>(id)] = slot;
    }
  }
  // The slot of file `id`; SIZE_MAX when not wanted.
  size_t operator()(int64_t id) const {
    if (!dense_.empty())
      return id >= 0 && static_cast<uint64_t>(id) < dense_.size() ? dense_[static_cast<size_t>(id)] : SIZE_MAX;
    const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), std::make_pair(id, size_t{0}));
    return it != sorted_.end() && it->first == id ? it->second : SIZE_MAX;
  }
  // (id, slot), by id.
  const std::vector<std::pair<int64_t, size_t>>& sorted() const { return sorted_; }

 private:
  std::vector<std::pair<int64_t, size_t>> sorted_;
  std::vector<size_t> dense_;
};

// File ids first..last, both included.
struct IdRange {
  int64_t first = 0;
  int64_t last = -1;
};

// One load of stored documents: the wanted files (by slot), their slots by
// id, the documents read so far per slot, the limits the rows are checked
// against, and where each document goes.
struct DocLoad {
  const std::vector<const IndexedFile*>& wanted;
  const SlotOf& slot_of;
  std::vector<uint64_t>& read;  // by slot; each slot is read on one thread
  const RowLimits& limits;
  const SignatureIndex::DocFn& doc;
};

// Where documents are read from: a connection, the index's path (errors
// name it; more connections open it).
struct DocSource {
  sqlite3* db;
  const std::string& path;
};

// Checks the current row of `q`, a document of slot `slot`, and gives it
// to load.doc.
Status TakeDocument(const Stmt& q, const DocSource& src, size_t slot, const DocLoad& load, std::vector<uint32_t>& sig) {
  const IndexedFile& f = *load.wanted[slot];
  const std::string problem = DocumentRowProblem(RawDocumentRow(q), f, load.read[slot], load.limits);
  if (!problem.empty()) return CorruptRow(src.path, problem);
  ++load.read[slot];
  load.doc(slot, ReadDocumentRow(q, sig), SignatureView(sig.data(), sig.size()));
  return Status::Ok();
}

// Documents of the files in `ids` read in key order (file, line) by one pass
// over that range of the table; those of wanted files are given to load.doc.
Status ScanDocuments(const DocSource& src, IdRange ids, const DocLoad& load) {
  sqlite3* h = src.db;
  Stmt q(h, "SELECT key, name, size, content, kind, signature FROM documents WHERE key BETWEEN ? AND ?");
  if (!q.ok()) return SqlError(h, src.path, q.prepare_rc());
  q.Bind(1, DocKey(ids.first, 0));
  q.Bind(2, DocKey(ids.last, kMaxLine));
  std::vector<uint32_t> sig(load.limits.num_perm);
  int rc = SQLITE_OK;
  while ((rc = q.Step()) == SQLITE_ROW) {
    const int64_t id = q.Int(0) >> kLineBits;
    if (id < ids.first || id > ids.last) continue;
    const size_t slot = load.slot_of(id);
    if (slot == SIZE_MAX) continue;  // not wanted (or of no file: `index check` says so)
    if (Status s = TakeDocument(q, src, slot, load, sig); !s.ok()) return s;
  }
  return rc == SQLITE_DONE ? Status::Ok() : SqlError(h, src.path, rc);
}

// The wanted ids cut into `parts` ranges of as many wanted files each; a
// range may be empty.
std::vector<IdRange> CutIntoParts(const SlotOf& slot_of, size_t parts) {
  const auto& ids = slot_of.sorted();
  const size_t n = ids.size();
  std::vector<IdRange> ranges(parts);
  for (size_t p = 0; p < parts; ++p) {
    const size_t lo = n * p / parts, hi = n * (p + 1) / parts;
    if (lo == hi) continue;  // empty
    ranges[p] = IdRange{.first = ids[lo].first, .last = hi < n ? ids[hi].first - 1 : ids[n - 1].first};
  }
  return ranges;
}

// Reads the documents of the wanted files by passes over the table in key
// order (file, line). With threads, the wanted ids are cut into that many
// ranges of as many files, each read on a connection of its own (the first
// on `src.db`): SQLite decodes rows on one thread per connection.
Status ScanInParts(const DocSource& src, const DocLoad& load, int threads) {
  constexpr size_t kMinFilesPerPart = 4096;
  const size_t parts =
      std::clamp<size_t>(load.wanted.size() / kMinFilesPerPart, 1, static_cast<size_t>(std::max(1, threads)));
  const std::vector<IdRange> ranges = CutIntoParts(load.slot_of, parts);
  std::vector<Status> status(parts);
  // One part per worker; the calling thread is one of them.
  ParallelFor(Workers{.threads = static_cast<int>(parts), .tick = {}, .cancel = nullptr}, parts, [&](int, size_t p) {
    if (ranges[p].last < ranges[p].first) return;
    try {
      if (p == 0) {
        status[p] = ScanDocuments(src, ranges[p], load);
        return;
      }
      bool fresh = false;
      Result<Db> reader = OpenDb(src.path, /*write=*/false, /*create=*/false, &fresh);
      if (!reader.ok()) {
        status[p] = reader.status();
        return;
      }
      status[p] = ScanDocuments(DocSource{reader->get(), src.path}, ranges[p], load);
    } catch (const std::bad_alloc&) {
      status[p] = Status::IoError(ShellQuoted(src.path) + ": out of memory while reading the index");
    }
  });
  for (const Status& s : status) {
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace

Status SignatureIndex::LoadDocuments(const std::vector<const IndexedFile*>& wanted, const DocFn& doc, int threads) {
  sqlite3* h = impl_->db.get();
  int rc = SQLITE_OK;
  const int64_t total = impl_->files_read >= 0 ? impl_->files_read : QueryInt(h, "SELECT count(*) FROM files", &rc);
  if (rc != SQLITE_OK) return SqlError(h, path_, rc);
  if (wanted.empty()) return Status::Ok();
  const SlotOf slot_of(wanted);
  std::vector<uint64_t> read(wanted.size(), 0);
  const DocLoad load{wanted, slot_of, read, impl_->limits, doc};
  const DocSource src{h, path_};
  // Most files: passes over the table in key order (file, line) beat a
  // lookup per file.
  if (wanted.size() * 8 >= static_cast<uint64_t>(total)) {
    if (Status s = ScanInParts(src, load, threads); !s.ok()) return s;
  } else {
    Stmt q(h, "SELECT key, name, size, content, kind, signature FROM documents WHERE key BETWEEN ? AND ? ORDER BY key");
    if (!q.ok()) return SqlError(h, path_, q.prepare_rc());
    std::vector<uint32_t> sig(impl_->limits.num_perm);
    for (size_t slot = 0; slot < wanted.size(); ++slot) {
      q.Reset();
      q.Bind(1, DocKey(wanted[slot]->id, 0));
      q.Bind(2, DocKey(wanted[slot]->id, kMaxLine));
      while ((rc = q.Step()) == SQLITE_ROW) {
        if (Status s = TakeDocument(q, src, slot, load, sig); !s.ok()) return s;
      }
      if (rc != SQLITE_DONE) return SqlError(h, path_, rc);
    }
  }
  for (size_t slot = 0; slot < wanted.size(); ++slot) {
    if (std::string p = DocumentCountProblem(*wanted[slot], read[slot]); !p.empty()) return CorruptRow(path_, p);
  }
  return Status::Ok();
}

Status SignatureIndex::LoadProblems(const std::vector<const IndexedFile*>& wanted,
                                    const std::function<void(size_t, StoredProblem&&)>& problem) {
  sqlite3* h = impl_->db.get();
  // Problems are few: one pass over the table, in key order (file, line).
  const SlotOf slot_of(wanted);
  Stmt q(h, "SELECT file_id, line, message FROM problems");
  if (!q.ok()) return SqlError(h, path_, q.prepare_rc());
  int rc = SQLITE_OK;
  while ((rc = q.Step()) == SQLITE_ROW) {
    const size_t slot = slot_of(q.Int(0));
    if (slot == SIZE_MAX) continue;
    const std::string p =
        ProblemRowProblem(*wanted[slot], q.Int(1), q.Type(1) == SQLITE_INTEGER, q.Type(2) == SQLITE_TEXT);
    if (!p.empty()) return CorruptRow(path_, p);
    problem(slot, StoredProblem{.line = q.UInt(1), .message = q.Text(2)});
  }
  return rc == SQLITE_DONE ? Status::Ok() : SqlError(h, path_, rc);
}

Status SignatureIndex::Begin() {
  const int rc = Exec(impl_->db.get(), "BEGIN IMMEDIATE");
  return rc == SQLITE_OK ? Status::Ok() : SqlError(impl_->db.get(), path_, rc);
}

Status SignatureIndex::Commit() {
  const int rc = Exec(impl_->db.get(), "COMMIT");
  if (rc == SQLITE_OK) return Status::Ok();
  Status s = SqlError(impl_->db.get(), path_, rc);
  Exec(impl_->db.get(), "ROLLBACK");
  return s;
}

namespace {

// Where the writes go: the connection and its cached statements, the
// index's path (errors name it) and the values per signature.
struct Writer {
  sqlite3* db;
  StmtCache& cache;
  const std::string& path;
  size_t np;
};

// What a file entry holds besides its row: documents, their signatures
// (np values each) and problems.
struct FileRows {
  std::span<const DocRecord> docs;
  std::span<const uint32_t> sigs;
  std::span<const StoredProblem> problems;
};

// Whether `name`, a document's name, is the one made from the path the
// file was walked as: the path itself (a text document, line 0) or
// PATH:LINE (a JSONL line without an id). Such names are stored as NULL.
bool NamedByPath(const std::string& name, const std::string& walked_as, uint64_t line) {
  if (line == 0) return name == walked_as;
  return name.size() > walked_as.size() + 1 && name.starts_with(walked_as) && name[walked_as.size()] == ':' &&
         std::string_view(name).substr(walked_as.size() + 1) == std::to_string(line);
}

// Inserts `rows` as those of file `file_id` (walked as `walked_as`).
Status InsertRows(const Writer& w, int64_t file_id, const std::string& walked_as, const FileRows& rows) {
  sqlite3* h = w.db;
  const std::string& path = w.path;
  const size_t np = w.np;
  if (!rows.docs.empty()) {
    Stmt& ins = Cached(h, w.cache,
                       "INSERT OR REPLACE INTO documents(key, name, size, content, kind, signature) "
                       "VALUES(?, ?, ?, ?, ?, ?)");
    if (!ins.ok()) return SqlError(h, path, ins.prepare_rc());
    for (size_t k = 0; k < rows.docs.size(); ++k) {
      const DocRecord& d = rows.docs[k];
      ins.Reset();
      if (d.line > kMaxLine) {
        return Status::InvalidArgument(ShellQuoted(path) + ": a line number past 2^32 cannot be stored");
      }
      ins.Bind(1, DocKey(file_id, d.line));
      if (NamedByPath(d.name, walked_as, d.line)) {
        sqlite3_bind_null(ins.raw(), 2);  // named by its file's path, as the run that reads it walks it
      } else {
        ins.Bind(2, d.name);
      }
      ins.BindU(3, d.size);
      PutContent(ins, 4, d.content);
      ins.Bind(5, static_cast<int64_t>(d.kind));
      ins.BindBlob(6, rows.sigs.data() + k * np, np * sizeof(uint32_t));
      if (int rc = ins.Step(); rc != SQLITE_DONE) return SqlError(h, path, rc);
    }
  }
  if (!rows.problems.empty()) {
    Stmt& ins = Cached(h, w.cache, "INSERT OR REPLACE INTO problems(file_id, line, message) VALUES(?, ?, ?)");
    if (!ins.ok()) return SqlError(h, path, ins.prepare_rc());
    for (const StoredProblem& p : rows.problems) {
      ins.Reset();
      ins.Bind(1, file_id);
      ins.BindU(2, p.line);
      // "PATH:LINE: reason" is stored as ":LINE: reason", PATH put back
      // by the run that reads it, as it walked the file.
      const std::string shown = ShellQuoted(walked_as);  // as the message names it
      const bool by_path =
          p.message.starts_with(shown) && p.message.size() > shown.size() && p.message[shown.size()] == ':';
      ins.Bind(3, by_path ? p.message.substr(shown.size()) : p.message);
      if (int rc = ins.Step(); rc != SQLITE_DONE) return SqlError(h, path, rc);
    }
  }
  return Status::Ok();
}

// Binds the columns of `f` from dev to run, as parameters 1 to 15, and
// `seen_ns` as 16.
void BindFileColumns(Stmt& up, const IndexedFile& f, int64_t run, int64_t seen_ns) {
  up.BindU(1, f.dev);
  up.BindU(2, f.inode);
  up.BindU(3, f.size);
  up.Bind(4, f.mtime_ns);
  up.Bind(5, f.ctime_ns);
  up.BindU(6, f.reading);
  up.Bind(7, int64_t{f.jsonl ? 1 : 0});
  up.BindU(8, f.lines);
  up.BindU(9, f.raw_hash);
  up.Bind(10, int64_t{f.ends_newline ? 1 : 0});
  up.BindU(11, f.bytes);
  up.BindU(12, f.invalid_utf8);
  up.BindU(13, f.transcoded);
  up.BindU(14, f.documents);
  up.Bind(15, run);
  up.Bind(16, seen_ns);
}

Status UpdateFileRow(const Writer& w, const IndexedFile& f, int64_t run, int64_t seen_ns) {
  sqlite3* h = w.db;
  const std::string& path = w.path;
  Stmt& up =
      Cached(h, w.cache,
             "UPDATE files SET dev = ?, inode = ?, size = ?, mtime_ns = ?, ctime_ns = ?, reading = ?, jsonl = ?, "
             "lines = ?, raw_hash = ?, ends_newline = ?, bytes = ?, invalid_utf8 = ?, transcoded = ?, documents = ?, "
             "run = ?, seen_ns = ?, pending = ?15 WHERE id = ?");
  if (!up.ok()) return SqlError(h, path, up.prepare_rc());
  BindFileColumns(up, f, run, seen_ns);
  up.Bind(17, f.id);
  if (int rc = up.Step(); rc != SQLITE_DONE) return SqlError(h, path, rc);
  return Status::Ok();
}

// Inserts the new row of `f` (its id not yet given); its id in *id.
Status InsertFileRow(const Writer& w, const IndexedFile& f, int64_t run, int64_t seen_ns, int64_t* id) {
  sqlite3* h = w.db;
  const std::string& path = w.path;
  Stmt& ins =
      Cached(h, w.cache,
             "INSERT INTO files(dev, inode, size, mtime_ns, ctime_ns, reading, jsonl, lines, raw_hash, ends_newline, "
             "bytes, invalid_utf8, transcoded, documents, run, seen_ns, path, pending) "
             "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?15)");
  if (!ins.ok()) return SqlError(h, path, ins.prepare_rc());
  BindFileColumns(ins, f, run, seen_ns);
  ins.Bind(17, f.path);
  if (int rc = ins.Step(); rc != SQLITE_DONE) return SqlError(h, path, rc);
  *id = sqlite3_last_insert_rowid(h);
  return Status::Ok();
}

}  // namespace

Status SignatureIndex::PutFile(const IndexedFile& file, std::span<const DocRecord> docs,
                               std::span<const uint32_t> signatures, std::span<const StoredProblem> problems) {
  sqlite3* h = impl_->db.get();
  int64_t id = file.id;
  if (id != 0) {
    Stmt& d1 = Cached(h, impl_->cache, "DELETE FROM documents WHERE key BETWEEN ? AND ?");
    d1.Bind(1, DocKey(id, 0));
    d1.Bind(2, DocKey(id, kMaxLine));
    if (int rc = d1.Step(); rc != SQLITE_DONE) return SqlError(h, path_, rc);
    Stmt& d2 = Cached(h, impl_->cache, "DELETE FROM problems WHERE file_id = ?");
    d2.Bind(1, id);
    if (int rc = d2.Step(); rc != SQLITE_DONE) return SqlError(h, path_, rc);
  }
  IndexedFile f = file;
  f.id = id;
  f.documents = docs.size();
  const Writer w{h, impl_->cache, path_, static_cast<size_t>(impl_->num_perm)};
  const int64_t seen = impl_->run_started_ns;
  if (Status s = id != 0 ? UpdateFileRow(w, f, impl_->run, seen) : InsertFileRow(w, f, impl_->run, seen, &id);
      !s.ok()) {
    return s;
  }
  return InsertRows(w, id, file.walked_as, FileRows{.docs = docs, .sigs = signatures, .problems = problems});
}

Status SignatureIndex::AppendToFile(const IndexedFile& file, std::span<const DocRecord> docs,
                                    std::span<const uint32_t> signatures, std::span<const StoredProblem> problems) {
  const Writer w{impl_->db.get(), impl_->cache, path_, static_cast<size_t>(impl_->num_perm)};
  if (Status s = UpdateFileRow(w, file, impl_->run, impl_->run_started_ns); !s.ok()) return s;
  return InsertRows(w, file.id, file.walked_as, FileRows{.docs = docs, .sigs = signatures, .problems = problems});
}

Status SignatureIndex::RemoveFile(int64_t id) {
  sqlite3* h = impl_->db.get();
  Stmt& docs = Cached(h, impl_->cache, "DELETE FROM documents WHERE key BETWEEN ? AND ?");
  docs.Bind(1, DocKey(id, 0));
  docs.Bind(2, DocKey(id, kMaxLine));
  if (int rc = docs.Step(); rc != SQLITE_DONE) return SqlError(h, path_, rc);
  for (const char* sql : {"DELETE FROM problems WHERE file_id = ?", "DELETE FROM files WHERE id = ?"}) {
    Stmt& d = Cached(h, impl_->cache, sql);
    d.Bind(1, id);
    if (int rc = d.Step(); rc != SQLITE_DONE) return SqlError(h, path_, rc);
  }
  return Status::Ok();
}

Status SignatureIndex::UpdateStat(const IndexedFile& file) {
  sqlite3* h = impl_->db.get();
  Stmt& up = Cached(h, impl_->cache,
                    "UPDATE files SET dev = ?, inode = ?, mtime_ns = ?, ctime_ns = ?, seen_ns = ? WHERE id = ?");
  if (!up.ok()) return SqlError(h, path_, up.prepare_rc());
  up.BindU(1, file.dev);
  up.BindU(2, file.inode);
  up.Bind(3, file.mtime_ns);
  up.Bind(4, file.ctime_ns);
  up.Bind(5, impl_->run_started_ns);
  up.Bind(6, file.id);
  if (int rc = up.Step(); rc != SQLITE_DONE) return SqlError(h, path_, rc);
  return Status::Ok();
}

Result<int64_t> SignatureIndex::StartRun(const std::string& options) {
  sqlite3* h = impl_->db.get();
  impl_->run_started_ns = WallClockNs();
  Stmt ins(h, "INSERT INTO runs(started, pid, host, options) VALUES(?, ?, ?, ?)");
  ins.Bind(1, NowUtc());
  ins.Bind(2, static_cast<int64_t>(::getpid()));
  ins.Bind(3, HostName());
  ins.Bind(4, options);
  if (int rc = ins.Step(); rc != SQLITE_DONE) return SqlError(h, path_, rc);
  impl_->run = sqlite3_last_insert_rowid(h);
  return impl_->run;
}

int64_t SignatureIndex::run() const { return impl_->run; }

Status SignatureIndex::PutBackMarks(std::span<const PendingMark> unchanged) {
  sqlite3* h = impl_->db.get();
  Stmt keep(h, "UPDATE files SET pending = ? WHERE id = ?");
  if (!keep.ok()) return SqlError(h, path_, keep.prepare_rc());
  for (const PendingMark& m : unchanged) {
    keep.Reset();
    keep.Bind(1, m.pending);
    keep.Bind(2, m.id);
    if (int rc = keep.Step(); rc != SQLITE_DONE) return SqlError(h, path_, rc);
  }
  return Status::Ok();
}

Status SignatureIndex::CoverPending(std::span<const int64_t> reused_pending) {
  const int64_t run = impl_->run;
  sqlite3* h = impl_->db.get();
  Stmt ins(h, "INSERT OR IGNORE INTO run_files(run, file_id) VALUES(?, ?)");
  if (!ins.ok()) return SqlError(h, path_, ins.prepare_rc());
  for (const int64_t id : reused_pending) {
    ins.Reset();
    ins.Bind(1, run);
    ins.Bind(2, id);
    if (int rc = ins.Step(); rc != SQLITE_DONE) return SqlError(h, path_, rc);
  }
  // The files this run signed; and the rows of runs that never recorded a
  // delivery, for files delivered since (a bounded table).
  Stmt signed_now(h, "INSERT OR IGNORE INTO run_files(run, file_id) SELECT ?1, id FROM files WHERE pending = ?1");
  signed_now.Bind(1, run);
  if (int rc = signed_now.Step(); rc != SQLITE_DONE) return SqlError(h, path_, rc);
  const int rc = Exec(h, "DELETE FROM run_files WHERE file_id NOT IN (SELECT id FROM files WHERE pending != 0)");
  return rc == SQLITE_OK ? Status::Ok() : SqlError(h, path_, rc);
}

Result<NewJob> SignatureIndex::StoredNewJob() { return ReadNewJob(impl_->db.get(), path_); }

Status SignatureIndex::EndRun(const IndexRun& c) {
  const int64_t run = impl_->run;
  sqlite3* h = impl_->db.get();
  Stmt up(h, "UPDATE runs SET ended = ?, reused = ?, signed = ?, removed = ?, documents = ? WHERE id = ?");
  up.Bind(1, NowUtc());
  up.BindU(2, c.reused);
  up.BindU(3, c.signed_now);
  up.BindU(4, c.removed);
  up.BindU(5, c.documents);
  up.Bind(6, run);
  if (int rc = up.Step(); rc != SQLITE_DONE) return SqlError(h, path_, rc);
  return Status::Ok();
}

Status RecordRunExit(const std::string& path, int64_t run, int exit_status, bool delivered, const NewJob& job) {
  bool fresh = false;
  Result<Db> db = OpenDb(path, /*write=*/true, /*create=*/false, &fresh);
  if (!db.ok()) return db.status();
  sqlite3* h = db->get();
  // An error leaves the transaction open: closing the connection rolls it back.
  if (int rc = Exec(h, "BEGIN IMMEDIATE"); rc != SQLITE_OK) return SqlError(h, path, rc);
  Stmt up(h, "UPDATE runs SET exit_status = ?, delivered = ? WHERE id = ?");
  up.Bind(1, int64_t{exit_status});
  up.Bind(2, int64_t{delivered ? 1 : 0});
  up.Bind(3, run);
  if (int rc = up.Step(); rc != SQLITE_DONE) return SqlError(h, path, rc);
  bool of_the_job = false;
  if (delivered && !job.fingerprint.empty()) {
    // The first --new run to deliver makes its job the index's.
    Stmt adopt(h, "INSERT OR IGNORE INTO meta(key, value) VALUES('new_job', ?), ('new_job_options', ?)");
    adopt.Bind(1, job.fingerprint);
    adopt.Bind(2, job.description);
    if (int rc = adopt.Step(); rc != SQLITE_DONE) return SqlError(h, path, rc);
    Result<NewJob> stored = ReadNewJob(h, path);
    if (!stored.ok()) return stored.status();
    // Another run may have made another job the index's since this one ended.
    of_the_job = stored->fingerprint == job.fingerprint;
  }
  if (of_the_job) {
    // Only what this run covered, and not what a later run signed again.
    Stmt clear(h,
               "UPDATE files SET pending = 0 WHERE pending BETWEEN 1 AND ?1 "
               "AND id IN (SELECT file_id FROM run_files WHERE run = ?1)");
    clear.Bind(1, run);
    if (int rc = clear.Step(); rc != SQLITE_DONE) return SqlError(h, path, rc);
  }
  Stmt done(h, "DELETE FROM run_files WHERE run = ?");
  done.Bind(1, run);
  if (int rc = done.Step(); rc != SQLITE_DONE) return SqlError(h, path, rc);
  if (int rc = Exec(h, "COMMIT"); rc != SQLITE_OK) return SqlError(h, path, rc);
  return Status::Ok();
}

Status ForgetFiles(const std::string& path, const std::vector<std::string>& keys) {
  if (keys.empty()) return Status::Ok();
  bool fresh = false;
  Result<Db> db = OpenDb(path, /*write=*/true, /*create=*/false, &fresh);
  if (!db.ok()) return db.status();
  sqlite3* h = db->get();
  // An error leaves the transaction open: closing the connection rolls it back.
  if (int rc = Exec(h, "BEGIN IMMEDIATE"); rc != SQLITE_OK) return SqlError(h, path, rc);
  Stmt find(h, "SELECT id FROM files WHERE path = ?");
  Stmt docs(h, "DELETE FROM documents WHERE key BETWEEN ? AND ?");
  Stmt problems(h, "DELETE FROM problems WHERE file_id = ?");
  Stmt files(h, "DELETE FROM files WHERE id = ?");
  for (Stmt* st : {&find, &docs, &problems, &files}) {
    if (!st->ok()) return SqlError(h, path, st->prepare_rc());
  }
  for (const std::string& key : keys) {
    find.Reset();
    find.Bind(1, key);
    std::vector<int64_t> ids;
    int rc = SQLITE_OK;
    while ((rc = find.Step()) == SQLITE_ROW) ids.push_back(find.Int(0));
    if (rc != SQLITE_DONE) return SqlError(h, path, rc);
    for (const int64_t id : ids) {
      docs.Reset();
      docs.Bind(1, DocKey(id, 0));
      docs.Bind(2, DocKey(id, kMaxLine));
      if (rc = docs.Step(); rc != SQLITE_DONE) return SqlError(h, path, rc);
      for (Stmt* st : {&problems, &files}) {
        st->Reset();
        st->Bind(1, id);
        if (rc = st->Step(); rc != SQLITE_DONE) return SqlError(h, path, rc);
      }
    }
  }
  if (int rc = Exec(h, "COMMIT"); rc != SQLITE_OK) return SqlError(h, path, rc);
  return Status::Ok();
}

Result<IndexInfo> ReadIndexInfo(const std::string& path, int last_runs) {
  bool fresh = false;
  Result<Db> db = OpenDb(path, /*write=*/false, /*create=*/false, &fresh);
  if (!db.ok()) return db.status();
  sqlite3* h = db->get();
  IndexInfo info;
  int rc = SQLITE_OK;
  info.schema_version = static_cast<int>(QueryInt(h, "PRAGMA user_version", &rc));
  {
    std::unordered_map<std::string, std::string> stored;
    Stmt q(h, "SELECT key, value FROM meta");
    if (!q.ok()) return SqlError(h, path, q.prepare_rc());
    while ((rc = q.Step()) == SQLITE_ROW) stored[q.Text(0)] = q.Text(1);
    if (rc != SQLITE_DONE) return SqlError(h, path, rc);
    for (const auto& [k, v] : ParamRows(SignatureParams{})) {
      (void)v;
      info.params.emplace_back(k, stored.count(k) != 0 ? stored[k] : "?");
    }
    if (stored.count("created") != 0) info.params.emplace_back("created", stored["created"]);
  }
  info.files = static_cast<uint64_t>(QueryInt(h, "SELECT count(*) FROM files", &rc));
  if (rc != SQLITE_OK) return SqlError(h, path, rc);
  info.documents = static_cast<uint64_t>(QueryInt(h, "SELECT count(*) FROM documents", &rc));
  if (rc != SQLITE_OK) return SqlError(h, path, rc);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) info.file_bytes = static_cast<uint64_t>(st.st_size);
  Result<NewJob> job = ReadNewJob(h, path);
  if (!job.ok()) return job.status();
  info.new_job = std::move(*job);
  // A version 2 index made before the pending marks has no `delivered`.
  const int64_t marks = QueryInt(h, "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'delivered'", &rc);
  if (rc != SQLITE_OK) return SqlError(h, path, rc);
  if (marks != 0) {
    info.pending = static_cast<uint64_t>(QueryInt(h, "SELECT count(*) FROM files WHERE pending != 0", &rc));
    if (rc != SQLITE_OK) return SqlError(h, path, rc);
  }
  Stmt q(h, marks != 0 ? "SELECT id, started, ended, reused, signed, removed, documents, exit_status, options, "
                         "delivered FROM runs ORDER BY id DESC LIMIT ?"
                       : "SELECT id, started, ended, reused, signed, removed, documents, exit_status, options, "
                         "NULL FROM runs ORDER BY id DESC LIMIT ?");
  q.Bind(1, int64_t{last_runs});
  while ((rc = q.Step()) == SQLITE_ROW) {
    IndexRun r;
    r.id = q.Int(0);
    r.started = q.Text(1);
    r.ended = q.Text(2);
    r.reused = q.UInt(3);
    r.signed_now = q.UInt(4);
    r.removed = q.UInt(5);
    r.documents = q.UInt(6);
    r.exit_status = q.IsNull(7) ? -1 : static_cast<int>(q.Int(7));
    r.options = q.Text(8);
    r.delivered = q.IsNull(9) ? -1 : static_cast<int>(q.Int(9));
    info.runs.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) return SqlError(h, path, rc);
  return info;
}

namespace {

// What `index check` found: the problems, the first kMaxListed of them in
// full, the rest counted.
class CheckList {
 public:
  void Add(std::string problem) {
    if (problem.empty()) return;
    if (++count_ <= kMaxListed) problems_.push_back(std::move(problem));
  }
  std::vector<std::string> Take() {
    if (count_ > kMaxListed)
      problems_.push_back("and " + std::to_string(count_ - kMaxListed) +
                          (count_ - kMaxListed == 1 ? " more problem" : " more problems"));
    return std::move(problems_);
  }

 private:
  static constexpr uint64_t kMaxListed = 1000;
  std::vector<std::string> problems_;
  uint64_t count_ = 0;
};

// Every `files` row of `h` through the checks a scan makes (FileRowProblem),
// by id.
Result<std::unordered_map<int64_t, IndexedFile>> CheckFileRows(sqlite3* h, const std::string& path,
                                                               const RowLimits& limits, CheckList& problems) {
  int rc = SQLITE_OK;
  const bool seen = QueryInt(h, "SELECT count(*) FROM pragma_table_info('files') WHERE name = 'seen_ns'", &rc) != 0;
  const bool pending = QueryInt(h, "SELECT count(*) FROM pragma_table_info('files') WHERE name = 'pending'", &rc) != 0;
  if (rc != SQLITE_OK) return SqlError(h, path, rc);
  Stmt q(h, FileColumns(seen, pending).c_str());
  if (!q.ok()) return SqlError(h, path, q.prepare_rc());
  std::unordered_map<int64_t, IndexedFile> files;
  uint64_t documents = 0;
  while ((rc = q.Step()) == SQLITE_ROW) {
    IndexedFile f;
    const std::string not_integer = ReadFileRow(q, &f);
    const std::string problem = FileRowProblem(f, limits, not_integer);
    problems.Add(problem);
    if (!problem.empty()) continue;  // its documents are counted as of no sound file
    documents += f.documents;
    files.emplace(f.id, std::move(f));
  }
  if (rc != SQLITE_DONE) return SqlError(h, path, rc);
  if (documents > limits.max_documents) {
    problems.Add("files: the documents of its rows add up to " + std::to_string(documents) +
                 ", more than the index's size can hold (" + std::to_string(limits.max_documents) + ")");
  }
  return files;
}

// Every `documents` and `problems` row of the sound files in `files`
// through the checks a scan makes, and each file's document count.
Status CheckRowsOfFiles(sqlite3* h, const std::string& path, const RowLimits& limits,
                        const std::unordered_map<int64_t, IndexedFile>& files, CheckList& problems) {
  std::unordered_map<int64_t, uint64_t> read;
  {
    Stmt q(h, "SELECT key, name, size, content, kind, signature FROM documents ORDER BY key");
    if (!q.ok()) return SqlError(h, path, q.prepare_rc());
    int rc = SQLITE_OK;
    while ((rc = q.Step()) == SQLITE_ROW) {
      const auto it = files.find(q.Int(0) >> kLineBits);
      if (it == files.end()) continue;  // of no file: counted below
      problems.Add(DocumentRowProblem(RawDocumentRow(q), it->second, read[it->first]++, limits));
    }
    if (rc != SQLITE_DONE) return SqlError(h, path, rc);
  }
  std::vector<int64_t> ids;
  for (const auto& [id, f] : files) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  for (const int64_t id : ids) {
    const auto it = read.find(id);
    problems.Add(DocumentCountProblem(files.at(id), it == read.end() ? 0 : it->second));
  }
  Stmt q(h, "SELECT file_id, line, message FROM problems");
  if (!q.ok()) return SqlError(h, path, q.prepare_rc());
  int rc = SQLITE_OK;
  while ((rc = q.Step()) == SQLITE_ROW) {
    const auto it = files.find(q.Int(0));
    if (it == files.end()) continue;  // of no file: counted below
    problems.Add(ProblemRowProblem(it->second, q.Int(1), q.Type(1) == SQLITE_INTEGER, q.Type(2) == SQLITE_TEXT));
  }
  return rc == SQLITE_DONE ? Status::Ok() : SqlError(h, path, rc);
}

}  // namespace

Result<std::vector<std::string>> CheckIndex(const std::string& path) {
  bool fresh = false;
  Result<Db> db = OpenDb(path, /*write=*/false, /*create=*/false, &fresh);
  if (!db.ok()) return db.status();
  sqlite3* h = db->get();
  CheckList problems;
  int rc = SQLITE_OK;
  {
    Stmt q(h, "PRAGMA integrity_check");
    if (!q.ok()) return SqlError(h, path, q.prepare_rc());
    while ((rc = q.Step()) == SQLITE_ROW) {
      const std::string line = q.Text(0);
      if (line != "ok") problems.Add("integrity: " + line);
    }
    if (rc != SQLITE_DONE) return SqlError(h, path, rc);
  }
  int64_t num_perm = 0;
  {
    Stmt q(h, "SELECT value FROM meta WHERE key = '--num-perm'");
    if (q.ok() && q.Step() == SQLITE_ROW) num_perm = q.Int(0);
    if (num_perm < 1 || num_perm > kMaxNumPerm) {
      problems.Add("meta: no valid --num-perm");
      num_perm = 0;
    }
  }
  // The rows, each through the checks a scan makes before it uses them.
  Result<RowLimits> limits = LimitsOf(h, path, static_cast<size_t>(num_perm));
  if (!limits.ok()) return limits.status();
  limits->absolute_paths = QueryInt(h, "PRAGMA user_version", &rc) >= 2;
  Result<std::unordered_map<int64_t, IndexedFile>> files = CheckFileRows(h, path, *limits, problems);
  if (!files.ok()) return files.status();
  if (Status s = CheckRowsOfFiles(h, path, *limits, *files, problems); !s.ok()) return s;
  const std::pair<const char*, const char*> orphans[] = {
      {"SELECT count(*) FROM documents WHERE (key >> 32) NOT IN (SELECT id FROM files)", "documents of no file"},
      {"SELECT count(*) FROM problems WHERE file_id NOT IN (SELECT id FROM files)", "problems of no file"},
  };
  for (const auto& [sql, what] : orphans) {
    const int64_t n = QueryInt(h, sql, &rc);
    if (rc != SQLITE_OK) return SqlError(h, path, rc);
    if (n != 0) problems.Add(std::to_string(n) + " " + what);
  }
  return problems.Take();
}

}  // namespace neardup
