// SignatureIndex: the index's reads and writes, over the SQL layer
// (index_sql.h), in the tables of index_schema.h, under the writer's lock
// (index_lock.h).
#include "index/signature_index.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <ctime>
#include <new>

#include "base/parallel.h"
#include "index/index_bitmaps.h"
#include "index/index_lock.h"
#include "index/index_rows.h"
#include "index/index_schema.h"
#include "index/index_sql.h"
#include "neardup/quote.h"

namespace neardup {

namespace {

int64_t WallClockNs() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
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
  RowLimits limits;           // what the rows are checked against, set by Files()
  bool signs_again = false;   // Open() found signatures of an older MinHash definition
  uint64_t counts_again = 0;  // files Open() marked to be signed again for their shingle counts
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
  Result<int> fd = TakeLock(path, options);
  if (!fd.ok()) return fd.status();
  impl->fd = *fd;
  bool fresh = false;
  Result<Db> db = OpenDb(path, /*write=*/true, /*create=*/&params, &fresh);
  if (!db.ok()) return db.status();
  impl->db = std::move(*db);
  sqlite3* h = impl->db.get();
  bool older_minhash = false;
  if (!fresh) {
    if (Status s = CheckParams(h, path, params, &older_minhash); !s.ok()) return s;
  }
  if (older_minhash) {
    if (Status s = SignFilesAgain(h, path, params); !s.ok()) return s;
    impl->signs_again = true;
  }
  if (options.count_shingles && !fresh) {
    Result<uint64_t> marked = SignUncountedAgain(h, path);
    if (!marked.ok()) return marked.status();
    impl->counts_again = *marked;
  }
  // The holder, for a second run's message.
  if (Status s = WriteHolder(h, path); !s.ok()) return s;
  return std::unique_ptr<SignatureIndex>(new SignatureIndex(std::move(impl), path));
}

bool SignatureIndex::signs_again() const { return impl_->signs_again; }

uint64_t SignatureIndex::counts_again() const { return impl_->counts_again; }

Result<std::vector<IndexedFile>> SignatureIndex::Files(const std::atomic<bool>* stop) {
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
    if (stop != nullptr && out.size() % kStopRows == 0 && stop->load()) return Status::Cancelled("stopped");
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
  const std::atomic<bool>* stop;  // may be null
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
  Stmt q(h, (std::string(kDocumentColumns) + " WHERE key BETWEEN ? AND ?").c_str());
  if (!q.ok()) return SqlError(h, src.path, q.prepare_rc());
  q.Bind(1, DocKey(ids.first, 0));
  q.Bind(2, DocKey(ids.last, kMaxLine));
  std::vector<uint32_t> sig(load.limits.num_perm);
  int rc = SQLITE_OK;
  while ((rc = q.Step()) == SQLITE_ROW) {
    if (load.stop != nullptr && load.stop->load(std::memory_order_relaxed)) return Status::Cancelled("stopped");
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
      Result<Db> reader = OpenDb(src.path, /*write=*/false, /*create=*/nullptr, &fresh);
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

Status SignatureIndex::LoadDocuments(const std::vector<const IndexedFile*>& wanted, const DocFn& doc, int threads,
                                     const std::atomic<bool>* stop) {
  sqlite3* h = impl_->db.get();
  int rc = SQLITE_OK;
  const int64_t total = impl_->files_read >= 0 ? impl_->files_read : QueryInt(h, "SELECT count(*) FROM files", &rc);
  if (rc != SQLITE_OK) return SqlError(h, path_, rc);
  if (wanted.empty()) return Status::Ok();
  const SlotOf slot_of(wanted);
  std::vector<uint64_t> read(wanted.size(), 0);
  const DocLoad load{wanted, slot_of, read, impl_->limits, doc, stop};
  const DocSource src{h, path_};
  // Most files: passes over the table in key order (file, line) beat a
  // lookup per file.
  if (wanted.size() * 8 >= static_cast<uint64_t>(total)) {
    if (Status s = ScanInParts(src, load, threads); !s.ok()) return s;
  } else {
    Stmt q(h, (std::string(kDocumentColumns) + " WHERE key BETWEEN ? AND ? ORDER BY key").c_str());
    if (!q.ok()) return SqlError(h, path_, q.prepare_rc());
    std::vector<uint32_t> sig(impl_->limits.num_perm);
    for (size_t slot = 0; slot < wanted.size(); ++slot) {
      if (stop != nullptr && stop->load(std::memory_order_relaxed)) return Status::Cancelled("stopped");
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
                       "INSERT OR REPLACE INTO documents(key, name, size, content, kind, signature, shingles) "
                       "VALUES(?, ?, ?, ?, ?, ?, ?)");
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
      ins.BindU(7, d.shingles);
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
                               std::span<const uint32_t> signatures, std::span<const StoredProblem> problems,
                               std::span<const SetBitmap> bitmaps) {
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
    if (Status s = DeleteBitmaps(h, impl_->cache, path_, id); !s.ok()) return s;
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
  if (Status s = InsertRows(w, id, file.walked_as, FileRows{.docs = docs, .sigs = signatures, .problems = problems});
      !s.ok()) {
    return s;
  }
  return PutBitmaps(h, impl_->cache, path_, id, docs, bitmaps);
}

Status SignatureIndex::AppendToFile(const IndexedFile& file, std::span<const DocRecord> docs,
                                    std::span<const uint32_t> signatures, std::span<const StoredProblem> problems,
                                    std::span<const SetBitmap> bitmaps) {
  const Writer w{impl_->db.get(), impl_->cache, path_, static_cast<size_t>(impl_->num_perm)};
  if (Status s = UpdateFileRow(w, file, impl_->run, impl_->run_started_ns); !s.ok()) return s;
  if (Status s =
          InsertRows(w, file.id, file.walked_as, FileRows{.docs = docs, .sigs = signatures, .problems = problems});
      !s.ok()) {
    return s;
  }
  return PutBitmaps(w.db, impl_->cache, path_, file.id, docs, bitmaps);
}

Status SignatureIndex::RemoveFile(int64_t id) {
  sqlite3* h = impl_->db.get();
  Stmt& docs = Cached(h, impl_->cache, "DELETE FROM documents WHERE key BETWEEN ? AND ?");
  docs.Bind(1, DocKey(id, 0));
  docs.Bind(2, DocKey(id, kMaxLine));
  if (int rc = docs.Step(); rc != SQLITE_DONE) return SqlError(h, path_, rc);
  if (Status s = DeleteBitmaps(h, impl_->cache, path_, id); !s.ok()) return s;
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
  Result<Db> db = OpenDb(path, /*write=*/true, /*create=*/nullptr, &fresh);
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
  Result<Db> db = OpenDb(path, /*write=*/true, /*create=*/nullptr, &fresh);
  if (!db.ok()) return db.status();
  sqlite3* h = db->get();
  // An error leaves the transaction open: closing the connection rolls it back.
  if (int rc = Exec(h, "BEGIN IMMEDIATE"); rc != SQLITE_OK) return SqlError(h, path, rc);
  Stmt find(h, "SELECT id FROM files WHERE path = ?");
  Stmt docs(h, "DELETE FROM documents WHERE key BETWEEN ? AND ?");
  StmtCache bitmaps;  // DeleteBitmaps' statement
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
      if (Status s = DeleteBitmaps(h, bitmaps, path, id); !s.ok()) return s;
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

}  // namespace neardup
