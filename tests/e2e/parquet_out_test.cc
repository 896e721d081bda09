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

// The expected marks of row i of Texts(): rows 7k (k < 30) keep clusters
// with 7k + 5 (an exact copy) and 7k + 3 (a near copy, J about 0.9).
struct Mark {
  bool clustered = false;
  std::string duplicate_of;  // "" when null
  bool kept = true;
};
Mark Expected(size_t i) {
  if (i / 7 >= 30 || (i % 7 != 0 && i % 7 != 3 && i % 7 != 5)) return {};
  if (i % 7 == 0) return {.clustered = true, .duplicate_of = "", .kept = true};
  return {.clustered = true, .duplicate_of = "doc-" + std::to_string(i - i % 7), .kept = false};
}

TEST_F(ParquetOutTest, AnnotateMarksEveryLineAndRowWithItsClusterInEveryMode) {
  const std::string input = ReadFile(dir_ / "docs.jsonl");
  const std::vector<std::string> in_lines = testing::Lines(input);
  for (const std::string mode : {"pairs", "clusters"}) {
    SCOPED_TRACE(mode);
    const RunResult r = Scan(dir_, {"--input", "jsonl", "--mode", mode, "--annotate-dir", "ann_" + mode, "docs.jsonl"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("annotated: 1 file, 3000 documents written"), std::string::npos) << r.err;
    const std::vector<std::string> lines = testing::Lines(ReadFile(dir_ / ("ann_" + mode + "/docs.jsonl")));
    ASSERT_EQ(lines.size(), in_lines.size());
    std::vector<int64_t> cluster_of(lines.size(), -1);
    for (size_t i = 0; i < lines.size(); ++i) {
      // The input's bytes, the fields appended before the closing brace.
      const std::string& in = in_lines[i];
      ASSERT_EQ(lines[i].substr(0, in.size() - 1), in.substr(0, in.size() - 1)) << i;
      EXPECT_EQ(lines[i].back(), '}');
      const nlohmann::json j = nlohmann::json::parse(lines[i]);
      const Mark want = Expected(i);
      EXPECT_EQ(j["cluster"].is_null(), !want.clustered) << lines[i];
      if (want.clustered) cluster_of[i] = j["cluster"].get<int64_t>();
      EXPECT_EQ(j["duplicate_of"].is_null(), want.duplicate_of.empty()) << lines[i];
      if (!want.duplicate_of.empty()) {
        EXPECT_EQ(j["duplicate_of"], want.duplicate_of) << lines[i];
      }
      EXPECT_EQ(j["kept"], want.kept) << lines[i];
      if (i % 7 == 5 && i / 7 < 30) {
        EXPECT_EQ(j["score"], 1.0) << lines[i];
      }
      if (i % 7 == 3 && i / 7 < 30) {
        EXPECT_TRUE(j["score"] > 0.8 && j["score"] < 1.0) << lines[i];
      }
      if (want.duplicate_of.empty()) {
        EXPECT_TRUE(j["score"].is_null()) << lines[i];
      }
    }
    for (size_t k = 0; k < 30; ++k) {
      EXPECT_EQ(cluster_of[7 * k], cluster_of[7 * k + 3]);
      EXPECT_EQ(cluster_of[7 * k], cluster_of[7 * k + 5]);
      if (k > 0) {
        EXPECT_NE(cluster_of[7 * k], cluster_of[7 * k - 7]);
      }
    }
  }
  // Parquet: the input's schema plus the four columns, every row in order,
  // the same marks as the JSONL lines'.
  Copy("SELECT * FROM t", dir_ / "docs.parquet", "zstd");
  const RunResult r = Scan(dir_, {"--annotate-dir", "ann_parquet", "docs.parquet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string out = dir_ / "ann_parquet/docs.parquet";
  Table schema = Schema(dir_ / "docs.parquet");
  for (const auto& column :
       Table{{"cluster", "UBIGINT"}, {"duplicate_of", "VARCHAR"}, {"score", "DOUBLE"}, {"kept", "BOOLEAN"}})
    schema.push_back(column);
  EXPECT_EQ(Schema(out), schema);
  EXPECT_EQ(Codecs(out), Codecs(dir_ / "docs.parquet"));
  const Table rows = Query(
      "SELECT id, n::VARCHAR, coalesce(cluster::VARCHAR, 'null'), coalesce(duplicate_of, 'null'), "
      "coalesce(score::VARCHAR, 'null'), kept::VARCHAR FROM read_parquet(" +
      SqlString(out) + ")");
  const std::vector<std::string> annotated = testing::Lines(ReadFile(dir_ / "ann_clusters/docs.jsonl"));
  ASSERT_EQ(rows.size(), annotated.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const nlohmann::json j = nlohmann::json::parse(annotated[i]);
    ASSERT_EQ(rows[i][0], j["id"]) << i;
    EXPECT_EQ(rows[i][1], std::to_string(i));
    EXPECT_EQ(rows[i][2], j["cluster"].is_null() ? "null" : std::to_string(j["cluster"].get<int64_t>())) << i;
    EXPECT_EQ(rows[i][3], j["duplicate_of"].is_null() ? "null" : j["duplicate_of"].get<std::string>()) << i;
    if (j["score"].is_null()) {
      EXPECT_EQ(rows[i][4], "null") << i;
    } else {
      EXPECT_NEAR(std::stod(rows[i][4]), j["score"].get<double>(), 1e-9) << i;
    }
    EXPECT_EQ(rows[i][5], j["kept"].get<bool>() ? "true" : "false") << i;
  }
}

TEST_F(ParquetOutTest, AnAddedFieldTheInputHasIsAnErrorUnlessAPrefixIsGiven) {
  Copy("SELECT id, text, n AS kept FROM t", dir_ / "docs.parquet", "snappy");
  const RunResult parquet = Scan(dir_, {"--annotate-dir", "p", "docs.parquet"});
  EXPECT_EQ(parquet.exit_code, 2) << parquet.err;
  EXPECT_NE(parquet.err.find("docs.parquet: has a column \"kept\" already; give --annotate-prefix"), std::string::npos)
      << parquet.err;
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "p"));  // nothing half written
  // With a prefix, the fields are named by it.
  const RunResult prefixed = Scan(dir_, {"--annotate-dir", "pp", "--annotate-prefix", "nd_", "docs.parquet"});
  ASSERT_EQ(prefixed.exit_code, 0) << prefixed.err;
  const Table schema = Schema(dir_ / "pp/docs.parquet");
  ASSERT_EQ(schema.size(), 7u);
  EXPECT_EQ(schema[2], (std::vector<std::string>{"kept", "INTEGER"}));
  EXPECT_EQ(schema[3][0], "nd_cluster");
  EXPECT_EQ(schema[6][0], "nd_kept");
  // Text input has no fields to add to.
  const RunResult text = Scan(dir_, {"--annotate-dir", "x", "docs.jsonl"});
  EXPECT_EQ(text.exit_code, 2);
  EXPECT_NE(text.err.find("--annotate-dir adds fields to JSONL lines or Parquet rows"), std::string::npos) << text.err;
}

TEST_F(ParquetOutTest, KeptFilesThatCannotBeWrittenAreOneLineEachAndTheRunGoesOn) {
  std::filesystem::create_directories(dir_ / "a");
  std::filesystem::create_directories(dir_ / "b");
  Copy("SELECT * FROM t", dir_ / "a/docs.parquet", "snappy");
  Copy("SELECT * FROM t", dir_ / "b/docs.parquet", "zstd");
  // Both go to kept/docs.parquet: the second is refused, the first written.
  const RunResult r = Scan(dir_, {"--input", "parquet", "--kept-dir", "kept", "a/docs.parquet", "b/docs.parquet"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("neardup: b/docs.parquet: another input goes to "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 file not written"), std::string::npos) << r.err;
  EXPECT_EQ(Query("SELECT count(*)::VARCHAR FROM read_parquet(" + SqlString(dir_ / "kept/docs.parquet") + ")"),
            (Table{{"2940"}}));
  EXPECT_EQ(Codecs(dir_ / "kept/docs.parquet"), (Table{{"SNAPPY"}}));
  for (const auto& e : std::filesystem::directory_iterator(dir_ / "kept")) {
    EXPECT_EQ(e.path().filename(), "docs.parquet");  // no temporary file left
  }
}

// JSONL annotation needs no DuckDB: every line's bytes, line ends and lines
// that are not documents included, the fields before the closing brace.
TEST(AnnotateJsonlTest, LinesKeepTheirBytesAndAClashIsAnErrorUnlessPrefixed) {
  TempDir dir;
  const std::string words = "alpha beta gamma delta epsilon zeta eta theta iota kappa";
  WriteFile(dir / "a.jsonl", "{\"id\":\"x\",\"text\":\"" + words + "\"}\r\n{\"id\":\"y\", \"text\":\"" + words +
                                 "\" }\nnot json\n\n{}\n{\"id\":\"z\",\"meta\":{\"kept\":1},\"text\":\"one two "
                                 "three four five six seven eight nine ten\"}");
  const RunResult r = Scan(dir, {"--input", "jsonl", "--annotate-dir", "ann", "a.jsonl"});
  EXPECT_EQ(r.exit_code, 2) << r.err;  // the malformed line
  EXPECT_EQ(ReadFile(dir / "ann/a.jsonl"),
            "{\"id\":\"x\",\"text\":\"" + words +
                "\",\"cluster\":0,\"duplicate_of\":null,\"score\":null,\"kept\":true}\r\n{\"id\":\"y\", \"text\":\"" +
                words +
                "\" ,\"cluster\":0,\"duplicate_of\":\"x\",\"score\":1,\"kept\":false}\nnot json\n\n{}\n"
                "{\"id\":\"z\",\"meta\":{\"kept\":1},\"text\":\"one two three four five six seven eight nine "
                "ten\",\"cluster\":null,\"duplicate_of\":null,\"score\":null,\"kept\":true}");
  struct stat st {};
  ASSERT_EQ(::stat((dir / "ann").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  WriteFile(dir / "in/clash.jsonl",
            "{\"id\":\"a\",\"text\":\"one two three\"}\n{\"id\":\"b\",\"text\":\"four five six\",\"cluster\":7}\n");
  WriteFile(dir / "in/fine.jsonl", "{\"id\":\"c\",\"text\":\"seven eight nine\"}\n");
  const RunResult clash = Scan(dir, {"--input", "jsonl", "--annotate-dir", "j", "in"});
  EXPECT_EQ(clash.exit_code, 2) << clash.err;
  EXPECT_NE(clash.err.find("in/clash.jsonl:2: has a field \"cluster\" already; give --annotate-prefix"),
            std::string::npos)
      << clash.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "j/clash.jsonl"));  // nothing half written
  EXPECT_TRUE(std::filesystem::exists(dir / "j/fine.jsonl"));    // the run went on
  const RunResult prefixed =
      Scan(dir, {"--input", "jsonl", "--annotate-dir", "jp", "--annotate-prefix", "nd_", "in/clash.jsonl"});
  ASSERT_EQ(prefixed.exit_code, 1) << prefixed.err;
  EXPECT_EQ(ReadFile(dir / "jp/clash.jsonl"),
            "{\"id\":\"a\",\"text\":\"one two three\",\"nd_cluster\":null,\"nd_duplicate_of\":null,\"nd_score\":null,"
            "\"nd_kept\":true}\n"
            "{\"id\":\"b\",\"text\":\"four five six\",\"cluster\":7,\"nd_cluster\":null,\"nd_duplicate_of\":null,"
            "\"nd_score\":null,\"nd_kept\":true}\n");
}

// With --index the annotated corpus is the one a scan without it writes: on
// the run that signs, on the run that reuses every document, and with
// --new, which cuts down what is reported, never what is annotated.
TEST(AnnotateJsonlTest, TheIndexAnnotatesAsAScanWithoutIt) {
  TempDir dir;
  WriteFile(dir / "a.jsonl", JsonlOf(Texts()));
  const RunResult plain = Scan(dir, {"--input", "jsonl", "--annotate-dir", "plain", "a.jsonl"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const std::string expected = ReadFile(dir / "plain/a.jsonl");
  ASSERT_NE(expected.find("\"kept\":false"), std::string::npos);  // the copies are marked
  const std::vector<Args> runs = {{}, {}, {"--new", "-o", "new.jsonl"}, {"--new", "-o", "new2.jsonl"}};
  for (size_t r = 0; r < runs.size(); ++r) {
    Args args = {"--input", "jsonl", "--index", "ix.db", "--annotate-dir", "ix" + std::to_string(r), "a.jsonl"};
    args.insert(args.end(), runs[r].begin(), runs[r].end());
    const RunResult run = Scan(dir, args);
    ASSERT_LE(run.exit_code, 1) << r << ": " << run.err;
    EXPECT_EQ(ReadFile(dir / ("ix" + std::to_string(r) + "/a.jsonl")), expected) << r;
  }
  EXPECT_NE(ReadFile(dir / "new.jsonl"), "");   // the first --new delivers every pair
  EXPECT_EQ(ReadFile(dir / "new2.jsonl"), "");  // the next, none: all the same, annotated whole
}

}  // namespace
}  // namespace neardup
