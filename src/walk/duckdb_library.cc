#include "walk/duckdb_library.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace neardup {

std::string OneLine(std::string message) {
  std::string out;
  out.reserve(message.size());
  bool broke = false;
  for (const char c : message) {
    if (c == '\n' || c == '\r') {
      broke = true;
      continue;
    }
    if (broke && !out.empty()) out += "; ";
    broke = false;
    out += c;
  }
  return out;
}

namespace {

std::string Quoted(const std::string& s, char quote) {
  std::string out(1, quote);
  for (const char c : s) {
    out += c;
    if (c == quote) out += c;
  }
  return out + quote;
}

}  // namespace

std::string SqlString(const std::string& s) { return Quoted(s, '\''); }
std::string SqlName(const std::string& s) { return Quoted(s, '"'); }

#if !NEARDUP_HAVE_DUCKDB

Result<const DuckDbApi*> LoadDuckDb() {
  return Status::NotFound(
      "this neardup was built without DuckDB's header (duckdb.h), so it reads no Parquet: run scripts/deps.sh and "
      "build again");
}

Result<std::unique_ptr<DuckDbSession>> DuckDbSession::Open() {
  Result<const DuckDbApi*> api = LoadDuckDb();
  return api.status();
}
DuckDbSession::~DuckDbSession() = default;
Status DuckDbSession::Execute(const std::string& /*sql*/) { return Status::Internal("no DuckDB"); }
Result<std::vector<std::vector<std::string>>> DuckDbSession::Strings(const std::string& /*sql*/) {
  return Status::Internal("no DuckDB");
}

#else

namespace {

constexpr const char* kHowTo =
    "Parquet needs DuckDB's libduckdb.so (1.x): set NEARDUP_DUCKDB_LIB to its path, or put it on the library search "
    "path";

// The directory of the running binary, with a trailing '/', or "".
std::string BinaryDir() {
  std::string buf(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return "";
  buf.resize(static_cast<size_t>(n));
  const size_t slash = buf.rfind('/');
  return slash == std::string::npos ? "" : buf.substr(0, slash + 1);
}

// dlopen of `path`, or null with the reason in *why.
void* Open(const std::string& path, std::string* why) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* e = ::dlerror();
    *why = e != nullptr ? e : "dlopen failed";
  }
  return handle;
}

void* FindLibrary(std::string* why) {
  if (const char* env = std::getenv(kDuckDbLibEnv); env != nullptr && *env != '\0') {
    void* handle = Open(env, why);
    if (handle == nullptr) *why = std::string(kDuckDbLibEnv) + "=" + env + ": " + *why;
    return handle;
  }
  std::vector<std::string> places;
  if (const std::string dir = BinaryDir(); !dir.empty()) places.push_back(dir + "libduckdb.so");
#ifdef NEARDUP_DUCKDB_DEFAULT_LIB
  places.push_back(NEARDUP_DUCKDB_DEFAULT_LIB);
#endif
  places.push_back("libduckdb.so");
  for (const std::string& place : places) {
    if (place.find('/') != std::string::npos && ::access(place.c_str(), F_OK) != 0) continue;
    if (void* handle = Open(place, why); handle != nullptr) return handle;
  }
  *why = "not found";
  return nullptr;
}

// Resolves every function of `api` from `handle`; the name of the first
// missing one, or "".
template <typename Fn>
bool Resolve(void* handle, const char* name, Fn* fn, std::string* missing) {
  *fn = reinterpret_cast<Fn>(::dlsym(handle, name));
  if (*fn == nullptr && missing->empty()) *missing = name;
  return *fn != nullptr;
}

std::string ResolveAll(void* h, DuckDbApi* a) {
  std::string m;
#define NEARDUP_RESOLVE(field, name) Resolve(h, name, &a->field, &m)
  NEARDUP_RESOLVE(library_version, "duckdb_library_version");
  NEARDUP_RESOLVE(create_config, "duckdb_create_config");
  NEARDUP_RESOLVE(set_config, "duckdb_set_config");
  NEARDUP_RESOLVE(destroy_config, "duckdb_destroy_config");
  NEARDUP_RESOLVE(open_ext, "duckdb_open_ext");
  NEARDUP_RESOLVE(close, "duckdb_close");
  NEARDUP_RESOLVE(free, "duckdb_free");
  NEARDUP_RESOLVE(connect, "duckdb_connect");
  NEARDUP_RESOLVE(disconnect, "duckdb_disconnect");
  NEARDUP_RESOLVE(query, "duckdb_query");
  NEARDUP_RESOLVE(destroy_result, "duckdb_destroy_result");
  NEARDUP_RESOLVE(result_error, "duckdb_result_error");
  NEARDUP_RESOLVE(prepare, "duckdb_prepare");
  NEARDUP_RESOLVE(prepare_error, "duckdb_prepare_error");
  NEARDUP_RESOLVE(destroy_prepare, "duckdb_destroy_prepare");
  NEARDUP_RESOLVE(execute_prepared_streaming, "duckdb_execute_prepared_streaming");
  NEARDUP_RESOLVE(fetch_chunk, "duckdb_fetch_chunk");
  NEARDUP_RESOLVE(destroy_data_chunk, "duckdb_destroy_data_chunk");
  NEARDUP_RESOLVE(data_chunk_get_size, "duckdb_data_chunk_get_size");
  NEARDUP_RESOLVE(data_chunk_get_vector, "duckdb_data_chunk_get_vector");
  NEARDUP_RESOLVE(data_chunk_get_column_count, "duckdb_data_chunk_get_column_count");
  NEARDUP_RESOLVE(vector_get_data, "duckdb_vector_get_data");
  NEARDUP_RESOLVE(vector_get_validity, "duckdb_vector_get_validity");
  NEARDUP_RESOLVE(string_t_length, "duckdb_string_t_length");
  NEARDUP_RESOLVE(string_t_data, "duckdb_string_t_data");
#undef NEARDUP_RESOLVE
  return m;
}

