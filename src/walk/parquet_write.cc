#include "walk/parquet_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "neardup/quote.h"
#include "walk/duckdb_library.h"
#include "walk/parquet_rows.h"

namespace neardup {

namespace {

#if NEARDUP_HAVE_DUCKDB

// Rows a statement when the marks are inserted.
constexpr size_t kInsertRows = 1000;

// `x` as its shortest round-trip text (a SQL or JSON number).
std::string Number(double x) {
  char buf[32];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

// A temporary file made (O_EXCL, no link followed) in `place`'s folder, its
// name returned; removed by its destructor unless Keep().
class TempName {
 public:
  TempName(const KeptPlace& place, unsigned mode) : place_(place) {
    int fd = -1;
    Result<std::string> name = CreateTempBeside(place, mode, &fd);
    if (!name.ok()) {
      status_ = name.status();
      return;
    }
    ::close(fd);
    name_ = std::move(*name);
  }
  ~TempName() {
    if (!name_.empty()) ::unlinkat(place_.folder.get(), name_.c_str(), 0);
  }
  TempName(const TempName&) = delete;
  TempName& operator=(const TempName&) = delete;

  Status status() const { return status_; }
  // The path DuckDB writes: through the folder's descriptor.
  std::string ProcPath() const { return "/proc/self/fd/" + std::to_string(place_.folder.get()) + "/" + name_; }
  // Renames the file into place.
  Status Commit() {
    if (::renameat(place_.folder.get(), name_.c_str(), place_.folder.get(), place_.name.c_str()) != 0) {
      return Status::IoError(ShellQuoted(place_.path) + ": cannot rename into place: " + std::strerror(errno));
    }
    name_.clear();
    return Status::Ok();
  }

 private:
  const KeptPlace& place_;
  std::string name_;
  Status status_ = Status::Ok();
};

// The statements that fill table s (the sparse marks), kInsertRows rows each.
std::vector<std::string> Inserts(const ParquetRewrite& what) {
  std::vector<std::string> out;
  std::string sql;
  size_t in_sql = 0;
  const size_t n = what.annotate ? what.marks.size() : what.dropped.size();
  for (size_t i = 0; i < n; ++i) {
    sql += in_sql == 0 ? "INSERT INTO s VALUES (" : ", (";
    if (what.annotate) {
      const RowMark& m = what.marks[i];
      const bool dup = !m.duplicate_of.empty();
      sql += std::to_string(m.row) + ", " + std::to_string(m.cluster) + ", " +
             (dup ? SqlString(m.duplicate_of) : "NULL") + ", " + (m.scored ? Number(m.score) : "NULL") + ", " +
             (m.kept ? "true" : "false") + ")";
    } else {
      sql += std::to_string(what.dropped[i]) + ")";
    }
    if (++in_sql == kInsertRows || i + 1 == n) {
      out.push_back(std::move(sql));
      sql.clear();
      in_sql = 0;
    }
  }
  return out;
}

// DuckDB's names are case-insensitive: "Kept" and "kept" are one column.
bool SameName(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

class Rewriter {
 public:
  Rewriter(DuckDbSession& db, const ParquetRewrite& what, int fd)
      : db_(db), what_(what), fd_path_("/proc/self/fd/" + std::to_string(fd)) {}

  // Everything up to the COPY into `target`.
  Status Write(const std::string& target) {
    // No spilling: DuckDB's in-memory database would spill to ".tmp" in the
    // working folder, outside DIR.
    if (Status s = Run("SET temp_directory = ''"); !s.ok()) return s;
    Result<std::vector<std::vector<std::string>>> schema = Query("DESCRIBE SELECT * FROM " + Source());
    if (!schema.ok()) return schema.status();
    if (Status s = CheckNames(*schema); !s.ok()) return s;
    Result<std::vector<std::vector<std::string>>> codec =
        Query("SELECT lower(compression) FROM parquet_metadata(" + SqlString(fd_path_) +
              ") ORDER BY row_group_id, column_id LIMIT 1");
    if (!codec.ok()) return codec.status();
    Result<std::vector<std::vector<std::string>>> rows =
        Query("SELECT num_rows::VARCHAR FROM parquet_file_metadata(" + SqlString(fd_path_) + ")");
    if (!rows.ok()) return rows.status();
    if (rows->size() != 1 || (*rows)[0].empty()) return Status::Corrupt(Named("no row count in its metadata"));
    const std::string count = (*rows)[0][0];
    const std::string compression = codec->empty() ? "snappy" : (*codec)[0][0];
    for (const char c : compression + count) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return Status::Corrupt(Named("odd metadata"));
    }
    if (Status s = Run(what_.annotate ? "CREATE TEMP TABLE s(r UBIGINT, cluster UBIGINT, duplicate_of VARCHAR, "
                                        "score DOUBLE, kept BOOLEAN)"
                                      : "CREATE TEMP TABLE s(r UBIGINT)");
        !s.ok()) {
      return s;
    }
    for (const std::string& insert : Inserts(what_)) {
      if (Status s = Run(insert); !s.ok()) return s;
    }
    // One row a row of the file, in its order.
    const std::string marks =
        what_.annotate ? "s.cluster, s.duplicate_of, s.score, coalesce(s.kept, true) AS kept" : "s.r IS NULL AS keep";
    if (Status s = Run("CREATE TEMP TABLE m AS SELECT " + marks + " FROM range(1, " + count +
                       " + 1) g LEFT JOIN s ON s.r = g.range ORDER BY g.range");
        !s.ok()) {
      return s;
    }
    std::string select = "SELECT p.*";
    if (what_.annotate) {
      for (const char* field : kMarkFields)
        select += ", m." + std::string(field) + " AS " + SqlName(what_.prefix + field);
    }
    select += " FROM " + Source() + " p POSITIONAL JOIN m";
    if (!what_.annotate) select += " WHERE m.keep";
    return Run("COPY (" + select + ") TO " + SqlString(target) + " (FORMAT parquet, COMPRESSION " + compression +
               ", USE_TMP_FILE false)");
  }

 private:
  // InvalidArgument when an added column's name is one of `schema`'s.
  Status CheckNames(const std::vector<std::vector<std::string>>& schema) const {
    if (!what_.annotate) return Status::Ok();
    for (const char* field : kMarkFields) {
      const std::string name = what_.prefix + field;
      for (const std::vector<std::string>& column : schema) {
        if (!column.empty() && SameName(column[0], name)) {
          return Status::InvalidArgument(ShellQuoted(what_.path) + ": has a column \"" + column[0] +
                                         "\" already; give --annotate-prefix to name the added columns");
        }
      }
    }
    return Status::Ok();
  }
  std::string Source() const { return "read_parquet(" + SqlString(fd_path_) + ")"; }
  std::string Named(const std::string& reason) const {
    std::string r = reason.substr(0, reason.find("; LINE 1:"));
    for (size_t at = r.find(fd_path_); at != std::string::npos; at = r.find(fd_path_, at + what_.path.size()))
      r.replace(at, fd_path_.size(), what_.path);
    return ShellQuoted(what_.path) + ": not written as Parquet: " + r;
  }
  Status Run(const std::string& sql) {
    Status s = db_.Execute(sql);
    return s.ok() ? s : Status::Corrupt(Named(s.message()));
  }
  Result<std::vector<std::vector<std::string>>> Query(const std::string& sql) {
    Result<std::vector<std::vector<std::string>>> r = db_.Strings(sql);
    if (!r.ok()) return Status::Corrupt(Named(r.status().message()));
    return r;
  }

  DuckDbSession& db_;
  const ParquetRewrite& what_;
  const std::string fd_path_;
};

#endif

}  // namespace

Status WriteParquet(const ParquetRewrite& what, KeptPlace place, unsigned mode,
                    const std::function<Status()>& before_commit) {
  Result<std::unique_ptr<DuckDbSession>> session = DuckDbSession::Open();
  if (!session.ok()) return Status::NotFound(ShellQuoted(what.path) + ": " + session.status().message());
#if NEARDUP_HAVE_DUCKDB
  Result<int> fd = OpenParquetFile(what.path, what.expected);
  if (!fd.ok()) return fd.status();
  Status s = Status::Ok();
  {
    TempName temp(place, mode);
    s = temp.status();
    if (s.ok()) s = Rewriter(**session, what, *fd).Write(temp.ProcPath());
    if (s.ok()) s = before_commit();
    if (s.ok()) s = temp.Commit();
  }
  ::close(*fd);
  return s;
#else
  (void)place;
  (void)mode;
  (void)before_commit;
  return Status::Internal("no DuckDB");
#endif
}

}  // namespace neardup
