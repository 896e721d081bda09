// The csv, tsv and paths writers (csv_writer.cc, through neardup/writers.h):
// WriteCsv(), WriteTsv(), WriteDuplicates().
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/report.h"
#include "neardup/writers.h"
#include "write/report_fixture.h"

namespace neardup {
namespace {

using testing::Csv;
using testing::kA;
using testing::kBad;
using testing::kComma;
using testing::kNewline;
using testing::kQuote;
using testing::kRef;
using testing::kRef2;
using testing::kTab;
using testing::MakeReport;
using testing::ReportWithNames;
using testing::SplitLines;
using testing::Tsv;

// A strict RFC 4180 reader (records end in "\n" or "\r\n").
std::vector<std::vector<std::string>> ReadCsv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '"') {
      ++i;
      while (true) {
        if (i >= text.size()) ADD_FAILURE() << "unterminated quoted field";
        if (i >= text.size()) return records;
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            field.push_back('"');
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field.push_back(text[i++]);
      }
    } else {
      while (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
        if (text[i] == '"') ADD_FAILURE() << "quote inside an unquoted field";
        field.push_back(text[i++]);
      }
    }
    record.push_back(field);
    field.clear();
    if (i < text.size() && text[i] == ',') {
      ++i;
      continue;
    }
    if (i < text.size() && text[i] == '\r') ++i;
    if (i < text.size() && text[i] != '\n') ADD_FAILURE() << "junk after a field at " << i;
    ++i;
    records.push_back(record);
    record.clear();
  }
  return records;
}

// ------------------------------------------------------------------------- csv

TEST(WriteCsvTest, PairsWithReference) {
  const std::string expected =
      "a,b,estimate,jaccard,a_reference,b_reference\n"
      "docs/a.txt,\"docs/b,c\\d.txt\",0.875,0.8612,false,false\n"
      "\"docs/q\"\"uote\x01.txt\",docs/tab\there.txt,1,1,false,false\n"
      "docs/bad\xFF\xE2\x82.txt,\"docs/new\nline.txt\",0.8,0.8,false,false\n"
      "docs/a.txt,ref/r.txt,0.9,0.91,false,true\n";
  EXPECT_EQ(Csv(MakeReport(Mode::kPairs, true, true)), expected);
}

TEST(WriteCsvTest, PairsWithoutJaccardHaveEmptyColumn) {
  const std::string expected =
      "a,b,estimate,jaccard\n"
      "docs/a.txt,\"docs/b,c\\d.txt\",0.875,\n"
      "\"docs/q\"\"uote\x01.txt\",docs/tab\there.txt,1,\n"
      "docs/bad\xFF\xE2\x82.txt,\"docs/new\nline.txt\",0.8,\n"
      "docs/a.txt,ref/r.txt,0.9,\n";
  EXPECT_EQ(Csv(MakeReport(Mode::kPairs, false, false)), expected);
}

TEST(WriteCsvTest, Clusters) {
  const std::string expected =
      "cluster,path,kept,reference\n"
      "0,docs/a.txt,true,false\n"
      "0,\"docs/b,c\\d.txt\",false,false\n"
      "0,ref/r.txt,false,true\n"
      "1,docs/bad\xFF\xE2\x82.txt,false,false\n"
      "1,\"docs/q\"\"uote\x01.txt\",false,false\n"
      "1,docs/tab\there.txt,true,false\n"
      "2,\"docs/new\nline.txt\",false,false\n"
      "2,ref/s.txt,true,true\n";
  EXPECT_EQ(Csv(MakeReport(Mode::kClusters, false, true)), expected);
}

TEST(WriteCsvTest, Rfc4180ReaderGetsTheNamesBack) {
  const Report report = MakeReport(Mode::kPairs, true, true);
  const auto records = ReadCsv(Csv(report));
  ASSERT_EQ(records.size(), report.pairs.size() + 1);
  EXPECT_EQ(records[0], (std::vector<std::string>{"a", "b", "estimate", "jaccard", "a_reference", "b_reference"}));
  const std::vector<ReportedPair> pairs = report.pairs.ToVector();
  for (size_t i = 0; i < pairs.size(); ++i) {
    ASSERT_EQ(records[i + 1].size(), 6u);
    EXPECT_EQ(records[i + 1][0], report.docs[pairs[i].a].name);
    EXPECT_EQ(records[i + 1][1], report.docs[pairs[i].b].name);
  }
  const Report clusters = MakeReport(Mode::kClusters, false, false);
  const auto rows = ReadCsv(Csv(clusters));
  std::vector<std::string> paths;
  for (size_t i = 1; i < rows.size(); ++i) paths.push_back(rows[i].at(1));
  EXPECT_EQ(paths, (std::vector<std::string>{kA, kComma, kRef, kBad, kQuote, kTab, kNewline, kRef2}));
}

TEST(WriteCsvTest, QuotesCarriageReturnAndLeavesOtherBytes) {
  const Report report = ReportWithNames({"a\rb", "tab\there;semi 'single'\\"});
  EXPECT_EQ(Csv(report), "a,b,estimate,jaccard\n\"a\rb\",tab\there;semi 'single'\\,0.5,\n");
}

TEST(WriteCsvTest, EmptyReportWritesHeaderOnly) { EXPECT_EQ(Csv(Report{}), "a,b,estimate,jaccard\n"); }

// ------------------------------------------------------------------------- tsv

