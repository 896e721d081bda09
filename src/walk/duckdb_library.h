// DuckDB's C API (libduckdb), loaded at run time: the one place that knows
// where the library is and which of its functions neardup calls. Parquet is
// read through it (walk/parquet_rows.h); nothing else needs it, so neardup
// builds, runs and is tested without it.
//
// The library is looked for, once a process, in this order:
//  1. the path in the environment variable NEARDUP_DUCKDB_LIB, when it is
//     set: then there alone (a wrong path is said, not searched past);
//  2. libduckdb.so next to the neardup binary;
//  3. where scripts/deps.sh put it for this build (NEARDUP_DUCKDB_DEFAULT_LIB);
//  4. the system's library search path (dlopen("libduckdb.so")).
// The header (duckdb.h, for the functions' types) is needed at build time
// only; built without it (NEARDUP_HAVE_DUCKDB 0), LoadDuckDb() says that
// this neardup was built without Parquet support.
//
// DuckDbSession is one in-memory database and its connection, closed by its
// destructor: one thread uses it; several sessions may run at once.
//
// Thread safety: LoadDuckDb() may be called from any thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "neardup/status.h"

#if NEARDUP_HAVE_DUCKDB
#include <duckdb.h>
#endif

namespace neardup {

inline constexpr const char* kDuckDbLibEnv = "NEARDUP_DUCKDB_LIB";

#if NEARDUP_HAVE_DUCKDB
// The functions neardup calls, resolved from the loaded library.
struct DuckDbApi {
  decltype(&duckdb_library_version) library_version = nullptr;
  decltype(&duckdb_create_config) create_config = nullptr;
  decltype(&duckdb_set_config) set_config = nullptr;
  decltype(&duckdb_destroy_config) destroy_config = nullptr;
  decltype(&duckdb_open_ext) open_ext = nullptr;
  decltype(&duckdb_close) close = nullptr;
  decltype(&duckdb_free) free = nullptr;
  decltype(&duckdb_connect) connect = nullptr;
  decltype(&duckdb_disconnect) disconnect = nullptr;
  decltype(&duckdb_query) query = nullptr;
  decltype(&duckdb_destroy_result) destroy_result = nullptr;
  decltype(&duckdb_result_error) result_error = nullptr;
  decltype(&duckdb_prepare) prepare = nullptr;
  decltype(&duckdb_prepare_error) prepare_error = nullptr;
  decltype(&duckdb_destroy_prepare) destroy_prepare = nullptr;
  decltype(&duckdb_execute_prepared_streaming) execute_prepared_streaming = nullptr;
  decltype(&duckdb_fetch_chunk) fetch_chunk = nullptr;
  decltype(&duckdb_destroy_data_chunk) destroy_data_chunk = nullptr;
  decltype(&duckdb_data_chunk_get_size) data_chunk_get_size = nullptr;
  decltype(&duckdb_data_chunk_get_vector) data_chunk_get_vector = nullptr;
  decltype(&duckdb_data_chunk_get_column_count) data_chunk_get_column_count = nullptr;
  decltype(&duckdb_vector_get_data) vector_get_data = nullptr;
  decltype(&duckdb_vector_get_validity) vector_get_validity = nullptr;
  decltype(&duckdb_string_t_length) string_t_length = nullptr;
  decltype(&duckdb_string_t_data) string_t_data = nullptr;
};
#else
struct DuckDbApi {};
#endif

// The API of the loaded library, or an error of one line saying how to
// provide it (NotFound), or that this build has no Parquet support. The
// library stays loaded until the process ends.
[[nodiscard]] Result<const DuckDbApi*> LoadDuckDb();

class DuckDbSession {
 public:
  // A new in-memory database (one thread, no extension loaded or installed
  // from the network) and its connection; errors as LoadDuckDb().
  [[nodiscard]] static Result<std::unique_ptr<DuckDbSession>> Open();
  ~DuckDbSession();
  DuckDbSession(const DuckDbSession&) = delete;
  DuckDbSession& operator=(const DuckDbSession&) = delete;

  // Runs `sql` to its end, its rows discarded (COPY ... TO, SET). Corrupt
  // with DuckDB's message (on one line) when it fails.
  [[nodiscard]] Status Execute(const std::string& sql);
  // The rows of a query whose columns are all VARCHAR, each row its values
  // (NULL as ""). For small results (DESCRIBE): all are held.
  [[nodiscard]] Result<std::vector<std::vector<std::string>>> Strings(const std::string& sql);

  const DuckDbApi& api() const { return *api_; }
#if NEARDUP_HAVE_DUCKDB
  duckdb_connection connection() const { return connection_; }
#endif

 private:
  explicit DuckDbSession(const DuckDbApi* api) : api_(api) {}
  const DuckDbApi* api_;
#if NEARDUP_HAVE_DUCKDB
  duckdb_database database_ = nullptr;
  duckdb_connection connection_ = nullptr;
#endif
};

// DuckDB's message on one line: each run of line breaks becomes "; ".
std::string OneLine(std::string message);

// `s` as an SQL string literal ('...', quotes doubled) and as an SQL
// identifier ("...", quotes doubled).
std::string SqlString(const std::string& s);
std::string SqlName(const std::string& s);

}  // namespace neardup
