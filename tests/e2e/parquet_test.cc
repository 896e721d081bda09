// End to end, Parquet input (#45): files written by DuckDB itself (through
// the library neardup loads) give the documents and pairs of the same rows
// given as JSONL, whatever the codec and the row groups; NULL texts are
// empty documents; a missing or nested text column and a damaged file are
// one line each, the run goes on and exits 2; without the library, one line
// says how to provide it. The tests that need DuckDB are skipped, with the
// reason, when it is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "distributed/shards.h"
#include "distributed/work_folder.h"
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

struct Row {
  std::string id;
  std::string text;
  bool null_text = false;
};

// 5000 rows of 60 random words; rows 7k + 3 (k < 40) copy row 7k with its
// last word changed; every 50th row from 300 has a NULL text. Some
// texts carry quotes, backslashes, tabs and non-ASCII letters.
std::vector<Row> Rows() {
  std::vector<Row> rows(5000);
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].id = "doc-" + std::to_string(i);
    const bool copy = i % 7 == 3 && i / 7 < 40;
    const size_t source = copy ? i - 3 : i;
    std::vector<std::string> words = testing::RandomWords(60, 1000 + source);
    if (copy) words[59] = "changed";
    if (source % 11 == 0) words[5] = "say \"h\\i\"\tcafé ünïcode";
    rows[i].text = testing::Join(words);
    rows[i].null_text = i >= 300 && i % 50 == 0;
  }
  return rows;
}

std::string JsonlOf(const std::vector<Row>& rows, bool ids) {
  std::string out;
  for (const Row& r : rows) {
    nlohmann::json j;
    if (ids) j["id"] = r.id;
    j["text"] = r.null_text ? "" : r.text;
    out += j.dump() + "\n";
  }
  return out;
}

// The session, or null when DuckDB cannot be loaded (the reason in *why).
std::unique_ptr<DuckDbSession> Session(std::string* why) {
  Result<std::unique_ptr<DuckDbSession>> s = DuckDbSession::Open();
  if (!s.ok()) {
    *why = s.status().message();
    return nullptr;
  }
  return std::move(*s);
}

// Creates table t(id, text, n, meta) holding `rows`.
void CreateTable(DuckDbSession& db, const std::vector<Row>& rows) {
  ASSERT_TRUE(db.Execute("CREATE TABLE t(id VARCHAR, text VARCHAR, n INTEGER, meta STRUCT(a INTEGER, tags "
                         "VARCHAR[]))")
                  .ok());
  for (size_t from = 0; from < rows.size(); from += 500) {
    std::string sql = "INSERT INTO t VALUES ";
    for (size_t i = from; i < from + 500 && i < rows.size(); ++i) {
      const std::string n = std::to_string(i);
      sql += (i == from ? "(" : ", (") + SqlString(rows[i].id) + ", " +
             (rows[i].null_text ? "NULL" : SqlString(rows[i].text)) + ", " + n + ", {'a': " + n + ", 'tags': ['x']})";
    }
    const Status s = db.Execute(sql);
    ASSERT_TRUE(s.ok()) << s.message();
  }
}

void Copy(DuckDbSession& db, const std::string& select, const std::string& path, const std::string& codec) {
  const Status s = db.Execute("COPY (" + select + ") TO " + SqlString(path) + " (FORMAT parquet, COMPRESSION " + codec +
                              ", ROW_GROUP_SIZE 2048)");
  ASSERT_TRUE(s.ok()) << s.message();
}

RunResult Scan(const TempDir& dir, const Args& args) {
  Args all = {"scan", "-f", "jsonl"};
  all.insert(all.end(), args.begin(), args.end());
  return RunNeardup(all, dir.path(), testing::RunOptions().In(dir.path()));
}

// `err` without the time the run took (the summary line's end).
std::string Untimed(const std::string& err) { return err.substr(0, err.rfind("; ")); }

