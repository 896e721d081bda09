// Parquet rows read as JSONL lines (walk/parquet_rows.h), through the DuckDB
// library loaded at run time (walk/duckdb_library.h); skipped, with the
// reason, when it is absent.
#include "walk/parquet_rows.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "test_util.h"
#include "walk/duckdb_library.h"

namespace neardup {
namespace {

TEST(DuckDbLibraryTest, MessagesAreOneLineAndSqlIsQuoted) {
  EXPECT_EQ(OneLine("Invalid Input Error: bad\n\nLINE 1: x\r\n"), "Invalid Input Error: bad; LINE 1: x");
  EXPECT_EQ(SqlString("it's"), "'it''s'");
  EXPECT_EQ(SqlName("a \"b\""), "\"a \"\"b\"\"\"");
}

// The identity of the file at `path`, as the walk would have seen it.
FileIdentity Identity(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0);
  return {.dev = st.st_dev, .ino = st.st_ino, .stream = false};
}

// All of `in`, read in small pieces (a chunk's lines are cut anywhere).
Result<std::string> ReadAll(ByteReader& in) {
  std::string out;
  char buf[7];
  for (;;) {
    Result<size_t> got = in.Read(buf, sizeof buf);
    if (!got.ok()) return got.status();
    if (*got == 0) return out;
    out.append(buf, *got);
  }
}

TEST(ParquetRowsTest, EachRowIsOneJsonLineInRowOrder) {
  Result<std::unique_ptr<DuckDbSession>> db = DuckDbSession::Open();
  if (!db.ok()) GTEST_SKIP() << "DuckDB not available: " << db.status().message();
  testing::TempDir dir;
  const std::string path = dir / "it's [a]*.parquet";  // neither a quote nor a glob is taken as such
  ASSERT_TRUE((*db)
                  ->Execute("COPY (SELECT * FROM (VALUES (1, 'a \"quoted\" \\ tab\t', 'x'), (2, NULL, NULL), (3, "
                            "'café', 'z')) v(n, body, name) ORDER BY n) TO " +
                            SqlString(path) + " (FORMAT parquet)")
                  .ok());
  Result<std::unique_ptr<ByteReader>> rows =
      OpenParquetRows(FileSystem::Default(), path, Identity(path), {.text = "body", .id = "n"});
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  Result<std::string> all = ReadAll(**rows);
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(*all,
            "{\"body\":\"a \\\"quoted\\\" \\\\ tab\\u0009\",\"n\":\"1\"}\n"
            "{\"body\":\"\",\"n\":\"2\"}\n"
            "{\"body\":\"café\",\"n\":\"3\"}\n");
  // No id column: the lines have none; a NULL id is left out.
  rows = OpenParquetRows(FileSystem::Default(), path, Identity(path), {.text = "body", .id = "id"});
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  all = ReadAll(**rows);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(testing::Lines(*all).at(1), "{\"body\":\"\"}");
  rows = OpenParquetRows(FileSystem::Default(), path, Identity(path), {.text = "name", .id = "name"});
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  all = ReadAll(**rows);
  EXPECT_EQ(testing::Lines(*all).at(1), "{\"name\":\"\"}");
  // A text column of another type names it and its type.
  rows = OpenParquetRows(FileSystem::Default(), path, Identity(path), {.text = "n", .id = "id"});
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().message(), "'" + dir.path() +
                                         "/it'\\''s [a]*.parquet': column \"n\" (--text-key) is INTEGER, not " +
                                         "a string column (VARCHAR)");
}

// A file system that reads a part of one file, as a stage task's share.
class PartFs : public FileSystem {
 public:
  PartFs(std::string path, uint64_t begin, uint64_t end) : path_(std::move(path)), begin_(begin), end_(end) {}
  Result<std::unique_ptr<ByteReader>> Open(const std::string& path) override {
    return FileSystem::Default().Open(path);
  }
  Result<FileStat> Stat(const std::string& path) override { return FileSystem::Default().Stat(path); }
  std::pair<uint64_t, uint64_t> Range(const std::string& path, uint64_t size) override {
    return path == path_ ? std::pair<uint64_t, uint64_t>{begin_, end_} : std::pair<uint64_t, uint64_t>{0, size};
  }

 private:
  std::string path_;
  uint64_t begin_, end_;
};

TEST(ParquetRowsTest, APartOfTheFileReadsTheRowGroupsThatStartInIt) {
  const std::vector<ParquetRowGroup> three = {
      {.start = 4, .rows = 10}, {.start = 500, .rows = 7}, {.start = 900, .rows = 5}};
  EXPECT_TRUE(RowGroupsInFileOrder(three));
  EXPECT_FALSE(RowGroupsInFileOrder({{.start = 500, .rows = 1}, {.start = 4, .rows = 1}}));
  EXPECT_EQ(RowsStartingIn(three, 0, 500), (std::pair<uint64_t, uint64_t>{0, 10}));
  EXPECT_EQ(RowsStartingIn(three, 500, 1000), (std::pair<uint64_t, uint64_t>{10, 22}));
  EXPECT_EQ(RowsStartingIn(three, 501, 900), (std::pair<uint64_t, uint64_t>{17, 17}));  // none starts there

  Result<std::unique_ptr<DuckDbSession>> db = DuckDbSession::Open();
  if (!db.ok()) GTEST_SKIP() << "DuckDB not available: " << db.status().message();
  testing::TempDir dir;
  const std::string path = dir / "rows.parquet";
  ASSERT_TRUE((*db)
                  ->Execute("COPY (SELECT range AS n, 'row ' || range AS body FROM range(5000)) TO " + SqlString(path) +
                            " (FORMAT parquet, ROW_GROUP_SIZE 2048)")
                  .ok());
  Result<std::vector<ParquetRowGroup>> groups = ParquetRowGroups(FileSystem::Default(), path, Identity(path));
  ASSERT_TRUE(groups.ok()) << groups.status().message();
  ASSERT_EQ(groups->size(), 3u);
  EXPECT_TRUE(RowGroupsInFileOrder(*groups));
  EXPECT_EQ((*groups)[0].rows + (*groups)[1].rows + (*groups)[2].rows, 5000u);
  // The bytes from where the second group starts to where the third does:
  // the second group's rows, in order.
  PartFs part(path, (*groups)[1].start, (*groups)[2].start);
  Result<std::unique_ptr<ByteReader>> rows = OpenParquetRows(part, path, Identity(path), {.text = "body", .id = "n"});
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  Result<std::string> all = ReadAll(**rows);
  ASSERT_TRUE(all.ok()) << all.status().message();
  const std::vector<std::string> lines = testing::Lines(*all);
  ASSERT_EQ(lines.size(), (*groups)[1].rows);
  const uint64_t first = (*groups)[0].rows;
  EXPECT_EQ(lines.front(), "{\"body\":\"row " + std::to_string(first) + "\",\"n\":\"" + std::to_string(first) + "\"}");
  EXPECT_EQ(lines.back(), "{\"body\":\"row " + std::to_string(first + lines.size() - 1) + "\",\"n\":\"" +
                              std::to_string(first + lines.size() - 1) + "\"}");
}

TEST(ParquetRowsTest, AStreamIsNotRead) {
  FileIdentity stream;
  stream.stream = true;
  Result<std::unique_ptr<ByteReader>> rows =
      OpenParquetRows(FileSystem::Default(), "/dev/stdin", stream, {.text = "text", .id = "id"});
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().message(), "/dev/stdin: Parquet is read from a file, not a stream: name the file");
}

}  // namespace
}  // namespace neardup
