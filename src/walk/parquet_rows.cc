#include "walk/parquet_rows.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "neardup/quote.h"
#include "walk/duckdb_library.h"

namespace neardup {

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

namespace {

// What a change of a file's bytes changes of its stat: compared when the
// rows have been read, so that a file rewritten meanwhile is named.
struct FileStamp {
  int64_t size = 0, mtime_s = 0, mtime_ns = 0, ctime_s = 0, ctime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

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
  ParquetRows(std::unique_ptr<DuckDbSession> session, int fd, std::string path, FileStamp opened)
      : session_(std::move(session)), api_(session_->api()), fd_(fd), path_(std::move(path)), opened_(opened) {}
  ~ParquetRows() override {
    if (chunk_ != nullptr) api_.destroy_data_chunk(&chunk_);
    if (started_) api_.destroy_result(&result_);
    session_.reset();
    ::close(fd_);
  }

  // Checks the columns and starts the query, of every row or only of
  // `rows` (numbered from 0).
  Status Start(const ParquetColumns& columns, std::optional<std::pair<uint64_t, uint64_t>> rows) {
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
    if (!rows) {
      sql += " FROM read_parquet(" + SqlString(FdPath()) + ")";
    } else {  // the filter skips the other row groups; one thread: the file's order
      sql += " FROM read_parquet(" + SqlString(FdPath()) +
             ", file_row_number = true) WHERE file_row_number >= " + std::to_string(rows->first) +
             " AND file_row_number < " + std::to_string(rows->second);
    }
    return Query(sql);
  }

