#include "index/index_schema.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <unordered_map>

#include "neardup/quote.h"

namespace neardup {

namespace {

// PRAGMA application_id of a neardup index: "NDUP".
constexpr int32_t kApplicationId = 0x4E445550;

// The schema of a new index (version 5: version 1, `files.seen_ns`, and
// what --new delivers at least once: `files.pending`, `runs.delivered` and
// `run_files`, see AddPendingMarks (version 2); `bitmaps`, see AddBitmaps
// (version 3); and `documents.shingles`, see AddShingleCounts (version 5)).
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
  signature BLOB NOT NULL,
  shingles INTEGER NOT NULL DEFAULT 0);
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
CREATE TABLE bitmaps(key INTEGER PRIMARY KEY, bitmap BLOB NOT NULL);
)sql";

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

// Version 2 -> 3, in one transaction: the `bitmaps` table (index_bitmaps.h),
// empty. The documents stored before have no bitmap until their files are
// signed again: a bitmap is built from a document's text, which a run that
// reuses the document does not read.
Status AddBitmaps(sqlite3* db, const std::string& path) {
  constexpr const char* kSql = R"sql(
BEGIN IMMEDIATE;
CREATE TABLE IF NOT EXISTS bitmaps(key INTEGER PRIMARY KEY, bitmap BLOB NOT NULL);
PRAGMA user_version = 3;
COMMIT;
)sql";
  if (const int rc = Exec(db, kSql); rc != SQLITE_OK) {
    Status s = SqlError(db, path, rc);
    Exec(db, "ROLLBACK");
    return s;
  }
  return Status::Ok();
}