std::string Replaced(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

class ParquetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    db_ = Session(&why);
    if (db_ == nullptr) GTEST_SKIP() << "DuckDB not available: " << why;
    rows_ = Rows();
    CreateTable(*db_, rows_);
  }
  TempDir dir_;
  std::unique_ptr<DuckDbSession> db_;
  std::vector<Row> rows_;
};

TEST_F(ParquetTest, RowsGiveTheDocumentsAndPairsOfTheSameJsonlWhateverTheCodec) {
  WriteFile(dir_ / "docs.jsonl", JsonlOf(rows_, true));
  const RunResult jsonl = Scan(dir_, {"--input", "jsonl", "docs.jsonl"});
  ASSERT_EQ(jsonl.exit_code, 0) << jsonl.err;
  EXPECT_EQ(testing::Lines(jsonl.out).size(), 40u) << jsonl.out;  // the planted pairs
  for (const std::string codec : {"zstd", "snappy", "gzip", "uncompressed"}) {
    SCOPED_TRACE(codec);
    Copy(*db_, "SELECT * FROM t", dir_ / "docs.parquet", codec);
    Result<std::vector<std::vector<std::string>>> groups = db_->Strings(
        "SELECT count(DISTINCT row_group_id)::VARCHAR FROM parquet_metadata(" + SqlString(dir_ / "docs.parquet") + ")");
    ASSERT_TRUE(groups.ok()) << groups.status().message();
    EXPECT_EQ((*groups)[0][0], "3");
    // --input parquet, and without --input for a *.parquet file.
    for (const Args& input : {Args{"--input", "parquet"}, Args{}}) {
      Args args = input;
      args.push_back("docs.parquet");
      const RunResult parquet = Scan(dir_, args);
      ASSERT_EQ(parquet.exit_code, 0) << parquet.err;
      EXPECT_EQ(parquet.out, jsonl.out);
      EXPECT_EQ(Untimed(Replaced(parquet.err, "docs.parquet", "docs.jsonl")), Untimed(jsonl.err));
      EXPECT_NE(parquet.err.find("4906 documents (2.2 MB), 94 empty"), std::string::npos) << parquet.err;
    }
  }
}

TEST_F(ParquetTest, RowsWithoutIdsAreNamedFileRowAsLinesAreFileLine) {
  WriteFile(dir_ / "docs.jsonl", JsonlOf(rows_, false));
  Copy(*db_, "SELECT text, n FROM t", dir_ / "docs.parquet", "zstd");
  for (const std::string verify : {"exact", "signature"}) {
    const RunResult jsonl = Scan(dir_, {"--input", "jsonl", "--verify", verify, "docs.jsonl"});
    const RunResult parquet = Scan(dir_, {"--verify", verify, "docs.parquet"});
    ASSERT_EQ(parquet.exit_code, 0) << parquet.err;
    EXPECT_NE(parquet.out.find("\"docs.parquet:4\""), std::string::npos) << parquet.out;  // row 4 copies row 1
    EXPECT_EQ(Replaced(parquet.out, "docs.parquet", "docs.jsonl"), jsonl.out);
  }
  // explain reads the rows again by their names.
  const RunResult explain = RunNeardup({"explain", "docs.parquet", "docs.parquet:1", "docs.parquet:4"}, dir_.path(),
                                       testing::RunOptions().In(dir_.path()));
  EXPECT_EQ(explain.exit_code, 0) << explain.err;
  const RunResult explain_jsonl =
      RunNeardup({"explain", "--input", "jsonl", "docs.jsonl", "docs.jsonl:1", "docs.jsonl:4"}, dir_.path(),
                 testing::RunOptions().In(dir_.path()));
  EXPECT_EQ(Replaced(explain.out, "docs.parquet", "docs.jsonl"), explain_jsonl.out);
}

