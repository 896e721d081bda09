// End to end: `neardup explain`, `-f html`, '-' as standard input, and the
// exit status of a run that lost JSONL lines. Each test runs the real binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e/run_neardup.h"
#include "test_paths.h"
#include "test_util.h"
#include "write/sha256.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunOptions;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

const std::string kBin = ::neardup::testing::NeardupBinary();

// Runs `argv` with `dir` as the working directory (so names are relative).
RunResult RunIn(const TempDir& dir, std::vector<std::string> argv, const std::string& stdin_path = "/dev/null") {
  argv.insert(argv.begin(), {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", dir.path()});
  return RunProcess(argv, dir.path(), stdin_path);
}

// a.txt and b.txt: 200 words, b with two words replaced; c.txt unrelated.
void WriteCorpus(const TempDir& dir) {
  std::vector<std::string> w = RandomWords(200, 11);
  WriteFile(dir / "docs/a.txt", Join(w));
  w[50] = "alpha";
  w[150] = "omega";
  WriteFile(dir / "docs/b.txt", Join(w));
  WriteFile(dir / "docs/c.txt", Join(RandomWords(200, 12)));
}

TEST(ExplainCommandTest, TextShowsFactsAndBracketedWordDiffWhenPiped) {
  TempDir dir;
  WriteCorpus(dir);
  const RunResult r = RunNeardup({"explain", "docs/a.txt", "docs/b.txt"}, dir.path(), RunOptions().In(dir.path()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("a: docs/a.txt\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("200 words"), std::string::npos);
  // 2 edits change 10 of 196 shingles: 186 shared of 206.
  EXPECT_NE(r.out.find("shared shingles: 186 of 206 (union)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exact Jaccard: 0.9029"), std::string::npos);
  EXPECT_NE(r.out.find("--verify exact:     reported"), std::string::npos);
  const std::vector<std::string> w = RandomWords(200, 11);
  EXPECT_NE(r.out.find("[-" + w[50] + "-] {+alpha+}"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[-" + w[150] + "-] {+omega+}"), std::string::npos);
  EXPECT_EQ(r.out.find("\x1b["), std::string::npos);  // no colour when piped
}

TEST(ExplainCommandTest, JsonHasTheSameFactsAndExitOneWhenNotReported) {
  TempDir dir;
  WriteCorpus(dir);
  RunResult r =
      RunNeardup({"explain", "-f", "json", "docs/a.txt", "docs/b.txt"}, dir.path(), RunOptions().In(dir.path()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["a"]["name"], "docs/a.txt");
  EXPECT_EQ(j["shared_shingles"], 186);
  EXPECT_EQ(j["union_shingles"], 206);
  EXPECT_TRUE(j["reported"]["exact"].get<bool>());
  EXPECT_GT(j["diff"].size(), 3u);

  r = RunNeardup({"explain", "-f", "json", "docs/a.txt", "docs/c.txt"}, dir.path(), RunOptions().In(dir.path()));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["jaccard"], 0);
  EXPECT_FALSE(j["candidate"].get<bool>());
}

TEST(ExplainCommandTest, ThresholdAndVerifyDecideTheExitStatus) {
  TempDir dir;
  WriteCorpus(dir);  // J = 0.9029
  EXPECT_EQ(RunNeardup({"explain", "--exact", "-t", "0.95", "docs/a.txt", "docs/b.txt"}, dir.path(),
                       RunOptions().In(dir.path()))
                .exit_code,
            1);
  EXPECT_EQ(RunNeardup({"explain", "--exact", "-t", "0.9", "docs/a.txt", "docs/b.txt"}, dir.path(),
                       RunOptions().In(dir.path()))
                .exit_code,
            0);
}

TEST(ExplainCommandTest, JsonlIdsAndStandardInput) {
  TempDir dir;
  const std::string text = Join(RandomWords(60, 4));
  WriteFile(dir / "c.jsonl", "{\"id\":\"x\",\"text\":\"" + text + "\"}\n{\"id\":\"y\",\"text\":\"" + text + "\"}\n");
  RunResult r =
      RunNeardup({"explain", "--input", "jsonl", "c.jsonl", "x", "y"}, dir.path(), RunOptions().In(dir.path()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("same words: an exact copy"), std::string::npos) << r.out;
  r = RunNeardup({"explain", "--input", "jsonl", "c.jsonl", "x", "z"}, dir.path(), RunOptions().In(dir.path()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("z: no document with this id"), std::string::npos) << r.err;

  WriteFile(dir / "a.txt", text);
  r = RunNeardup({"explain", "a.txt", "-"}, dir.path(), RunOptions().Stdin(dir / "a.txt").In(dir.path()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("b: -\n"), std::string::npos) << r.out;
}

TEST(ExplainCommandTest, UsageErrors) {
  TempDir dir;
  RunResult r = RunNeardup({"explain", "one"}, dir.path(), RunOptions().In(dir.path()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("explain needs two files A B, got 1"), std::string::npos) << r.err;
  r = RunNeardup({"explain", "--input", "jsonl", "f", "a"}, dir.path(), RunOptions().In(dir.path()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("needs FILE ID_A ID_B"), std::string::npos) << r.err;
  r = RunNeardup({"explain", "-", "-"}, dir.path(), RunOptions().In(dir.path()));
  EXPECT_EQ(r.exit_code, 2);
}

TEST(StdinTest, DashIsOneTextDocumentNamedDash) {
  TempDir dir;
  WriteCorpus(dir);
  const RunResult r =
      RunNeardup({"scan", "docs/a.txt", "-"}, dir.path(), RunOptions().Stdin(dir / "docs/b.txt").In(dir.path()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("{\"a\":\"-\",\"b\":\"docs/a.txt\""), std::string::npos) << r.out;
}

TEST(StdinTest, DashInJsonlModeIsAStreamOfLines) {
  TempDir dir;
  const std::string text = Join(RandomWords(60, 4));
  WriteFile(dir / "in.jsonl", "{\"text\":\"" + text + "\"}\n{\"id\":\"named\",\"text\":\"" + text + "\"}\n");
  // Through a pipe: stdin is not a regular file.
  const RunResult r = RunIn(dir, {"/bin/sh", "-c", "cat in.jsonl | \"$0\" scan --input jsonl -", kBin});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"a\":\"-:1\",\"b\":\"named\",\"estimate\":1,\"jaccard\":1}\n");
}

TEST(StdinTest, DashWithFilesFromDashIsAUsageError) {
  TempDir dir;
  const RunResult r = RunNeardup({"scan", "--files-from", "-", "-"}, dir.path(), RunOptions().In(dir.path()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("both read standard input"), std::string::npos) << r.err;
}

TEST(NoSilentLossTest, MalformedJsonlLinesGiveExitTwoAfterTheOutput) {
  TempDir dir;
  const std::string text = Join(RandomWords(60, 4));
  WriteFile(dir / "in.jsonl", "{\"id\":\"a\",\"text\":\"" + text + "\"}\n" + "{broken\n" + "{\"id\":\"n\"}\n" +
                                  "{\"id\":\"m\",\"text\":5}\n" + "{\"id\":\"b\",\"text\":\"" + text + "\"}\n");
  const RunResult r = RunNeardup({"scan", "--input", "jsonl", "in.jsonl"}, dir.path(), RunOptions().In(dir.path()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "{\"a\":\"a\",\"b\":\"b\",\"estimate\":1,\"jaccard\":1}\n");
  EXPECT_NE(r.err.find("3 malformed lines"), std::string::npos) << r.err;
}

TEST(HtmlFormatTest, PageIsSelfContainedAndEscapesNames) {
  TempDir dir;
  WriteCorpus(dir);
  std::vector<std::string> w = RandomWords(200, 11);
  w[10] = "tag";
  WriteFile(dir / "docs/<b>&\"q\".txt", Join(w));
  const RunResult r = RunNeardup({"scan", "--mode", "clusters", "-f", "html", "-o", "page.html", "docs"}, dir.path(),
                                 RunOptions().In(dir.path()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = testing::ReadFile(dir / "page.html");
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(page.find("http://"), std::string::npos);
  EXPECT_EQ(page.find("https://"), std::string::npos);
  EXPECT_EQ(page.find("<b>&"), std::string::npos);  // the name only as escaped JSON
  EXPECT_NE(page.find("docs/\\u003cb>&\\\"q\\\".txt"), std::string::npos);
  EXPECT_NE(page.find("<svg class=\"chart\" id=\"histogram\""), std::string::npos);
  EXPECT_NE(page.find("<svg class=\"chart\" id=\"scurve\""), std::string::npos);
  EXPECT_NE(page.find("[2,\"alpha\"]"), std::string::npos);  // b's word diff against the kept document
  // Its scripts and style run under a Content-Security-Policy that names
  // their SHA-256 hashes, never 'unsafe-inline'.
  EXPECT_EQ(page.find("unsafe-inline"), std::string::npos);
  auto between = [&](const std::string& open, const std::string& close) {
    const size_t from = page.find(open);
    if (from == std::string::npos) return std::string("(none)");
    const size_t to = page.find(close, from + open.size());
    return page.substr(from + open.size(), to - from - open.size());
  };
  EXPECT_NE(page.find("script-src '" + CspHashSource(between("<script>", "</script>")) + "'"), std::string::npos);
  EXPECT_NE(page.find("style-src '" + CspHashSource(between("<style>", "</style>")) + "'"), std::string::npos);
}

// The histogram's SVG in `page`, and each bar's height and count (from its
// <title>, "0.800–0.810: 3").
struct Bar {
  double height = 0;
  int count = 0;
};
std::vector<Bar> HistogramBars(const std::string& svg) {
  std::vector<Bar> bars;
  for (size_t at = svg.find("<rect class=\"bar\""); at != std::string::npos;
       at = svg.find("<rect class=\"bar\"", at + 1)) {
    Bar bar;
    const size_t h = svg.find("height=\"", at) + 8;
    bar.height = std::stod(svg.substr(h, svg.find('"', h) - h));
    const size_t colon = svg.find(": ", svg.find("<title>", at)) + 2;
    bar.count = std::stoi(svg.substr(colon, svg.find('<', colon) - colon));
    bars.push_back(bar);
  }
  return bars;
}

TEST(HtmlFormatTest, HistogramTicksAreTenthsAndASmallBarStaysVisible) {
  TempDir dir;
  // 25 copies (300 pairs at 1) and one near copy (pairs near 0.9).
  std::vector<std::string> w = RandomWords(300, 31);
  for (int i = 0; i < 25; ++i) WriteFile(dir / ("docs/copy" + std::to_string(100 + i) + ".txt"), Join(w));
  w[150] = "changed";
  WriteFile(dir / "docs/near.txt", Join(w));
  const RunResult r =
      RunNeardup({"scan", "-f", "html", "-o", "page.html", "docs"}, dir.path(), RunOptions().In(dir.path()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = testing::ReadFile(dir / "page.html");
  const size_t from = page.find("<svg class=\"chart\" id=\"histogram\"");
  ASSERT_NE(from, std::string::npos);
  const std::string svg = page.substr(from, page.find("</svg>", from) - from);
  // Ticks at 0.8, 0.9 and 1.0 (the threshold is 0.8), none at odd values.
  for (const char* tick : {">0.8</text>", ">0.9</text>", ">1.0</text>"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick << "\n" << svg;
  }
  EXPECT_EQ(svg.find(">0.81</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">1.00</text>"), std::string::npos);
  const std::vector<Bar> bars = HistogramBars(svg);
  ASSERT_EQ(bars.size(), 20u);
  int top = 0, smallest = 1 << 30;
  double tallest = 0;
  for (const Bar& bar : bars) {
    if (bar.count == 0) {
      EXPECT_EQ(bar.height, 0);
      continue;
    }
    top = std::max(top, bar.count);
    smallest = std::min(smallest, bar.count);
    tallest = std::max(tallest, bar.height);
  }
  EXPECT_EQ(top, 300);
  EXPECT_LE(smallest, 25);
  // Every non-empty bar is at least a tenth as tall as the tallest.
  for (const Bar& bar : bars) {
    if (bar.count > 0) {
      EXPECT_GE(bar.height, tallest / 10) << bar.count;
    }
  }
  // Pairs mode says nothing of a kept document or --keep.
  EXPECT_EQ(page.find("--keep"), std::string::npos);
  EXPECT_EQ(page.find("<em>kept</em>"), std::string::npos);
}

// JSONL documents are read again for the page as text files are: ids as
// names, the member's similarity, its word diff, and the histogram of it.
void ExpectJsonlReviewed(const std::string& file, bool gz) {
  TempDir dir;
  std::vector<std::string> w = RandomWords(200, 41);
  const std::string a = "{\"id\":\"doc-a\",\"text\":\"" + Join(w) + "\"}\n";
  const std::string w50 = w[50];
  w[50] = "alpha";
  w[150] = "omega";
  const std::string b = "{\"id\":\"doc-b\",\"text\":\"" + Join(w) + "\"}\n";
  const std::string c = "{\"id\":\"doc-c\",\"text\":\"" + Join(RandomWords(200, 42)) + "\"}\n";
  WriteFile(dir / "data.jsonl", c + a + "not json\n" + b);
  if (gz) {
    ASSERT_EQ(RunIn(dir, {"gzip", "data.jsonl"}).exit_code, 0);
  }
  const RunResult r =
      RunNeardup({"scan", "--input", "jsonl", "--mode", "clusters", "-f", "html", "-o", "page.html", file}, dir.path(),
                 RunOptions().In(dir.path()));
  ASSERT_EQ(r.exit_code, 2) << r.err;  // the malformed line
  const std::string page = testing::ReadFile(dir / "page.html");
  EXPECT_NE(page.find("\"doc-a\""), std::string::npos);
  EXPECT_NE(page.find("\"doc-b\""), std::string::npos);
  EXPECT_NE(page.find("[2,\"alpha\"]"), std::string::npos) << page;
  EXPECT_NE(page.find("[2,\"omega\"]"), std::string::npos);
  EXPECT_NE(page.find("[1,\"" + w50 + "\"]"), std::string::npos);
  EXPECT_EQ(page.find("text input only"), std::string::npos);
  EXPECT_NE(page.find("\"similarity\":0.9"), std::string::npos);
  const size_t from = page.find("<svg class=\"chart\" id=\"histogram\"");
  ASSERT_NE(from, std::string::npos);
  int counted = 0;
  for (const Bar& bar : HistogramBars(page.substr(from, page.find("</svg>", from) - from))) counted += bar.count;
  EXPECT_EQ(counted, 1);
}

TEST(HtmlFormatTest, JsonlDocumentsHaveTheirSimilarityDiffAndHistogram) { ExpectJsonlReviewed("data.jsonl", false); }

TEST(HtmlFormatTest, GzippedJsonlDocumentsHaveTheirSimilarityDiffAndHistogram) {
  ExpectJsonlReviewed("data.jsonl.gz", true);
}

// The facts give sizes in the units the members' sizes use, never a byte
// count beside "kB".
TEST(HtmlFormatTest, FactsGiveSizesInTheMembersUnits) {
  TempDir dir;
  const std::string text = Join(RandomWords(400, 61));  // about 2.5 kB
  WriteFile(dir / "d/a.txt", text);
  WriteFile(dir / "d/b.txt", text);
  const RunResult r = RunNeardup({"scan", "--mode", "clusters", "-f", "html", "-o", "page.html", "d"}, dir.path(),
                                 RunOptions().In(dir.path()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = testing::ReadFile(dir / "page.html");
  const std::string kb = testing::ReadFile(dir / "d/a.txt").size() * 2 >= 1000 ? " kB)" : " B)";
  EXPECT_NE(page.find("<td>2 ("), std::string::npos) << page.substr(0, 4000);
  EXPECT_EQ(page.find(" bytes)"), std::string::npos);
  const size_t at = page.find("<td>2 (");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NE(page.substr(at, 30).find(kb), std::string::npos) << page.substr(at, 30);
}

TEST(HtmlFormatTest, DuplicatesModeIsAUsageError) {
  TempDir dir;
  const RunResult r =
      RunNeardup({"scan", "--mode", "duplicates", "-f", "html", "."}, dir.path(), RunOptions().In(dir.path()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("-f html"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace neardup