// Version 4 -> 5, in one transaction: `documents.shingles`, each document's
// distinct-shingle count, which --relation contains|both divides by; 0 (not
// known) in the rows already there, filled when their files are next signed
// by such a run (IndexOpenOptions::count_shingles).
// A file that has the column already (a version 5 file whose number was
// lowered) only gets the number.
Status AddShingleCounts(sqlite3* h, const std::string& path) {
  int rc = SQLITE_OK;
  const bool has = QueryInt(h, "SELECT count(*) FROM pragma_table_info('documents') WHERE name = 'shingles'", &rc) != 0;
  if (rc != SQLITE_OK) return SqlError(h, path, rc);
  constexpr const char* kAdd = R"sql(
BEGIN IMMEDIATE;
ALTER TABLE documents ADD COLUMN shingles INTEGER NOT NULL DEFAULT 0;
PRAGMA user_version = 5;
COMMIT;
)sql";
  if (const int rc_add = Exec(h, has ? "PRAGMA user_version = 5" : kAdd); rc_add != SQLITE_OK) {
    Status s = SqlError(h, path, rc_add);
    Exec(h, "ROLLBACK");
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

// A connection to the index at `path` (read as immutable in a read-only
// directory when nobody writes it) and its PRAGMA application_id in *app.
Result<Db> ConnectIndex(const std::string& path, bool write, int64_t* app) {
  int rc = SQLITE_OK;
  Db db = Connect(path, write, /*immutable=*/false, &rc);
  if (rc != SQLITE_OK) return SqlError(db.get(), path, rc);
  *app = QueryInt(db.get(), "PRAGMA application_id", &rc);
  if (!write && (rc & 0xff) == SQLITE_CANTOPEN && !HasJournal(path)) {
    // A WAL index in a directory this process cannot write (a read-only
    // mount): SQLite cannot make the -shm file readers share. With no -wal
    // journal, nobody is writing it and every committed page is in the file
    // itself: read it as immutable (no locks, no -shm).
    db = Connect(path, write, /*immutable=*/true, &rc);
    if (rc != SQLITE_OK) return SqlError(db.get(), path, rc);
    *app = QueryInt(db.get(), "PRAGMA application_id", &rc);
  } else if (!write && (rc & 0xff) == SQLITE_CANTOPEN) {
    return Status::IoError(ShellQuoted(path) +
                           ": cannot be read here: its -wal journal holds pages not yet in it, and its "
                           "directory is read-only (no -shm file can be made); open it once where it can be "
                           "written (any neardup scan --index, or `sqlite3 " +
                           ShellQuoted(path) + " .tables`)");
  }
  if (rc != SQLITE_OK) return SqlError(db.get(), path, rc);
  return db;
}

// Inserts `params` (and the time, as `created`) into `meta`, inside the
// caller's transaction.
int InsertParams(sqlite3* h, const SignatureParams& params) {
  Stmt ins(h, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
  if (!ins.ok()) return ins.prepare_rc();
  std::vector<std::pair<std::string, std::string>> rows = ParamRows(params);
  rows.emplace_back("created", NowUtc());
  for (const auto& [k, v] : rows) {
    ins.Reset();
    ins.Bind(1, k);
    ins.Bind(2, v);
    if (const int rc = ins.Step(); rc != SQLITE_DONE) return rc;
  }
  return SQLITE_OK;
}

// Runs `begin` (SQL that begins a transaction, and may do more in it), then
// inserts `params` and commits; rolls back on any error.
Status ParamsInTransaction(sqlite3* h, const std::string& path, const char* begin, const SignatureParams& params) {
  int rc = Exec(h, begin);
  if (rc == SQLITE_OK) rc = InsertParams(h, params);
  if (rc == SQLITE_OK) rc = Exec(h, "COMMIT");
  if (rc != SQLITE_OK) {
    Status s = SqlError(h, path, rc);
    Exec(h, "ROLLBACK");
    return s;
  }
  return Status::Ok();
}

// Gives the empty database `h` the schema of a new index and `params`, in
// one transaction: a run killed while creating it leaves an empty database,
// never tables without the parameters that made their signatures.
Status CreateSchema(sqlite3* h, const std::string& path, const SignatureParams& params) {
  // Large pages hold a signature row (~600 bytes at 128 permutations)
  // with little slack; set before the first table exists.
  std::string sql = std::string("PRAGMA page_size = 16384; BEGIN IMMEDIATE;").append(kSchema);
  sql.append("PRAGMA application_id = ").append(std::to_string(kApplicationId)).append(";");
  sql.append("PRAGMA user_version = ").append(std::to_string(kIndexSchemaVersion)).append(";");
  return ParamsInTransaction(h, path, sql.c_str(), params);
}

// Checks that `h`, a database that is not empty, is a neardup index of a
// schema this build reads (application id `app`, user_version `version`),
// and to `write`, migrates it to this build's schema.
Status UpgradeSchema(sqlite3* h, const std::string& path, int64_t app, int64_t version, bool write) {
  if (app != kApplicationId) {
    return Status::InvalidArgument(ShellQuoted(path) +
                                   ": not a neardup index (an SQLite database of another application)");
  }
  if (version > kIndexSchemaVersion) {
    return Status::InvalidArgument(ShellQuoted(path)
                                       .append(": index schema version ")
                                       .append(std::to_string(version))
                                       .append(" is newer than this neardup reads (")
                                       .append(std::to_string(kIndexSchemaVersion))
                                       .append("); use a newer neardup, or start a new index"));
  }
  const bool migrated = write && version >= 1 && version < kIndexSchemaVersion;
  if (version == 1 && write) {
    if (Status s = MigrateV1(h, path); !s.ok()) return s;
    version = 2;
  }
  if (version == 2 && write) {
    if (Status s = AddPendingMarks(h, path); !s.ok()) return s;
    if (Status s = AddBitmaps(h, path); !s.ok()) return s;
    version = 3;
  }
  if (version == 3 && write) {
    if (const int rc = Exec(h, "PRAGMA user_version = 4"); rc != SQLITE_OK) return SqlError(h, path, rc);
    version = 4;
  }
  if (version == 4 && write) {
    if (Status s = AddShingleCounts(h, path); !s.ok()) return s;
    version = kIndexSchemaVersion;
  }
  // The outputs kept over the older schema (stored_result.h) are computed
  // again: the migrated index holds less than they were made with.
  if (migrated) {
    if (const int rc = Exec(h, "DROP TABLE IF EXISTS results"); rc != SQLITE_OK) return SqlError(h, path, rc);
  }
  if (version < 1) {
    return Status::InvalidArgument(ShellQuoted(path) + ": unknown index schema version " + std::to_string(version));
  }
  return Status::Ok();  // a version 1 to 4 file opened to read: its tables read as version 5's (info, check)
}

// The columns of `files` as read, in the order FileColumns() selects them.
constexpr const char* kFileColumnNames[] = {
    "id",    "path",     "dev",          "inode", "size",         "mtime_ns",   "ctime_ns",  "reading", "jsonl",
    "lines", "raw_hash", "ends_newline", "bytes", "invalid_utf8", "transcoded", "documents", "seen_ns", "pending"};

}  // namespace

std::string NowUtc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The parameters as stored in `meta`, name and value, in a fixed order.
std::vector<std::pair<std::string, std::string>> ParamRows(const SignatureParams& p) {
  return {{"--shingle", ToString(p.shingle)},
          {"--ngram", std::to_string(p.ngram)},
          {"--num-perm", std::to_string(p.num_perm)},
          {"--seed", std::to_string(p.seed)},
          {"--encoding", p.encoding == Encoding::kUtf8 ? "utf8" : "latin1"},
          {"--strip", ToString(p.strip)},
          {"tokenizer", std::to_string(p.tokenizer_version)},
          {"minhash", std::to_string(p.minhash_version)}};
}

Status CheckOneName(const std::string& path, const struct stat& st) {
  if (st.st_nlink <= 1) return Status::Ok();
  return Status::InvalidArgument(ShellQuoted(path) + ": the index has " + std::to_string(st.st_nlink) +
                                 " names (hard links); SQLite keeps its journal by name, so writing it under two "
                                 "names can corrupt it: remove the other names, or give a copy (cp) as --index FILE");
}

Result<Db> OpenDb(const std::string& path, bool write, const SignatureParams* create, bool* fresh) {
  if (Status s = CheckIndexHead(path, create != nullptr, write); !s.ok()) return s;
  int64_t app = 0;
  Result<Db> db = ConnectIndex(path, write, &app);
  if (!db.ok()) return db;
  sqlite3* h = db->get();
  int rc = SQLITE_OK;
  const int64_t version = QueryInt(h, "PRAGMA user_version", &rc);
  if (rc != SQLITE_OK) return SqlError(h, path, rc);
  const int64_t tables = QueryInt(h, "SELECT count(*) FROM sqlite_master", &rc);
  if (rc != SQLITE_OK) return SqlError(h, path, rc);
  *fresh = false;
  if (app == 0 && version == 0 && tables == 0) {
    if (create == nullptr) {
      return Status::InvalidArgument(ShellQuoted(path) + ": not a neardup index (an empty database)");
    }
    if (Status s = CreateSchema(h, path, *create); !s.ok()) return s;
    *fresh = true;
  } else if (Status s = UpgradeSchema(h, path, app, version, write); !s.ok()) {
    return s;
  }
  if (write) {
    rc = Exec(h, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    if (rc != SQLITE_OK) return SqlError(h, path, rc);
  }
  return db;
}

Status PutParams(sqlite3* h, const std::string& path, const SignatureParams& params) {
  return ParamsInTransaction(h, path, "BEGIN IMMEDIATE", params);
}

Status CheckParams(sqlite3* h, const std::string& path, const SignatureParams& params, bool* older_minhash) {
  *older_minhash = false;
  std::unordered_map<std::string, std::string> stored;
  Stmt q(h, "SELECT key, value FROM meta");
  if (!q.ok()) return SqlError(h, path, q.prepare_rc());
  for (int rc; (rc = q.Step()) != SQLITE_DONE;) {
    if (rc != SQLITE_ROW) return SqlError(h, path, rc);
    stored[q.Text(0)] = q.Text(1);
  }
  if (stored.count("--shingle") == 0) {
    // Tables without parameters: a run of an older build killed between
    // creating the schema and storing them. With no file signed yet, the
    // index is new in all but name.
    int rc = SQLITE_OK;
    const int64_t files = QueryInt(h, "SELECT count(*) FROM files", &rc);
    if (rc != SQLITE_OK) return SqlError(h, path, rc);
    if (files == 0) return PutParams(h, path, params);
  }
  std::string diff;
  for (const auto& [k, v] : ParamRows(params)) {
    const auto it = stored.find(k);
    // An index made before the MinHash definition was a parameter holds definition 0's.
    const std::string theirs = it == stored.end() ? (k == "minhash" ? "0" : "none") : OneLine(it->second);
    if (theirs == v) continue;
    if (k == "minhash" && (theirs == "0" || theirs.empty()) && params.minhash_version > 0) {
      *older_minhash = true;
      continue;
    }
    diff.append(diff.empty() ? "" : ", ").append(k + ": " + v + " here, " + theirs + " in the index");
  }
  if (!diff.empty()) {
    return Status::InvalidArgument(ShellQuoted(path) + ": the signature parameters differ from the index's (" + diff +
                                   "); to start a new index, give another --index FILE or remove " + ShellQuoted(path));
  }
  return Status::Ok();
}

Status SignFilesAgain(sqlite3* h, const std::string& path, const SignatureParams& params) {
  if (int rc = Exec(h, "BEGIN IMMEDIATE; UPDATE files SET seen_ns = 0;"); rc != SQLITE_OK) {
    Status s = SqlError(h, path, rc);
    Exec(h, "ROLLBACK");
    return s;
  }
  Stmt put(h, "INSERT OR REPLACE INTO meta(key, value) VALUES('minhash', ?)");
  put.Bind(1, std::to_string(params.minhash_version));
  if (int rc = put.Step(); rc != SQLITE_DONE) {
    Status s = SqlError(h, path, rc);
    Exec(h, "ROLLBACK");
    return s;
  }
  if (int rc = Exec(h, "COMMIT"); rc != SQLITE_OK) {
    Status s = SqlError(h, path, rc);
    Exec(h, "ROLLBACK");
    return s;
  }
  return Status::Ok();
}

Result<uint64_t> SignUncountedAgain(sqlite3* h, const std::string& path) {
  // kind 0: DocKind::kOk, the only documents signed with a count.
  constexpr const char* kMark =
      "UPDATE files SET seen_ns = 0 WHERE id IN (SELECT DISTINCT key >> 32 FROM documents WHERE shingles = 0 AND "
      "kind = 0)";
  static_assert(static_cast<int>(DocKind::kOk) == 0);
  if (const int rc = Exec(h, kMark); rc != SQLITE_OK) return SqlError(h, path, rc);
  return static_cast<uint64_t>(sqlite3_changes(h));
}

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

DocumentRow RawDocumentRow(const Stmt& q) {
  const int name_type = q.Type(1);
  return DocumentRow{.key = q.Int(0),
                     .name_ok = name_type == SQLITE_TEXT || name_type == SQLITE_NULL,
                     .size = q.Int(2),
                     .size_integer = q.Type(2) == SQLITE_INTEGER,
                     .content_bytes = q.Type(3) == SQLITE_BLOB ? q.Bytes(3) : SIZE_MAX,
                     .kind = q.Int(4),
                     .kind_integer = q.Type(4) == SQLITE_INTEGER,
                     .signature_bytes = q.Type(5) == SQLITE_BLOB ? q.Bytes(5) : SIZE_MAX,
                     .shingles = q.Int(6),
                     .shingles_integer = q.Type(6) == SQLITE_INTEGER};
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
  r.shingles = q.UInt(6);
  return r;
}

}  // namespace neardup
