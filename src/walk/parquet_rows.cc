#include "walk/parquet_rows.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "neardup/quote.h"
#include "walk/duckdb_library.h"

namespace neardup {

namespace {

#if NEARDUP_HAVE_DUCKDB

// Appends `s` as the inside of a JSON string.
void AppendJsonString(const char* s, size_t n, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      *out += '\\';
      *out += static_cast<char>(c);
    } else if (c < 0x20) {
      *out += "\\u00";
      *out += kHex[c >> 4];
      *out += kHex[c & 15];
    } else {
      *out += static_cast<char>(c);
    }
  }
}

// `s` with every "/proc/self/fd/N" written as `path` (DuckDB names the file
// it was given).
std::string Renamed(std::string s, const std::string& fd_path, const std::string& path) {
  for (size_t at = s.find(fd_path); at != std::string::npos; at = s.find(fd_path, at + path.size()))
    s.replace(at, fd_path.size(), path);
  return s;
}

// Whether DuckDB's type name is an integer type (an id may be one).
bool IntegerType(const std::string& type) {
  static constexpr const char* kIntegers[] = {"TINYINT",  "SMALLINT",  "INTEGER",  "BIGINT",  "HUGEINT",
                                              "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"};
  return std::any_of(std::begin(kIntegers), std::end(kIntegers), [&](const char* t) { return type == t; });
}

class ParquetRows final : public ByteReader {
 public:
  ParquetRows(std::unique_ptr<DuckDbSession> session, int fd, std::string path)
      : session_(std::move(session)), api_(session_->api()), fd_(fd), path_(std::move(path)) {}
  ~ParquetRows() override {
    if (chunk_ != nullptr) api_.destroy_data_chunk(&chunk_);
    if (started_) api_.destroy_result(&result_);
    session_.reset();
    ::close(fd_);
  }

  // Checks the columns and starts the query. `keys`: the JSON keys written.
  Status Start(const ParquetColumns& columns) {
    Result<std::vector<std::vector<std::string>>> schema =
        session_->Strings("DESCRIBE SELECT * FROM read_parquet(" + SqlString(FdPath()) + ")");
    if (!schema.ok()) return Status::Corrupt(Named(schema.status().message()));
    const std::vector<std::string>* text = Find(*schema, columns.text);
    const std::vector<std::string>* id = Find(*schema, columns.id);
    if (text == nullptr) return Status::InvalidArgument(Missing(*schema, columns.text));
    if ((*text)[1] != "VARCHAR")
      return Status::InvalidArgument(ShellQuoted(path_) + ": column \"" + columns.text + "\" (--text-key) is " +
                                     (*text)[1] + ", not a string column (VARCHAR)");
    if (id != nullptr && (*id)[1] != "VARCHAR" && !IntegerType((*id)[1]))
      return Status::InvalidArgument(ShellQuoted(path_) + ": column \"" + columns.id + "\" (--id-key) is " + (*id)[1] +
                                     ", not a string or integer column");
    text_key_ = "{\"";
    AppendJsonString(columns.text.data(), columns.text.size(), &text_key_);
    text_key_ += "\":\"";
    std::string sql = "SELECT " + SqlName(columns.text);
    if (id != nullptr) {
      id_key_ = "\",\"";
      AppendJsonString(columns.id.data(), columns.id.size(), &id_key_);
      id_key_ += "\":\"";
      sql += ", CAST(" + SqlName(columns.id) + " AS VARCHAR)";
    }
    sql += " FROM read_parquet(" + SqlString(FdPath()) + ")";
    return Query(sql);
  }

  // Fills `buf` with the rows of the current chunk; the next chunk is
  // fetched only by a call that has nothing yet (so that its error, if any,
  // comes after every row before it).
  Result<size_t> Read(char* buf, size_t n) override {
    size_t got = 0;
    while (got < n) {
      if (at_ < lines_.size()) {
        const size_t take = std::min(n - got, lines_.size() - at_);
        std::memcpy(buf + got, lines_.data() + at_, take);
        at_ += take;
        got += take;
      } else if (row_ < rows_) {
        FormatRow(row_++);
      } else if (done_ || got > 0) {
        break;
      } else if (Status s = NextChunk(); !s.ok()) {
        return s;
      }
    }
    return got;
  }

 private:
  std::string FdPath() const { return "/proc/self/fd/" + std::to_string(fd_); }
  std::string Named(const std::string& duckdb_message) const {
    // DuckDB quotes the query after its reason ("LINE 1: ..."): not ours to show.
    const std::string reason = duckdb_message.substr(0, duckdb_message.find("; LINE 1:"));
    return ShellQuoted(path_) + ": not readable as Parquet: " + Renamed(reason, FdPath(), path_);
  }
  static const std::vector<std::string>* Find(const std::vector<std::vector<std::string>>& schema,
                                              const std::string& name) {
    for (const auto& row : schema) {
      if (row.size() >= 2 && row[0] == name) return &row;
    }
    return nullptr;
  }
  std::string Missing(const std::vector<std::vector<std::string>>& schema, const std::string& name) const {
    std::string have;
    for (const auto& row : schema) have += (have.empty() ? "" : ", ") + row[0] + " " + row[1];
    return ShellQuoted(path_) + ": no column \"" + name + "\" (--text-key); the columns are: " + have;
  }