TEST_F(ParquetTest, AMissingOrNestedColumnOrADamagedFileIsOneLineAndTheRunGoesOn) {
  std::filesystem::create_directories(dir_ / "in");
  Copy(*db_, "SELECT * FROM t", dir_ / "in/good.parquet", "snappy");
  Copy(*db_, "SELECT id, meta AS text FROM t", dir_ / "in/nested.parquet", "snappy");
  Copy(*db_, "SELECT id, text AS body FROM t", dir_ / "in/missing.parquet", "snappy");
  const std::string whole = ReadFile(dir_ / "in/good.parquet");
  WriteFile(dir_ / "in/truncated.parquet", whole.substr(0, whole.size() / 2));
  // Its footer whole, its pages damaged: read up to the first damaged page.
  std::string damaged = whole;
  for (size_t i = damaged.size() / 3; i < damaged.size() / 3 + 4000; ++i) damaged[i] = 'x';
  WriteFile(dir_ / "in/damaged.parquet", damaged);
  const RunResult r = Scan(dir_, {"--input", "parquet", "in"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(testing::Lines(r.out).size(), 40u) << r.out;  // good.parquet's pairs
  EXPECT_NE(r.err.find("in/nested.parquet: column \"text\" (--text-key) is STRUCT(a INTEGER, tags VARCHAR[]), not a "
                       "string column (VARCHAR)\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("in/missing.parquet: no column \"text\" (--text-key); the columns are: id VARCHAR, body "
                       "VARCHAR\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("in/truncated.parquet: not readable as Parquet: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("in/damaged.parquet: not readable as Parquet: "), std::string::npos) << r.err;
  for (const std::string name : {"nested", "missing", "truncated", "damaged"})
    EXPECT_EQ(testing::Lines(Replaced(r.err, "in/" + name + ".parquet", "\x01")).size(), testing::Lines(r.err).size())
        << name;
  EXPECT_EQ(r.err.find("/proc/self/fd"), std::string::npos) << r.err;
  // --text-key names another string column; an integer --id-key is read as its digits.
  const RunResult body = Scan(dir_, {"--text-key", "body", "--id-key", "id", "in/missing.parquet"});
  EXPECT_EQ(body.exit_code, 0) << body.err;
  EXPECT_EQ(testing::Lines(body.out).size(), 40u) << body.out;
  const RunResult by_n = Scan(dir_, {"--id-key", "n", "in/good.parquet"});
  EXPECT_EQ(by_n.exit_code, 0) << by_n.err;
  EXPECT_NE(by_n.out.find("\"a\":\"0\",\"b\":\"3\""), std::string::npos) << by_n.out;
}

// Without the library, each Parquet file is one line saying how to provide
// it, the rest of the run goes on, and the exit code is 2.
// The stage tasks share one Parquet file by its row groups (byte_shares.h):
// N = 3 sign tasks over a file of 3 row groups sign one each, the rows keep
// their numbers, and what the report gives is scan's, in every mode, with
// the exact re-reads of the default.
TEST_F(ParquetTest, StageTasksShareOneFileByRowGroupsAndGiveScansOutput) {
  Copy(*db_, "SELECT * FROM t", dir_ / "docs.parquet", "zstd");
  Copy(*db_, "SELECT text FROM t", dir_ / "unnamed.parquet", "snappy");
  for (const std::string file : {"docs.parquet", "unnamed.parquet"}) {
    for (const std::string mode : {"pairs", "clusters", "duplicates"}) {
      SCOPED_TRACE(file + " " + mode);
      const RunResult scan = Scan(dir_, {"--mode", mode, file});
      ASSERT_EQ(scan.exit_code, 0) << scan.err;
      const std::string work = dir_ / ("work-" + file + "-" + mode);
      const Args options = {"--input", "parquet", "--mode", mode, "-q"};
      auto task = [&](const std::string& stage, int t, int n, const Args& paths) {
        Args args = {"stage", stage, "--task", std::to_string(t), "--tasks", std::to_string(n)};
        args.insert(args.end(), options.begin(), options.end());
        args.push_back(work);
        args.insert(args.end(), paths.begin(), paths.end());
        const RunResult r = RunNeardup(args, dir_.path(), testing::RunOptions().In(dir_.path()));
        EXPECT_EQ(r.exit_code, 0) << stage << " " << t << ": " << r.err;
      };
      for (int t = 0; t < 3; ++t) task("sign", t, 3, {file});
      uint64_t signed_rows = 0;
      for (uint32_t t = 0; t < 3; ++t) {
        Result<uint64_t> docs = ShardDocCount(WorkFolder(work), t);
        ASSERT_TRUE(docs.ok()) << docs.status().message();
        EXPECT_GT(*docs, 900u) << "shard " << t;  // a row group each: 2048, 2048 and 904 rows
        signed_rows += *docs;
      }
      EXPECT_EQ(signed_rows, rows_.size());
      for (const std::string stage : {"bucket", "verify"}) {
        for (int t = 0; t < 2; ++t) task(stage, t, 2, {});
      }
      Args report = {"stage", "report", "-f", "jsonl"};
      report.insert(report.end(), options.begin(), options.end());
      report.push_back(work);
      const RunResult stages = RunNeardup(report, dir_.path(), testing::RunOptions().In(dir_.path()));
      ASSERT_EQ(stages.exit_code, 0) << stages.err;
      EXPECT_FALSE(stages.out.empty());
      EXPECT_EQ(stages.out, scan.out);
      if (mode == "pairs") {  // metadata is not content: after a touch, the shards are still the file's
        std::filesystem::last_write_time(dir_ / file, std::filesystem::file_time_type::clock::now());
        for (int t = 0; t < 3; ++t) task("sign", t, 3, {file});
      }
    }
  }
  // stage filter writes the kept and annotated files that scan --kept-dir
  // and --annotate-dir write, byte for byte, the file split among three
  // shards written by one task.
  const std::string work = dir_ / "work-filter";
  auto stage = [&](const Args& args) {
    const RunResult r = RunNeardup(args, dir_.path(), testing::RunOptions().In(dir_.path()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
  };
  const RunResult kept =
      Scan(dir_, {"--kept-dir", "kept-scan", "--annotate-dir", "ann-scan", "-o", "pairs.jsonl", "docs.parquet"});
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  for (int t = 0; t < 3; ++t) {
    stage({"stage", "sign", "--input", "parquet", "--task", std::to_string(t), "--tasks", "3", work, "docs.parquet"});
  }
  for (const std::string s : {"bucket", "verify"})
    stage({"stage", s, "--input", "parquet", "--task", "0", "--tasks", "1", work});
  stage({"stage", "report", "--input", "parquet", "-o", "report.jsonl", work});
  for (int t = 0; t < 3; ++t) {
    stage({"stage", "filter", "--input", "parquet", "--task", std::to_string(t), "--tasks", "3", "--kept-dir",
           "kept-stage", "--annotate-dir", "ann-stage", work});
  }
  const std::string scan_kept = ReadFile(dir_ / "kept-scan/docs.parquet");
  EXPECT_FALSE(scan_kept.empty());
  EXPECT_EQ(ReadFile(dir_ / "kept-stage/docs.parquet"), scan_kept);
  // And the annotated file, every row marked from the three shards' marks.
  const std::string scan_annotated = ReadFile(dir_ / "ann-scan/docs.parquet");
  EXPECT_FALSE(scan_annotated.empty());
  EXPECT_EQ(ReadFile(dir_ / "ann-stage/docs.parquet"), scan_annotated);
}

// The index keeps Parquet files as it keeps JSONL ones: a re-run reuses every
// row, a touch alone re-signs nothing (the bytes, hashed before DuckDB reads
// them, prove the file), a rewritten file is signed again and --new reports
// only what involves its new rows.
TEST_F(ParquetTest, TheIndexReusesUnchangedFilesAndSignsRewrittenOnes) {
  const std::string file = dir_ / "docs.parquet";
  Copy(*db_, "SELECT * FROM t", file, "zstd");
  testing::MtimesAhead(dir_.path(), 3600);  // every run through the index, none given again
  const RunResult scan = Scan(dir_, {"docs.parquet"});
  ASSERT_EQ(scan.exit_code, 0) << scan.err;
  auto indexed = [&](const Args& more) {
    Args args = {"--index", "ix.db", "docs.parquet"};
    args.insert(args.end(), more.begin(), more.end());
    return Scan(dir_, args);
  };
  const RunResult first = indexed({});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, scan.out);
  EXPECT_NE(first.err.find(" 0 reused"), std::string::npos) << first.err;
  // A second run and one after a touch: every row reused, the same pairs.
  for (int run = 0; run < 2; ++run) {
    if (run == 1) std::filesystem::last_write_time(file, std::filesystem::file_time_type::clock::now());
    const RunResult again = indexed({});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(again.out, scan.out);
    EXPECT_NE(again.err.find(", 0 signed"), std::string::npos) << run << ": " << again.err;
  }
  const RunResult delivered = indexed({"--new", "-o", "first.jsonl"});
  ASSERT_EQ(delivered.exit_code, 0) << delivered.err;
  // One row more, a copy of row 10 under another id: the file is signed
  // again, so (as for a JSONL file rewritten) every pair of its rows is new,
  // the new row's among them.
  Copy(*db_, "SELECT * FROM t UNION ALL SELECT 'added', text, n, meta FROM t WHERE id = 'doc-10'", file, "zstd");
  const RunResult changed = indexed({"--new", "-o", "new.jsonl"});
  ASSERT_EQ(changed.exit_code, 0) << changed.err;
  EXPECT_NE(changed.err.find(" 0 reused, 5001 signed"), std::string::npos) << changed.err;
  const RunResult rescan = Scan(dir_, {"docs.parquet"});
  EXPECT_EQ(ReadFile(dir_ / "new.jsonl"), rescan.out);
  EXPECT_EQ(testing::Lines(rescan.out).size(), testing::Lines(scan.out).size() + 2);  // with doc-10 and its copy
  EXPECT_NE(rescan.out.find(R"({"a":"added","b":"doc-10")"), std::string::npos) << rescan.out;
}

TEST(ParquetAbsentTest, WithoutTheLibraryOneLineSaysHowToProvideIt) {
  TempDir dir;
  WriteFile(dir / "in/a.parquet", "PAR1 not really PAR1");
  WriteFile(dir / "in/b.parquet", "PAR1 not really either PAR1");
  const RunResult r = testing::RunProcess(
      {"/usr/bin/env", "NEARDUP_DUCKDB_LIB=" + dir / "no/libduckdb.so", testing::NeardupBinary(), "scan", dir / "in"},
      dir.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;  // a folder of a text run: left out, as before
  const RunResult p = testing::RunProcess({"/usr/bin/env", "NEARDUP_DUCKDB_LIB=" + dir / "no/libduckdb.so",
                                           testing::NeardupBinary(), "scan", "--input", "parquet", dir / "in"},
                                          dir.path());
  EXPECT_EQ(p.exit_code, 2) << p.err;
  for (const std::string name : {"a", "b"}) {
    const std::string start = "neardup: " + dir / ("in/" + name + ".parquet") + ": ";
    const size_t at = p.err.find(start);
    ASSERT_NE(at, std::string::npos) << p.err;
    const std::string line = p.err.substr(at, p.err.find('\n', at) - at);
#if NEARDUP_HAVE_DUCKDB
    EXPECT_NE(line.find("set NEARDUP_DUCKDB_LIB to its path, or put it on the library search path"), std::string::npos)
        << line;
    EXPECT_NE(line.find("NEARDUP_DUCKDB_LIB=" + dir / "no/libduckdb.so" + ": "), std::string::npos) << line;
#else
    EXPECT_NE(line.find("scripts/deps.sh"), std::string::npos) << line;
#endif
  }
}

}  // namespace
}  // namespace neardup