  std::string FdPath() const { return "/proc/self/fd/" + std::to_string(fd_); }
  DuckDbSession& session() { return *session_; }

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
      if (e != nullptr) return ResultError();
      struct stat st {};
      const bool same = ::fstat(fd_, &st) == 0 && FileStamp{st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                                                            st.st_ctim.tv_sec, st.st_ctim.tv_nsec} == opened_;
      return same ? Status::Ok() : Status::Changed(ShellQuoted(path_) + ": changed during the run");
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
  FileStamp opened_;      // the file's stat when opened
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

// The row groups of the file DuckDB reads as `fd_path` (`path`, as named).
Result<std::vector<ParquetRowGroup>> GroupsOf(DuckDbSession& session, const std::string& fd_path,
                                              const std::string& path) {
  // A row group starts at its first page: a column's dictionary page, when
  // it has one, comes before its data pages.
  Result<std::vector<std::vector<std::string>>> rows = session.Strings(
      "SELECT CAST(any_value(row_group_num_rows) AS VARCHAR), CAST(min(CASE WHEN dictionary_page_offset > 0 AND "
      "dictionary_page_offset < data_page_offset THEN dictionary_page_offset ELSE data_page_offset END) AS VARCHAR) "
      "FROM parquet_metadata(" +
      SqlString(fd_path) + ") GROUP BY row_group_id ORDER BY row_group_id");
  if (!rows.ok()) {
    return Status::Corrupt(ShellQuoted(path) +
                           ": not readable as Parquet: " + Renamed(rows.status().message(), fd_path, path));
  }
  std::vector<ParquetRowGroup> out;
  for (const std::vector<std::string>& row : *rows) {
    ParquetRowGroup g;
    const bool ok = row.size() == 2 &&
                    std::from_chars(row[0].data(), row[0].data() + row[0].size(), g.rows).ec == std::errc() &&
                    std::from_chars(row[1].data(), row[1].data() + row[1].size(), g.start).ec == std::errc();
    if (!ok) return Status::Corrupt(ShellQuoted(path) + ": not readable as Parquet: a row group without pages");
    out.push_back(g);
  }
  return out;
}

#endif

// The descriptor and session of `path`, checked as OpenParquetRows() says.
struct OpenedParquet {
  std::unique_ptr<DuckDbSession> session;
  int fd = -1;
  FileStamp stat;  // of `fd` when opened
};
Result<OpenedParquet> OpenParquet(FileSystem& fs, const std::string& path, const FileIdentity& expected) {
  if (expected.stream)
    return Status::InvalidArgument(ShellQuoted(path) + ": Parquet is read from a file, not a stream: name the file");
  Result<std::unique_ptr<ByteReader>> checked = fs.OpenExpected(path, expected);
  if (!checked.ok()) return checked.status();
  Result<std::unique_ptr<DuckDbSession>> session = DuckDbSession::Open();
  if (!session.ok()) return Status::NotFound(ShellQuoted(path) + ": " + session.status().message());
#if NEARDUP_HAVE_DUCKDB
  Result<int> fd = OpenParquetFile(path, expected);
  if (!fd.ok()) return fd.status();
  OpenedParquet out{.session = std::move(*session), .fd = *fd, .stat = {}};
  struct stat st {};
  if (::fstat(*fd, &st) == 0)
    out.stat = {st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ctim.tv_sec, st.st_ctim.tv_nsec};
  // Bytes hashed before DuckDB reads them: a change after the hash gives
  // another hash next time, never a stored one for other rows.
  if (fs.WantsAllBytes(path, expected)) {
    std::vector<char> buf(size_t{1} << 16);
    for (;;) {
      Result<size_t> got = (*checked)->Read(buf.data(), buf.size());
      if (!got.ok()) {
        ::close(*fd);
        return got.status();
      }
      if (*got == 0) break;
    }
  }
  return out;
#else
  return Status::Internal("no DuckDB");
#endif
}

}  // namespace

bool RowGroupsInFileOrder(const std::vector<ParquetRowGroup>& groups) {
  for (size_t g = 1; g < groups.size(); ++g) {
    if (groups[g].start <= groups[g - 1].start) return false;
  }
  return true;
}

std::pair<uint64_t, uint64_t> RowsStartingIn(const std::vector<ParquetRowGroup>& groups, uint64_t begin, uint64_t end) {
  uint64_t first = 0, last = 0;
  for (const ParquetRowGroup& g : groups) {
    if (g.start < begin) first += g.rows;
    if (g.start < end) last += g.rows;
  }
  return {first, std::max(first, last)};
}

Result<std::vector<ParquetRowGroup>> ParquetRowGroups(FileSystem& fs, const std::string& path,
                                                      const FileIdentity& expected) {
  Result<OpenedParquet> opened = OpenParquet(fs, path, expected);
  if (!opened.ok()) return opened.status();
#if NEARDUP_HAVE_DUCKDB
  Result<std::vector<ParquetRowGroup>> groups =
      GroupsOf(*opened->session, "/proc/self/fd/" + std::to_string(opened->fd), path);
  opened->session.reset();
  ::close(opened->fd);
  return groups;
#else
  return Status::Internal("no DuckDB");
#endif
}

Result<std::unique_ptr<ByteReader>> OpenParquetRows(FileSystem& fs, const std::string& path,
                                                    const FileIdentity& expected, const ParquetColumns& columns) {
  Result<OpenedParquet> opened = OpenParquet(fs, path, expected);
  if (!opened.ok()) return opened.status();
#if NEARDUP_HAVE_DUCKDB
  const auto size = static_cast<uint64_t>(opened->stat.size);
  auto rows = std::make_unique<ParquetRows>(std::move(opened->session), opened->fd, path, opened->stat);
  std::optional<std::pair<uint64_t, uint64_t>> part;
  if (const auto [begin, end] = fs.Range(path, size); begin != 0 || end != size) {
    Result<std::vector<ParquetRowGroup>> groups = GroupsOf(rows->session(), rows->FdPath(), path);
    if (!groups.ok()) return groups.status();
    if (!RowGroupsInFileOrder(*groups))
      return Status::Internal(ShellQuoted(path) + ": a part of a file whose row groups are out of order");
    part = RowsStartingIn(*groups, begin, end);
  }
  if (Status s = rows->Start(columns, part); !s.ok()) return s;
  return std::unique_ptr<ByteReader>(std::move(rows));
#else
  (void)columns;
  return Status::Internal("no DuckDB");
#endif
}

}  // namespace neardup
