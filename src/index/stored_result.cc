#include "index/stored_result.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "base/hash.h"
#include "index/index_schema.h"
#include "index/index_sql.h"
#include "neardup/option_table.h"
#include "neardup/version.h"

namespace neardup {

namespace {

// The timestamp resolution the rule allows for (file_plans.cc's).
constexpr int64_t kResolutionNs = 2'000'000'000;

constexpr const char* kCreate = R"sql(
CREATE TABLE IF NOT EXISTS results(
  key TEXT PRIMARY KEY,
  listing_low INTEGER NOT NULL, listing_high INTEGER NOT NULL, files INTEGER NOT NULL, newest_ns INTEGER NOT NULL,
  started_ns INTEGER NOT NULL, exit_code INTEGER NOT NULL, summary TEXT NOT NULL, output BLOB NOT NULL)
)sql";

// Bytes for a Hasher128, handed over in blocks: the same digest as an
// Update() of each piece (XXH3 hashes a stream), without the cost of a call
// for every few bytes (a listing is a hundred thousand paths and numbers).
class BlockHasher {
 public:
  explicit BlockHasher(Hasher128* h) : h_(h) {}
  ~BlockHasher() { Flush(); }
  BlockHasher(const BlockHasher&) = delete;
  BlockHasher& operator=(const BlockHasher&) = delete;
  void Add(const void* data, size_t len) {
    if (len > sizeof block_ - used_) Flush();
    if (len >= sizeof block_) {
      h_->Update(data, len);
      return;
    }
    std::memcpy(block_ + used_, data, len);
    used_ += len;
  }
  void AddInt(uint64_t v) { Add(&v, sizeof v); }
  void Flush() {
    if (used_ > 0) h_->Update(block_, used_);
    used_ = 0;
  }

