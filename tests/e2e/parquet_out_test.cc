// End to end, Parquet output (#45): --kept-dir over Parquet writes each file
// as Parquet with the input's schema, row order and codec, without the rows
// the JSONL path leaves out; --annotate-dir writes every row (and every JSONL
// line, byte for byte) with its cluster, duplicate_of, score and kept. The
// Parquet files are written and read back by DuckDB itself; the tests that
// need it are skipped, with the reason, when it is absent.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e/run_neardup.h"
#include "test_util.h"
#include "walk/duckdb_library.h"

namespace neardup {
namespace {

using testing::ReadFile;
using testing::RunNeardup;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;
using Args = std::vector<std::string>;
using Table = std::vector<std::vector<std::string>>;

// 3000 rows of 40 random words: rows 7k + 3 (k < 30) copy row 7k with its
// last word changed (a near copy), rows 7k + 5 (k < 30) copy row 7k exactly.
std::vector<std::string> Texts() {
  std::vector<std::string> texts(3000);
  for (size_t i = 0; i < texts.size(); ++i) {
    const bool copy = (i % 7 == 3 || i % 7 == 5) && i / 7 < 30;
    const size_t source = copy ? i - i % 7 : i;
    std::vector<std::string> words = testing::RandomWords(40, 500 + source);
    if (copy && i % 7 == 3) words[39] = "changed";
    if (source % 13 == 0) words[2] = "say \"q\\\"\tcafé";
    texts[i] = testing::Join(words);
  }
  return texts;
}

std::string JsonlOf(const std::vector<std::string>& texts) {
  std::string out;
  for (size_t i = 0; i < texts.size(); ++i) {
    nlohmann::json j;
    j["id"] = "doc-" + std::to_string(i);
    j["text"] = texts[i];
    out += j.dump() + "\n";
  }
  return out;
}

RunResult Scan(const TempDir& dir, const Args& args) {
  Args all = {"scan", "-f", "jsonl"};
  all.insert(all.end(), args.begin(), args.end());
  return RunNeardup(all, dir.path(), testing::RunOptions().In(dir.path()));
}

class ParquetOutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<DuckDbSession>> s = DuckDbSession::Open();
    if (!s.ok()) GTEST_SKIP() << "DuckDB not available: " << s.status().message();
    db_ = std::move(*s);
    texts_ = Texts();
    Exec("CREATE TABLE t(id VARCHAR, text VARCHAR, n INTEGER, meta STRUCT(a INTEGER, tags VARCHAR[]))");
    for (size_t from = 0; from < texts_.size(); from += 500) {
      std::string sql = "INSERT INTO t VALUES ";
      for (size_t i = from; i < from + 500; ++i) {
        const std::string n = std::to_string(i);
        sql += (i == from ? "(" : ", (") + SqlString("doc-" + n) + ", " + SqlString(texts_[i]) + ", " + n +
               ", {'a': " + n + ", 'tags': ['x', " + SqlString(n) + "]})";
      }
      Exec(sql);
    }
    WriteFile(dir_ / "docs.jsonl", JsonlOf(texts_));
  }
  void Exec(const std::string& sql) {
    const Status s = db_->Execute(sql);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  void Copy(const std::string& select, const std::string& path, const std::string& codec) {
    Exec("COPY (" + select + ") TO " + SqlString(path) + " (FORMAT parquet, COMPRESSION " + codec +
         ", ROW_GROUP_SIZE 1024)");
  }
  Table Query(const std::string& sql) {
    Result<Table> r = db_->Strings(sql);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : Table{};
  }
  // `path`'s columns (name, type), its codecs, and its rows as VARCHAR.
  Table Schema(const std::string& path) {
    return Query("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(" + SqlString(path) + "))");
  }
  Table Codecs(const std::string& path) {
    return Query("SELECT DISTINCT compression::VARCHAR FROM parquet_metadata(" + SqlString(path) + ") ORDER BY 1");
  }
  TempDir dir_;
  std::unique_ptr<DuckDbSession> db_;
  std::vector<std::string> texts_;
};

// The ids of the JSONL lines of `jsonl`, in order.
std::vector<std::string> IdsOf(const std::string& jsonl) {
  std::vector<std::string> ids;
  for (const std::string& line : testing::Lines(jsonl)) ids.push_back(nlohmann::json::parse(line)["id"]);
  return ids;
}

TEST_F(ParquetOutTest, KeptParquetHasTheInputsSchemaOrderAndCodecAndTheJsonlPathsRows) {
  const RunResult jsonl = Scan(dir_, {"--input", "jsonl", "--kept-dir", "kept_jsonl", "docs.jsonl"});
  ASSERT_EQ(jsonl.exit_code, 0) << jsonl.err;
  const std::vector<std::string> kept_ids = IdsOf(ReadFile(dir_ / "kept_jsonl/docs.jsonl"));
  ASSERT_EQ(kept_ids.size(), 3000u - 60u);
  for (const std::string codec : {"snappy", "zstd", "uncompressed", "gzip"}) {
    SCOPED_TRACE(codec);
    const std::string in = "in_" + codec;
    std::filesystem::create_directories(dir_ / (in + "/sub"));
    Copy("SELECT * FROM t", dir_ / (in + "/sub/docs.parquet"), codec);
    const RunResult r = Scan(dir_, {"--input", "parquet", "--kept-dir", "kept_" + codec, in});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string kept = dir_ / ("kept_" + codec + "/sub/docs.parquet");
    EXPECT_EQ(Schema(kept), Schema(dir_ / (in + "/sub/docs.parquet")));
    EXPECT_EQ(Codecs(kept), Codecs(dir_ / (in + "/sub/docs.parquet")));
    EXPECT_EQ(Codecs(kept).size(), 1u);
    const Table rows =
        Query("SELECT id, n::VARCHAR, meta.a::VARCHAR, meta.tags[2] FROM read_parquet(" + SqlString(kept) + ")");
    ASSERT_EQ(rows.size(), kept_ids.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      ASSERT_EQ(rows[i][0], kept_ids[i]) << i;
      const std::string n = rows[i][0].substr(4);
      EXPECT_EQ(rows[i][1], n);
      EXPECT_EQ(rows[i][2], n);
      EXPECT_EQ(rows[i][3], n);
    }
    struct stat st {};
    ASSERT_EQ(::stat((dir_ / ("kept_" + codec)).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    for (const auto& e : std::filesystem::directory_iterator(dir_ / ("kept_" + codec + "/sub")))
      EXPECT_EQ(e.path().filename(), "docs.parquet");  // no temporary file left
  }
}

}  // namespace
}  // namespace neardup