  Status Query(const std::string& sql) {
    duckdb_prepared_statement prepared = nullptr;
    Status s = Status::Ok();
    if (api_.prepare(session_->connection(), sql.c_str(), &prepared) == DuckDBError) {
      const char* e = api_.prepare_error(prepared);
      s = Status::Corrupt(Named(OneLine(e != nullptr ? e : "cannot prepare the query")));
    } else {
      started_ = true;
      if (api_.execute_prepared_streaming(prepared, &result_) == DuckDBError) s = ResultError();
    }
    api_.destroy_prepare(&prepared);
    return s;
  }
  Status ResultError() {
    const char* e = api_.result_error(&result_);
    return Status::Corrupt(Named(OneLine(e != nullptr ? e : "cannot read the rows")));
  }

  // Fetches the next chunk (DuckDB's, up to 2048 rows); done_ at the end.
  Status NextChunk() {
    if (chunk_ != nullptr) api_.destroy_data_chunk(&chunk_);
    row_ = rows_ = 0;
    chunk_ = api_.fetch_chunk(result_);
    if (chunk_ == nullptr) {
      done_ = true;
      const char* e = api_.result_error(&result_);
      return e != nullptr ? ResultError() : Status::Ok();
    }
    rows_ = api_.data_chunk_get_size(chunk_);
    text_ = ColumnOf(0);
    id_ = id_key_.empty() ? Column() : ColumnOf(1);
    return Status::Ok();
  }
  // Makes row `r` of the chunk the line in lines_: one row is held formatted
  // at a time, besides the chunk.
  void FormatRow(idx_t r) {
    lines_.clear();
    at_ = 0;
    lines_ += text_key_;
    Append(text_, r);
    if (id_.data != nullptr && Valid(id_, r)) {
      lines_ += id_key_;
      Append(id_, r);
    }
    lines_ += "\"}\n";
  }
  struct Column {
    duckdb_string_t* data = nullptr;
    uint64_t* valid = nullptr;
  };
  Column ColumnOf(idx_t c) const {
    duckdb_vector v = api_.data_chunk_get_vector(chunk_, c);
    return {static_cast<duckdb_string_t*>(api_.vector_get_data(v)), api_.vector_get_validity(v)};
  }
  static bool Valid(const Column& c, idx_t r) {
    return c.valid == nullptr || (c.valid[r / 64] & (uint64_t{1} << (r % 64))) != 0;
  }
  // A NULL appends nothing: an empty text.
  void Append(const Column& c, idx_t r) {
    if (!Valid(c, r)) return;
    AppendJsonString(api_.string_t_data(&c.data[r]), api_.string_t_length(c.data[r]), &lines_);
  }

  std::unique_ptr<DuckDbSession> session_;
  const DuckDbApi& api_;
  int fd_;
  std::string path_;
  std::string text_key_;  // {"KEY":"
  std::string id_key_;    // ","KEY":"  (empty: no id column)
  duckdb_result result_{};
  bool started_ = false;
  duckdb_data_chunk chunk_ = nullptr;
  idx_t rows_ = 0;  // in chunk_
  idx_t row_ = 0;   // the next row of chunk_ to format
  Column text_;
  Column id_;
  std::string lines_;  // the row being read, as its line
  size_t at_ = 0;      // bytes of lines_ already read
  bool done_ = false;
};

#endif

}  // namespace

Result<int> OpenParquetFile(const std::string& path, const FileIdentity& expected) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Status::IoError(ShellQuoted(path) + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      (expected.ino != 0 && (st.st_dev != expected.dev || st.st_ino != expected.ino))) {
    ::close(fd);
    return Status::Changed(ShellQuoted(path) + ": replaced since it was listed, or not a regular file");
  }
  return fd;
}

Result<std::unique_ptr<ByteReader>> OpenParquetRows(FileSystem& fs, const std::string& path,
                                                    const FileIdentity& expected, const ParquetColumns& columns) {
  if (expected.stream)
    return Status::InvalidArgument(ShellQuoted(path) + ": Parquet is read from a file, not a stream: name the file");
  Result<std::unique_ptr<ByteReader>> checked = fs.OpenExpected(path, expected);
  if (!checked.ok()) return checked.status();
  checked->reset();
  Result<std::unique_ptr<DuckDbSession>> session = DuckDbSession::Open();
  if (!session.ok()) return Status::NotFound(ShellQuoted(path) + ": " + session.status().message());
#if NEARDUP_HAVE_DUCKDB
  Result<int> fd = OpenParquetFile(path, expected);
  if (!fd.ok()) return fd.status();
  auto rows = std::make_unique<ParquetRows>(std::move(*session), *fd, path);
  if (Status s = rows->Start(columns); !s.ok()) return s;
  return std::unique_ptr<ByteReader>(std::move(rows));
#else
  (void)columns;
  return Status::Internal("no DuckDB");
#endif
}

}  // namespace neardup