 private:
  Hasher128* h_;
  size_t used_ = 0;
  unsigned char block_[1 << 14];
};

// Appends `text` with its length, so that no two lists of texts run together.
void Add(std::string* key, const std::string& text) {
  key->append(std::to_string(text.size())).append(1, ':').append(text).append(1, ';');
}

// Every core option, as the option table reads it.
void AddCoreOptions(const Options& options, std::string* key) {
  Options o = options;  // the accessors take it mutable
  char number[64];
  for (const OptionSpec& spec : OptionTable()) {
    Add(key, spec.long_name);
    if (spec.get != nullptr) {
      std::snprintf(number, sizeof number, "%.21Lg", spec.get(o));
      Add(key, number);
    }
    if (spec.text != nullptr) Add(key, *spec.text(o));
    if (spec.list != nullptr) {
      const std::vector<std::string>& values = *spec.list(o);
      Add(key, std::to_string(values.size()));
      for (const std::string& v : values) Add(key, v);
    }
  }
  Add(key, std::to_string(o.listed_paths.size()));
  for (const std::string& p : o.listed_paths) Add(key, p);
  Add(key, o.name_skipped ? "named" : "counted");
  Add(key, o.doc_places ? "places" : "");
}

// This build: the executable's identity. Empty when it cannot be told.
std::string ThisBuild() {
  struct stat st {};
  if (::stat("/proc/self/exe", &st) != 0) return {};
  return std::to_string(st.st_dev) + "." + std::to_string(st.st_ino) + "." + std::to_string(st.st_size) + "." +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

// Whether the run reads a stream (`-`, a pipe, a device): read once, it is
// not a file whose stat says its bytes.
bool ReadsAStream(const Options& o) {
  for (const std::vector<std::string>* list : {&o.paths, &o.against, &o.listed_paths}) {
    for (const std::string& p : *list) {
      struct stat st {};
      if (p == "-" || (::stat(p.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) return true;
    }
  }
  return false;
}

}  // namespace

std::string ResultKeyOf(const Options& options, const std::string& front_end) {
  if (options.index.empty() || options.new_only || !options.kept_dir.empty() || !options.annotate_dir.empty() ||
      ReadsAStream(options)) {
    return {};
  }
  const std::string build = ThisBuild();
  char cwd[4096];
  if (build.empty() || ::getcwd(cwd, sizeof cwd) == nullptr) return {};
  std::string key;
  Add(&key, kVersion);
  Add(&key, build);
  Add(&key, cwd);
  Add(&key, front_end);
  AddCoreOptions(options, &key);
  Hasher128 h;
  h.Update(key.data(), key.size());
  uint64_t low = 0, high = 0;
  h.Digest(&low, &high);
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return hex;
}

ResultListing ListingOf(const WalkedCorpus& walked) {
  const std::vector<InputFile>& files = walked.files;
  ResultListing out;
  Hasher128 h;
  BlockHasher b(&h);
  const WalkCounts& c = walked.counts;
  for (const uint64_t n : {c.hidden, c.glob, c.ignored, c.too_large, c.symlinks, c.loops, c.dangling, c.special,
                           c.parquet, uint64_t{walked.errors.size()}, uint64_t{walked.notices.size()}}) {
    b.AddInt(n);
  }
  for (const InputFile& f : files) {
    b.AddInt(f.path.size());
    b.Add(f.path.data(), f.path.size());
    const uint64_t numbers[] = {f.identity.dev,
                                f.identity.ino,
                                f.identity.stream ? uint64_t{1} : uint64_t{0},
                                f.size,
                                static_cast<uint64_t>(f.mtime_ns),
                                static_cast<uint64_t>(f.ctime_ns)};
    b.Add(numbers, sizeof numbers);
    out.newest_ns = std::max({out.newest_ns, f.mtime_ns, f.ctime_ns});
  }
  b.AddInt(files.size());
  b.Flush();
  h.Digest(&out.low, &out.high);
  out.files = files.size();
  return out;
}

bool GivesAgain(const StoredResult& stored, const ResultListing& now) {
  return stored.listing.low == now.low && stored.listing.high == now.high && stored.listing.files == now.files &&
         now.files > 0 && stored.started_ns > kResolutionNs && now.newest_ns < ChangedSince(stored);
}

int64_t ChangedSince(const StoredResult& stored) { return stored.started_ns - kResolutionNs; }

std::optional<StoredResult> FindResult(const std::string& index_path, const std::string& key) {
  int rc = SQLITE_OK;
  Db db = Connect(index_path, /*write=*/false, /*immutable=*/false, &rc);
  if (rc != SQLITE_OK) return std::nullopt;
  // No table (an index no run kept a result in): no result.
  Stmt q(db.get(),
         "SELECT listing_low, listing_high, files, newest_ns, started_ns, exit_code, summary, output FROM results "
         "WHERE key = ?");
  if (!q.ok()) return std::nullopt;
  q.Bind(1, key);
  if (q.Step() != SQLITE_ROW) return std::nullopt;
  StoredResult r;
  r.listing = {.low = q.UInt(0), .high = q.UInt(1), .files = q.UInt(2), .newest_ns = q.Int(3)};
  r.started_ns = q.Int(4);
  r.exit_code = static_cast<int>(q.Int(5));
  r.summary = q.Text(6);
  if (q.Type(7) != SQLITE_BLOB) return std::nullopt;
  const char* bytes = static_cast<const char*>(q.Blob(7));
  r.output.assign(bytes == nullptr ? "" : bytes, bytes == nullptr ? 0 : q.Bytes(7));
  if (r.exit_code != 0 && r.exit_code != 1) return std::nullopt;
  return r;
}

bool LastRunChangedNothing(const std::string& index_path) {
  int rc = SQLITE_OK;
  Db db = Connect(index_path, /*write=*/false, /*immutable=*/false, &rc);
  if (rc != SQLITE_OK) return false;
  Stmt q(db.get(), "SELECT signed, removed FROM runs WHERE ended IS NOT NULL ORDER BY id DESC LIMIT 1");
  if (!q.ok() || q.Step() != SQLITE_ROW) return false;
  return q.Type(0) == SQLITE_INTEGER && q.Type(1) == SQLITE_INTEGER && q.Int(0) == 0 && q.Int(1) == 0;
}

Status KeepResult(const std::string& index_path, const std::string& key, const StoredResult& result) {
  bool fresh = false;
  Result<Db> db = OpenDb(index_path, /*write=*/true, /*create=*/nullptr, &fresh);
  if (!db.ok()) return db.status();
  sqlite3* h = db->get();
  // An error leaves the transaction open: closing the connection rolls it back.
  if (int rc = Exec(h, "BEGIN IMMEDIATE"); rc != SQLITE_OK) return SqlError(h, index_path, rc);
  if (int rc = Exec(h, kCreate); rc != SQLITE_OK) return SqlError(h, index_path, rc);
  Stmt put(h,
           "INSERT OR REPLACE INTO results(key, listing_low, listing_high, files, newest_ns, started_ns, exit_code, "
           "summary, output) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!put.ok()) return SqlError(h, index_path, put.prepare_rc());
  put.Bind(1, key);
  put.BindU(2, result.listing.low);
  put.BindU(3, result.listing.high);
  put.BindU(4, result.listing.files);
  put.Bind(5, result.listing.newest_ns);
  put.Bind(6, result.started_ns);
  put.Bind(7, int64_t{result.exit_code});
  put.Bind(8, result.summary);
  put.BindBlob(9, result.output.data(), result.output.size());
  if (int rc = put.Step(); rc != SQLITE_DONE) return SqlError(h, index_path, rc);
  Stmt trim(h, "DELETE FROM results WHERE key NOT IN (SELECT key FROM results ORDER BY started_ns DESC LIMIT ?)");
  if (!trim.ok()) return SqlError(h, index_path, trim.prepare_rc());
  trim.Bind(1, int64_t{kMaxResults});
  if (int rc = trim.Step(); rc != SQLITE_DONE) return SqlError(h, index_path, rc);
  if (int rc = Exec(h, "COMMIT"); rc != SQLITE_OK) return SqlError(h, index_path, rc);
  return Status::Ok();
}

int64_t NowNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace neardup
