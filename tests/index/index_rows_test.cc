#include "index/index_rows.h"

#include <gtest/gtest.h>

#include <string>

namespace neardup {
namespace {

IndexedFile Jsonl() {
  IndexedFile f;
  f.id = 3;
  f.path = "/c/a.jsonl";
  f.jsonl = true;
  f.size = 1000;
  f.lines = 10;
  f.documents = 4;
  return f;
}

const RowLimits kLimits{.num_perm = 4, .max_documents = 100};

TEST(IndexRowsTest, SoundRowsHaveNoProblem) {
  EXPECT_EQ(FileRowProblem(Jsonl(), kLimits), "");
  IndexedFile text;
  text.id = 1;
  text.path = "/c/a.txt";
  text.documents = 1;
  EXPECT_EQ(FileRowProblem(text, kLimits), "");
  const DocumentRow d{.key = (int64_t{3} << 32) | 11, .signature_bytes = 16};  // line 11: lines + 1
  EXPECT_EQ(DocumentRowProblem(d, Jsonl(), 0, kLimits), "");
  EXPECT_EQ(DocumentCountProblem(Jsonl(), 4), "");
  EXPECT_EQ(ProblemRowProblem(Jsonl(), 11, true, true), "");
}

TEST(IndexRowsTest, EachValueOutOfRangeIsNamedWithItsRow) {
  IndexedFile f = Jsonl();
  f.documents = ~uint64_t{0};  // -1 as stored
  EXPECT_EQ(FileRowProblem(f, kLimits), "files row 3 (/c/a.jsonl): documents is -1, not 0 or more");
  f = Jsonl();
  f.documents = 101;
  EXPECT_EQ(FileRowProblem(f, kLimits),
            "files row 3 (/c/a.jsonl): documents is 101, not 0 to 100 (what the index's size can hold)");
  f = Jsonl();
  f.documents = 12;
  EXPECT_EQ(FileRowProblem(f, kLimits), "files row 3 (/c/a.jsonl): documents is 12, not 0 to its lines + 1, 11");
  f.path = "/c/a.jsonl.gz";  // a compressed file keeps no line count
  EXPECT_EQ(FileRowProblem(f, kLimits), "");
  f = Jsonl();
  f.id = INT64_MAX;
  EXPECT_NE(FileRowProblem(f, kLimits).find(": id is 9223372036854775807, not 1 to 2147483647"), std::string::npos);
  f = Jsonl();
  f.jsonl = false;
  EXPECT_EQ(FileRowProblem(f, kLimits), "files row 3 (/c/a.jsonl): documents is 4, not 1 (a text file)");
  EXPECT_EQ(FileRowProblem(Jsonl(), kLimits, "kind"), "files row 3 (/c/a.jsonl): kind is not an integer");

  const int64_t key = (int64_t{3} << 32) | 2;
  EXPECT_EQ(DocumentRowProblem({.key = key, .kind = 99, .signature_bytes = 16}, Jsonl(), 0, kLimits),
            "documents row 12884901890 (/c/a.jsonl:2): kind is 99, not 0 to 4");
  EXPECT_EQ(DocumentRowProblem({.key = key, .signature_bytes = 12}, Jsonl(), 0, kLimits),
            "documents row 12884901890 (/c/a.jsonl:2): signature is 12 bytes, not 4 values of 4 bytes");
  EXPECT_EQ(DocumentRowProblem({.key = key, .signature_bytes = 16}, Jsonl(), 4, kLimits),
            "documents row 12884901890 (/c/a.jsonl:2): more documents than its files row 3 (/c/a.jsonl) counts, 4");
  EXPECT_EQ(DocumentRowProblem({.key = key + 10, .signature_bytes = 16}, Jsonl(), 0, kLimits),
            "documents row 12884901900 (/c/a.jsonl:12): line is 12, not 1 to 11");
  EXPECT_EQ(DocumentRowProblem({.key = key, .content_bytes = 15, .signature_bytes = 16}, Jsonl(), 0, kLimits),
            "documents row 12884901890 (/c/a.jsonl:2): content is not a 16-byte BLOB");
  EXPECT_EQ(DocumentCountProblem(Jsonl(), 3),
            "files row 3 (/c/a.jsonl): documents is 4, but it has 3 rows in documents");
  EXPECT_EQ(ProblemRowProblem(Jsonl(), 0, true, true),
            "problems row (3, 0) of files row 3 (/c/a.jsonl): line is 0, not 1 to 11");
}

TEST(IndexRowsTest, TheErrorSaysHowToRecover) {
  const Status s = CorruptRow("ix.db", "files row 1 (/a): documents is -1, not 0 or more");
  EXPECT_EQ(s.code(), Status::Code::kCorrupt);
  EXPECT_EQ(s.message(),
            "ix.db: corrupt index: files row 1 (/a): documents is -1, not 0 or more; `neardup index check ix.db` "
            "lists every problem; remove ix.db (the next run signs every file again) or give another --index FILE");
  EXPECT_EQ(MaxDocuments(1 << 20, 128), 2048u);
}

}  // namespace
}  // namespace neardup
