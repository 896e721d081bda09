#include "index/index_check.h"

#include <sys/stat.h>

#include <algorithm>
#include <unordered_map>

#include "index/index_bitmaps.h"
#include "index/index_rows.h"
#include "index/index_schema.h"
#include "index/index_sql.h"

namespace neardup {

Result<IndexInfo> ReadIndexInfo(const std::string& path, int last_runs) {
  bool fresh = false;
  Result<Db> db = OpenDb(path, /*write=*/false, /*create=*/nullptr, &fresh);
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
      // An index made before --strip has no row for it: it was made without.
      info.params.emplace_back(k, stored.count(k) != 0 ? stored[k] : k == "--strip" ? "none" : "?");
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
    // Before version 5 a document has no shingle count: read as 0 (not known).
    int rc_col = SQLITE_OK;
    const bool counted =
        QueryInt(h, "SELECT count(*) FROM pragma_table_info('documents') WHERE name = 'shingles'", &rc_col) != 0;
    Stmt q(h, counted ? "SELECT key, name, size, content, kind, signature, shingles FROM documents ORDER BY key"
                      : "SELECT key, name, size, content, kind, signature, 0 FROM documents ORDER BY key");
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

namespace {

// The `bitmaps` rows (version 3): each blob whole (a scan takes a damaged
// one for no bitmap, index_bitmaps.h), each of a stored document.
Status CheckBitmaps(sqlite3* h, const std::string& path, CheckList& problems) {
  int rc = SQLITE_OK;
  if (QueryInt(h, "SELECT count(*) FROM sqlite_master WHERE name = 'bitmaps'", &rc) == 0) return Status::Ok();
  Stmt q(h, "SELECT b.key, b.bitmap, d.content FROM bitmaps b JOIN documents d ON d.key = b.key ORDER BY b.key");
  if (!q.ok()) return SqlError(h, path, q.prepare_rc());
  while ((rc = q.Step()) == SQLITE_ROW) {
    const auto* data = static_cast<const char*>(q.Blob(1));  // before Bytes(), as SQLite asks
    const std::string_view blob(data, q.Bytes(1));
    if (q.Type(1) == SQLITE_BLOB && !BitmapOfBlob(blob, GetContent(q, 2)).empty()) continue;
    problems.Add("bitmaps row " + std::to_string(q.Int(0)) +
                 ": damaged, or not of its document's content (a scan takes it for no bitmap)");
  }
  if (rc != SQLITE_DONE) return SqlError(h, path, rc);
  const int64_t n = QueryInt(h, "SELECT count(*) FROM bitmaps WHERE key NOT IN (SELECT key FROM documents)", &rc);
  if (rc != SQLITE_OK) return SqlError(h, path, rc);
  if (n != 0) problems.Add(std::to_string(n) + " bitmaps of no document");
  return Status::Ok();
}

}  // namespace

Result<std::vector<std::string>> CheckIndex(const std::string& path) {
  bool fresh = false;
  Result<Db> db = OpenDb(path, /*write=*/false, /*create=*/nullptr, &fresh);
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
  if (Status s = CheckBitmaps(h, path, problems); !s.ok()) return s;
  return problems.Take();
}

}  // namespace neardup
