// A Parquet file written again below an output folder (--kept-dir,
// --annotate-dir): the input's rows in their order, with every column of the
// input's schema, either without the rows left out (kept) or all of them with
// the added columns of their marks (annotate), compressed with the input's
// codec (that of its first column chunk: parquet_metadata(); snappy, DuckDB's
// default, for a file without row groups).
//
// It is written through DuckDB (walk/duckdb_library.h, loaded here only):
// the input read through /proc/self/fd/N of a descriptor checked against the
// walk's device and inode (parquet_rows.h), and joined by position (POSITIONAL
// JOIN) to a table of one row a row, which says whether the row is kept or
// what its marks are: no join that could reorder the rows, and no sort of
// the file's rows (POSITIONAL JOIN pairs row i with row i by definition, and
// COPY keeps the order it is given: DuckDB's preserve_insertion_order, on by
// default). DuckDB spills nothing to disk (temp_directory ''): the one table
// it builds holds a few bytes a row. DuckDB writes a temporary file that neardup created first
// (O_EXCL, no link followed) in the place's folder, named
// ".NAME.neardup-XXXXXX" and reached through /proc/self/fd of the folder's
// descriptor, so that nothing is written outside it; `before_commit` is then
// asked, and the file renamed into place (a regular file there is replaced at
// once). On any error the temporary file is removed: nothing is left half
// written.
//
// Thread safety: one DuckDB session a call; calls may run at once.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "neardup/status.h"
#include "walk/file_system.h"
#include "walk/kept_folder.h"

namespace neardup {

// The added values of one row (annotate). A row not listed is a document
// alone: its cluster, duplicate_of and score NULL, kept true.
struct RowMark {
  uint64_t row = 0;          // from 1
  uint64_t cluster = 0;      // from 1
  std::string duplicate_of;  // the kept document's id; "" (NULL) when this is it
  double score = 0;          // its exact Jaccard with duplicate_of
  bool scored = false;       // false: score is NULL
  bool kept = true;
};

// The names of the added columns, in this order.
inline constexpr const char* kMarkFields[] = {"cluster", "duplicate_of", "score", "kept"};

struct ParquetRewrite {
  std::string path;  // the input file (named in errors)
  FileIdentity expected;
  // kept: the rows (from 1) left out, ascending.
  std::vector<uint64_t> dropped;
  // annotate (then `dropped` is not used): the marks, by row ascending, and
  // the prefix of the added columns' names.
  bool annotate = false;
  std::vector<RowMark> marks;
  std::string prefix;
};

// Writes `what` at `place` with the permission bits `mode & 0777` (less the
// umask). Errors, one line naming the input: the library's absence
// (NotFound, how to provide it), a file DuckDB cannot read or write (Corrupt,
// its reason), an added column whose name the input has already
// (InvalidArgument, naming it and --annotate-prefix), IoError for the
// temporary file or the rename, or what `before_commit` returns.
[[nodiscard]] Status WriteParquet(const ParquetRewrite& what, KeptPlace place, unsigned mode,
                                  const std::function<Status()>& before_commit);

}  // namespace neardup