Result<const DuckDbApi*> LoadOnce() {
  std::string why;
  void* handle = FindLibrary(&why);
  if (handle == nullptr) return Status::NotFound(std::string(kHowTo) + ": " + why);
  static DuckDbApi api;  // the library is never unloaded
  if (const std::string missing = ResolveAll(handle, &api); !missing.empty())
    return Status::NotFound(std::string(kHowTo) + ": the library found lacks " + missing);
  const std::string version = api.library_version();
  if (version.rfind("v1.", 0) != 0)
    return Status::NotFound(std::string(kHowTo) + ": the library found is DuckDB " + version);
  return &api;
}

}  // namespace

Result<const DuckDbApi*> LoadDuckDb() {
  static const Result<const DuckDbApi*> loaded = LoadOnce();
  return loaded;
}

Result<std::unique_ptr<DuckDbSession>> DuckDbSession::Open() {
  Result<const DuckDbApi*> api = LoadDuckDb();
  if (!api.ok()) return api.status();
  const DuckDbApi& a = **api;
  std::unique_ptr<DuckDbSession> s(new DuckDbSession(*api));
  duckdb_config config = nullptr;
  if (a.create_config(&config) == DuckDBError) return Status::Internal("DuckDB: cannot create a configuration");
  a.set_config(config, "threads", "1");
  a.set_config(config, "autoinstall_known_extensions", "false");
  a.set_config(config, "autoload_known_extensions", "false");
  char* error = nullptr;
  const duckdb_state opened = a.open_ext(nullptr, &s->database_, config, &error);
  a.destroy_config(&config);
  if (opened == DuckDBError) {
    std::string message = error != nullptr ? error : "unknown error";
    a.free(error);
    return Status::Internal("DuckDB: cannot open a database in memory: " + OneLine(message));
  }
  if (a.connect(s->database_, &s->connection_) == DuckDBError) return Status::Internal("DuckDB: cannot connect");
  return s;
}

DuckDbSession::~DuckDbSession() {
  if (connection_ != nullptr) api_->disconnect(&connection_);
  if (database_ != nullptr) api_->close(&database_);
}

Status DuckDbSession::Execute(const std::string& sql) {
  duckdb_result result;
  const duckdb_state state = api_->query(connection_, sql.c_str(), &result);
  Status s = Status::Ok();
  if (state == DuckDBError) {
    const char* e = api_->result_error(&result);
    s = Status::Corrupt(OneLine(e != nullptr ? e : "DuckDB query failed"));
  }
  api_->destroy_result(&result);
  return s;
}

Result<std::vector<std::vector<std::string>>> DuckDbSession::Strings(const std::string& sql) {
  duckdb_result result;
  if (api_->query(connection_, sql.c_str(), &result) == DuckDBError) {
    const char* e = api_->result_error(&result);
    Status s = Status::Corrupt(OneLine(e != nullptr ? e : "DuckDB query failed"));
    api_->destroy_result(&result);
    return s;
  }
  std::vector<std::vector<std::string>> rows;
  for (duckdb_data_chunk chunk; (chunk = api_->fetch_chunk(result)) != nullptr;) {
    const idx_t n = api_->data_chunk_get_size(chunk);
    const size_t first = rows.size();
    rows.resize(first + n);
    const idx_t columns = api_->data_chunk_get_column_count(chunk);
    for (idx_t c = 0; c < columns; ++c) {
      duckdb_vector v = api_->data_chunk_get_vector(chunk, c);
      auto* data = static_cast<duckdb_string_t*>(api_->vector_get_data(v));
      uint64_t* valid = api_->vector_get_validity(v);
      for (idx_t r = 0; r < n; ++r) {
        const bool null = valid != nullptr && (valid[r / 64] & (uint64_t{1} << (r % 64))) == 0;
        rows[first + r].push_back(null ? std::string()
                                       : std::string(api_->string_t_data(&data[r]), api_->string_t_length(data[r])));
      }
    }
    api_->destroy_data_chunk(&chunk);
  }
  api_->destroy_result(&result);
  return rows;
}

#endif

}  // namespace neardup
