// A Parquet file read as JSONL: each row becomes one line
// {"TEXT_KEY":"...","ID_KEY":"..."}, in the file's row order, so that every
// reader of JSONL (signing, the re-reads of --exact, explain, review) reads
// Parquet rows as lines, and row N is line N (from 1): FILE:ROW names a row
// without an id as FILE:LINE names a line.
//
// The rows are read through DuckDB (walk/duckdb_library.h), streamed chunk
// by chunk (2048 rows), so memory is bounded by a chunk's rows whatever the
// file's size. The text column must be a string column (VARCHAR); a NULL
// text is an empty document. The id column may be a string or an integer
// column; a NULL id, or no id column, leaves the line without an id. A text
// column that is missing, or of another type (nested, numeric, binary), is
// one error naming the column and its type, for the whole file.
//
// The file is opened by neardup (checked against the walk's device and
// inode, through `fs` first so that test doubles see it) and read by DuckDB
// through /proc/self/fd/N, so that the file read is the one checked, and no
// character of its name is taken as a glob. A stream (a pipe) cannot be
// read: Parquet is read from its footer.
//
// Thread safety: one reader per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "walk/file_system.h"

namespace neardup {

// The columns read: --text-key and --id-key.
struct ParquetColumns {
  std::string text;
  std::string id;
};

// A row group of a Parquet file: where its first page starts, and its rows.
struct ParquetRowGroup {
  uint64_t start = 0;
  uint64_t rows = 0;
};

// The row groups of `path`, in row order (the order rows are numbered in),
// from its footer. Errors as OpenParquetRows()'s, but for the columns'.
[[nodiscard]] Result<std::vector<ParquetRowGroup>> ParquetRowGroups(FileSystem& fs, const std::string& path,
                                                                    const FileIdentity& expected);

// Whether the row groups start at increasing bytes, so that a byte range of
// the file holds whole row groups in row order: then a file can be shared by
// byte ranges cut where row groups start (distributed/byte_shares.h).
bool RowGroupsInFileOrder(const std::vector<ParquetRowGroup>& groups);

// The rows [first, second), numbered from 0, of the row groups that start
// in bytes [begin, end).
// REQUIRES: RowGroupsInFileOrder(groups).
std::pair<uint64_t, uint64_t> RowsStartingIn(const std::vector<ParquetRowGroup>& groups, uint64_t begin, uint64_t end);

// The rows of `path` as JSONL. When `fs` reads a part of the file
// (FileSystem::Range()), only the rows of the row groups that start in it,
// numbered from that part's first row. Errors, each one line naming the path: the
// file's own (OpenExpected), the library's absence (how to provide it), a
// file DuckDB cannot read as Parquet (Corrupt, DuckDB's reason), a missing or
// non-string text column (InvalidArgument). A row group that cannot be read
// is a Read() error (Corrupt) after the rows before it.
[[nodiscard]] Result<std::unique_ptr<ByteReader>> OpenParquetRows(FileSystem& fs, const std::string& path,
                                                                  const FileIdentity& expected,
                                                                  const ParquetColumns& columns);

// A descriptor (read-only, close-on-exec; the caller closes it) of `path`,
// checked to be a regular file with `expected`'s device and inode (when
// known), for DuckDB to read through /proc/self/fd/N. IoError when it cannot
// be opened; Changed when it is another file than the walk saw.
[[nodiscard]] Result<int> OpenParquetFile(const std::string& path, const FileIdentity& expected);

}  // namespace neardup
