// End to end, text encodings at the edges: paths that are not valid UTF-8
// (or hold a tab, a newline, a backslash) in every output format, and JSONL
// input with invalid UTF-8 or in Latin-1.
//
// jsonl and json replace each invalid sequence with U+FFFD (valid JSON that
// any parser reads); csv, tsv and the duplicates list keep the bytes, with tsv
// escaping \ TAB LF CR as jq's @tsv does.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "e2e/run_neardup.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::Lines;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

const std::string kFffd = "\xEF\xBF\xBD";

// A file name with an invalid byte, a truncated sequence, a valid "é", a
// tab, a newline and a backslash.
const std::string kOddName = "odd\xFF name\xE2\x82 caf\xC3\xA9\tand\nnew\\line.txt";
// kOddName as jsonl and json give it back once parsed.
const std::string kOddNameReplaced = "odd" + kFffd + " name" + kFffd + " caf\xC3\xA9\tand\nnew\\line.txt";

// docs/a.txt and docs/<kOddName>, identical: one pair, and in duplicates
// mode the odd one is removable (a.txt comes first and is kept).
struct Corpus {
  TempDir dir;
  std::string a;
  std::string odd;
  Corpus() {
    const std::string text = Join(RandomWords(200, 7));
    a = dir / "docs/a.txt";
    odd = dir / ("docs/" + kOddName);
    WriteFile(a, text);
    WriteFile(odd, text);
  }
};

// jq's @tsv unescaping: \\ \t \n \r back to the bytes they stand for.
std::string UnescapeTsv(std::string_view field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] != '\\' || i + 1 == field.size()) {
      out.push_back(field[i]);
      continue;
    }
    const char next = field[++i];
    if (next == '\\') {
      out.push_back('\\');
    } else if (next == 't') {
      out.push_back('\t');
    } else if (next == 'n') {
      out.push_back('\n');
    } else if (next == 'r') {
      out.push_back('\r');
    } else {
      ADD_FAILURE() << "unknown escape \\" << next;
    }
  }
  return out;
}

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return fields;
    start = tab + 1;
  }
}