TEST(WriteTsvTest, PairsWithJaccard) {
  const std::string expected =
      "docs/a.txt\tdocs/b,c\\\\d.txt\t0.875\t0.8612\n"
      "docs/q\"uote\x01.txt\tdocs/tab\\there.txt\t1\t1\n"
      "docs/bad\xFF\xE2\x82.txt\tdocs/new\\nline.txt\t0.8\t0.8\n"
      "docs/a.txt\tref/r.txt\t0.9\t0.91\n";
  EXPECT_EQ(Tsv(MakeReport(Mode::kPairs, true, false)), expected);
}

TEST(WriteTsvTest, PairsWithoutJaccardWithReference) {
  const std::string expected =
      "docs/a.txt\tdocs/b,c\\\\d.txt\t0.875\tfalse\tfalse\n"
      "docs/q\"uote\x01.txt\tdocs/tab\\there.txt\t1\tfalse\tfalse\n"
      "docs/bad\xFF\xE2\x82.txt\tdocs/new\\nline.txt\t0.8\tfalse\tfalse\n"
      "docs/a.txt\tref/r.txt\t0.9\tfalse\ttrue\n";
  EXPECT_EQ(Tsv(MakeReport(Mode::kPairs, false, true)), expected);
}

TEST(WriteTsvTest, Clusters) {
  const std::string expected =
      "0\tdocs/a.txt\ttrue\tfalse\n"
      "0\tdocs/b,c\\\\d.txt\tfalse\tfalse\n"
      "0\tref/r.txt\tfalse\tfalse\n"
      "1\tdocs/bad\xFF\xE2\x82.txt\tfalse\tfalse\n"
      "1\tdocs/q\"uote\x01.txt\tfalse\tfalse\n"
      "1\tdocs/tab\\there.txt\ttrue\tfalse\n"
      "2\tdocs/new\\nline.txt\tfalse\tfalse\n"
      "2\tref/s.txt\ttrue\tfalse\n";
  EXPECT_EQ(Tsv(MakeReport(Mode::kClusters, false, false)), expected);
}

TEST(WriteTsvTest, CarriageReturnIsEscaped) {
  const Report report = ReportWithNames({"a\rb", "c\\\t\n"});
  EXPECT_EQ(Tsv(report), "a\\rb\tc\\\\\\t\\n\t0.5\n");
}

// jq's @tsv unescaping: \\ \t \n \r back to the bytes they stand for.
std::string UnescapeTsvField(std::string_view field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] != '\\' || i + 1 == field.size()) {
      out.push_back(field[i]);
      continue;
    }
    switch (field[++i]) {
      case '\\':
        out.push_back('\\');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      default:
        ADD_FAILURE() << "unknown escape \\" << field[i];
    }
  }
  return out;
}

std::vector<std::string> SplitTsvLine(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    fields.push_back(UnescapeTsvField(std::string_view(line).substr(start, tab - start)));
    if (tab == std::string::npos) return fields;
    start = tab + 1;
  }
}

TEST(WriteTsvTest, RandomNamesRoundTripThroughTsvUnescaping) {
  // Names of any bytes, weighted towards the escaped ones and invalid UTF-8:
  // each record stays one line, and unescaping gives the bytes back.
  std::mt19937 rng(99);
  const std::string pool = std::string("\\\t\n\rtn\\a,\"\xFF\xC3\xA9\xE2\x82", 15);
  std::vector<std::string> names;
  for (int i = 0; i < 2000; ++i) {
    std::string name;
    const size_t length = rng() % 10;
    for (size_t k = 0; k < length; ++k) {
      name.push_back(rng() % 4 == 0 ? static_cast<char>(rng() % 256) : pool[rng() % pool.size()]);
    }
    names.push_back(name);
  }
  const Report report = ReportWithNames(names);
  const std::vector<std::string> lines = SplitLines(Tsv(report));
  ASSERT_EQ(lines.size(), names.size() / 2);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::vector<std::string> fields = SplitTsvLine(lines[i]);
    ASSERT_EQ(fields.size(), 3u) << lines[i];
    ASSERT_EQ(fields[0], names[2 * i]);
    ASSERT_EQ(fields[1], names[2 * i + 1]);
  }
}

TEST(WriteTsvTest, InvalidUtf8IsWrittenAsItsBytes) {
  const Report report = ReportWithNames({kBad, "\xC0\xAF"});
  EXPECT_EQ(Tsv(report), kBad + "\t\xC0\xAF\t0.5\n");
  EXPECT_EQ(Csv(report), "a,b,estimate,jaccard\n" + kBad + ",\xC0\xAF,0.5,\n");
}

// ------------------------------------------------------------------ duplicates

TEST(WriteDuplicatesTest, NewlineTerminated) {
  std::ostringstream out;
  WriteDuplicates(MakeReport(Mode::kDuplicates, false, true), out, '\n');
  EXPECT_EQ(out.str(), kComma + "\n" + kBad + "\n" + kNewline + "\n" + kQuote + "\n");
}

TEST(WriteDuplicatesTest, NulTerminatedKeepsBytes) {
  std::ostringstream out;
  WriteDuplicates(MakeReport(Mode::kDuplicates, false, true), out, '\0');
  const std::string nul(1, '\0');
  EXPECT_EQ(out.str(), kComma + nul + kBad + nul + kNewline + nul + kQuote + nul);
}

TEST(WriteDuplicatesTest, ReferenceDocumentsAreNotRemovable) {
  // Without --against, ref/r.txt is an ordinary member and can go.
  std::ostringstream out;
  WriteDuplicates(MakeReport(Mode::kDuplicates, false, false), out, '\n');
  EXPECT_EQ(out.str(), kComma + "\n" + kBad + "\n" + kNewline + "\n" + kQuote + "\n" + kRef + "\n");
}

}  // namespace
}  // namespace neardup