TEST(EncodingsTest, JsonlReplacesInvalidUtf8InPathsAndParses) {
  Corpus corpus;
  const RunResult r = RunNeardup({"scan", "-f", "jsonl", corpus.dir / "docs"}, corpus.dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  const nlohmann::json pair = nlohmann::json::parse(lines[0]);  // throws on invalid UTF-8
  EXPECT_EQ(pair["a"], corpus.a);
  EXPECT_EQ(pair["b"], corpus.dir / ("docs/" + kOddNameReplaced));
}

TEST(EncodingsTest, JsonReplacesInvalidUtf8InPathsAndParses) {
  Corpus corpus;
  for (const char* mode : {"pairs", "clusters", "duplicates"}) {
    SCOPED_TRACE(mode);
    const RunResult r = RunNeardup({"scan", "-f", "json", "--mode", mode, corpus.dir / "docs"}, corpus.dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    const std::string replaced = corpus.dir / ("docs/" + kOddNameReplaced);
    if (std::string_view(mode) == "pairs") {
      ASSERT_EQ(doc["pairs"].size(), 1u);
      EXPECT_EQ(doc["pairs"][0]["b"], replaced);
    } else if (std::string_view(mode) == "clusters") {
      ASSERT_EQ(doc["clusters"].size(), 1u);
      EXPECT_EQ(doc["clusters"][0]["members"], nlohmann::json::array({corpus.a, replaced}));
    } else {
      ASSERT_EQ(doc["removable"].size(), 1u);
      EXPECT_EQ(doc["removable"][0]["path"], replaced);
      EXPECT_EQ(doc["removable"][0]["kept"], corpus.a);
    }
  }
}

TEST(EncodingsTest, TsvRoundTripsThroughJqUnescaping) {
  Corpus corpus;
  RunResult r = RunNeardup({"scan", "-f", "tsv", corpus.dir / "docs"}, corpus.dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;  // the newline in the name is escaped
  std::vector<std::string> fields = SplitTabs(lines[0]);
  ASSERT_EQ(fields.size(), 4u) << lines[0];  // a, b, estimate, jaccard: the tab is escaped
  EXPECT_EQ(UnescapeTsv(fields[0]), corpus.a);
  EXPECT_EQ(UnescapeTsv(fields[1]), corpus.odd);

  r = RunNeardup({"scan", "-f", "tsv", "--mode", "clusters", corpus.dir / "docs"}, corpus.dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  fields = SplitTabs(lines[1]);
  ASSERT_EQ(fields.size(), 4u) << lines[1];
  EXPECT_EQ(UnescapeTsv(fields[1]), corpus.odd);
}

TEST(EncodingsTest, CsvKeepsTheBytes) {
  Corpus corpus;
  const RunResult r = RunNeardup({"scan", "-f", "csv", corpus.dir / "docs"}, corpus.dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The name holds a newline, so it is quoted; its bytes are as they are.
  const std::string expected = "a,b,estimate,jaccard\n" + corpus.a + ",\"" + corpus.odd + "\",1,";
  EXPECT_EQ(r.out.substr(0, expected.size()), expected) << r.out;
  EXPECT_EQ(r.out.find('\n', expected.size()), r.out.size() - 1) << r.out;
}

TEST(EncodingsTest, DuplicatesListKeepsTheBytes) {
  Corpus corpus;
  RunResult r = RunNeardup({"scan", "--mode", "duplicates", corpus.dir / "docs"}, corpus.dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, corpus.odd + "\n");
  r = RunNeardup({"scan", "--mode", "duplicates", "-0", corpus.dir / "docs"}, corpus.dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, corpus.odd + std::string(1, '\0'));
}

// JSONL input: an invalid byte in a line's text or id no longer costs the
// line. It becomes U+FFFD and is counted in stats.invalid_utf8.
TEST(EncodingsTest, JsonlInputWithInvalidUtf8IsRepairedAndCounted) {
  TempDir dir;
  const std::string body = Join(RandomWords(150, 11));
  const std::string file = dir / "docs.jsonl";
  WriteFile(file, "{\"id\":\"one\xFF\",\"text\":\"caf\xE9 " + body + "\"}\n" +
                      "{\"id\":\"two\",\"text\":\"caf\xC3\xA9 " + body + "\"}\n" + "{\"id\":\"three\",\"text\":\"" +
                      Join(RandomWords(150, 12)) + "\"}\n");
  const RunResult r = RunNeardup({"scan", "-f", "json", "--input", "jsonl", file}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["stats"]["documents"], 3);
  EXPECT_EQ(doc["stats"]["malformed_lines"], 0);
  EXPECT_EQ(doc["stats"]["invalid_utf8"], 2);  // one in the id, one in the text
  ASSERT_EQ(doc["pairs"].size(), 1u);
  EXPECT_EQ(doc["pairs"][0]["a"], "one" + kFffd);
  EXPECT_EQ(doc["pairs"][0]["b"], "two");
}

// With --encoding latin1 the whole line is Latin-1, the id and keys too.
TEST(EncodingsTest, JsonlInputInLatin1IsTranscodedWhole) {
  TempDir dir;
  const std::string body = Join(RandomWords(150, 13));
  const std::string file = dir / "docs.jsonl";
  WriteFile(file, "{\"id\":\"na\xEFve\",\"t\xE9xt\":\"caf\xE9 " + body + "\"}\n" +
                      "{\"id\":\"plain\",\"t\xE9xt\":\"caf\xE9 " + body + "\"}\n");
  const RunResult r =
      RunNeardup({"scan", "-f", "json", "--input", "jsonl", "--encoding", "latin1", "--text-key", "t\xC3\xA9xt", file},
                 dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["stats"]["malformed_lines"], 0);
  EXPECT_EQ(doc["stats"]["invalid_utf8"], 0);
  ASSERT_EQ(doc["pairs"].size(), 1u);
  EXPECT_EQ(doc["pairs"][0]["a"], "na\xC3\xAFve");
  EXPECT_EQ(doc["pairs"][0]["b"], "plain");
}

}  // namespace
}  // namespace neardup
