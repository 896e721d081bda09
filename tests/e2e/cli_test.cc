// End to end: the real binary on corpora made in a temporary directory.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "e2e/run_neardup.h"
#include "neardup/quote.h"
#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

const std::string kBin = ::neardup::testing::NeardupBinary();

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// A small RFC 4180 reader: fields, quotes, doubled quotes, newlines in quotes.
std::vector<std::vector<std::string>> ParseCsv(const std::string& s) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false, was_quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quoted) {
      if (c == '"' && i + 1 < s.size() && s[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"' && field.empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
      was_quoted = false;
    } else if (c == '\n') {
      rows.back().push_back(field);
      field.clear();
      was_quoted = false;
      rows.emplace_back();
    } else if (c != '\r') {
      field += c;
    }
  }
  if (!field.empty() || !rows.back().empty()) rows.back().push_back(field);
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

// a.txt ~ a_copy.txt (identical), a_edit.txt (two words changed), b.txt and c.txt unrelated.
void MakeCorpus(const TempDir& dir) {
  const auto base = RandomWords(300, 1);
  auto edited = base;
  edited[100] = "changed";
  edited[200] = "words";
  WriteFile(dir / "docs/a.txt", Join(base));
  WriteFile(dir / "docs/a_copy.txt", Join(base));
  WriteFile(dir / "docs/sub/a_edit.txt", Join(edited));
  WriteFile(dir / "docs/b.txt", Join(RandomWords(300, 2)));
  WriteFile(dir / "docs/c.txt", Join(RandomWords(300, 3)));
  WriteFile(dir / "docs/.hidden.txt", Join(base));
}

TEST(CliTest, FindsCopiesAndEditsAsSortedJsonLines) {
  TempDir dir;
  MakeCorpus(dir);
  const RunResult r = RunNeardup({"scan", "--verify", "signature", dir / "docs"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  const std::string d = dir / "docs/";
  const std::vector<std::pair<std::string, std::string>> expected = {
      {d + "a.txt", d + "a_copy.txt"}, {d + "a.txt", d + "sub/a_edit.txt"}, {d + "a_copy.txt", d + "sub/a_edit.txt"}};
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto j = nlohmann::json::parse(lines[i]);
    EXPECT_EQ(j["a"], expected[i].first);
    EXPECT_EQ(j["b"], expected[i].second);
    EXPECT_GE(j["estimate"].get<double>(), 0.8);
    EXPECT_FALSE(j.contains("jaccard"));  // not computed with --verify signature
  }
  EXPECT_EQ(nlohmann::json::parse(lines[0])["estimate"], 1);
  // The summary goes to stderr, never stdout.
  EXPECT_NE(r.err.find("5 documents"), std::string::npos) << r.err;
}

TEST(CliTest, ExactReportsTrueJaccard) {
  TempDir dir;
  MakeCorpus(dir);
  const RunResult r = RunNeardup({"scan", "--exact", dir / "docs"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u);
  // Two separated word changes in 300 words: 10 of 296 shingles replaced.
  const auto edit = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(edit["jaccard"].get<double>(), 0.9346);  // 286 / 306, to 4 decimals
  EXPECT_EQ(nlohmann::json::parse(lines[0])["jaccard"], 1);
}

TEST(CliTest, EveryFormatParsesBack) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string d = dir / "docs/";
  RunResult r = RunNeardup({"scan", "-f", "json", "--exact", dir / "docs"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["params"]["threshold"], 0.8);
  EXPECT_EQ(j["params"]["verify"], "exact");
  EXPECT_EQ(j["params"]["shingle"], "word");
  EXPECT_EQ(j["params"]["num_perm"], 128);
  EXPECT_EQ(j["stats"]["documents"], 5);
  EXPECT_EQ(j["stats"]["pairs"], 3);
  EXPECT_EQ(j["pairs"].size(), 3u);
  EXPECT_EQ(j["pairs"][0]["a"], d + "a.txt");

  r = RunNeardup({"scan", "-f", "csv", "--verify", "signature", dir / "docs"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = ParseCsv(r.out);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"a", "b", "estimate", "jaccard"}));
  EXPECT_EQ(rows[2][1], d + "sub/a_edit.txt");
  EXPECT_EQ(rows[2][3], "");

  r = RunNeardup({"scan", "-f", "tsv", "--exact", dir / "docs"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto tsv = Lines(r.out);
  ASSERT_EQ(tsv.size(), 3u);
  EXPECT_EQ(tsv[0], d + "a.txt\t" + d + "a_copy.txt\t1\t1");
}

TEST(CliTest, CsvQuotesAwkwardPaths) {
  TempDir dir;
  const auto base = Join(RandomWords(100, 4));
  WriteFile(dir / "d/we,ird \"name\".txt", base);
  WriteFile(dir / "d/plain.txt", base);
  const RunResult r = RunNeardup({"scan", "-f", "csv", dir / "d"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = ParseCsv(r.out);
  ASSERT_EQ(rows.size(), 2u) << r.out;
  EXPECT_EQ(rows[1][0], dir / "d/plain.txt");
  EXPECT_EQ(rows[1][1], dir / "d/we,ird \"name\".txt");
}

TEST(CliTest, InvalidUtf8PathIsReplacedInJsonAndKeptInTsv) {
  TempDir dir;
  const auto base = Join(RandomWords(100, 4));
  WriteFile(dir / "d/caf\xe9.txt", base);
  WriteFile(dir / "d/cafe.txt", base);
  RunResult r = RunNeardup({"scan", dir / "d"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(Lines(r.out)[0]);  // valid JSON
  EXPECT_EQ(j["b"], dir / "d/caf\xef\xbf\xbd.txt");
  r = RunNeardup({"scan", "-f", "tsv", dir / "d"}, dir.path());
  EXPECT_NE(r.out.find("caf\xe9.txt"), std::string::npos);
}

TEST(CliTest, ExitCodesFollowGrep) {
  TempDir dir;
  MakeCorpus(dir);
  WriteFile(dir / "alone/x.txt", Join(RandomWords(200, 10)));
  WriteFile(dir / "alone/y.txt", Join(RandomWords(200, 11)));
  EXPECT_EQ(RunNeardup({"scan", dir / "docs"}, dir.path()).exit_code, 0);
  RunResult r = RunNeardup({"scan", dir / "alone"}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  r = RunNeardup({"scan", "--threshold", "2", dir / "alone"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("threshold"), std::string::npos);
  EXPECT_EQ(RunNeardup({"--help"}, dir.path()).exit_code, 0);
  EXPECT_EQ(RunNeardup({"--version"}, dir.path()).exit_code, 0);
  EXPECT_EQ(RunNeardup({"scan", "--bogus", dir / "alone"}, dir.path()).exit_code, 2);
}

TEST(CliTest, BrokenPathGivesTwoAndStillWritesTheRest) {
  TempDir dir;
  MakeCorpus(dir);
  const RunResult r = RunNeardup({"scan", dir / "docs", dir / "nope"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(Lines(r.out).size(), 3u);
  EXPECT_NE(r.err.find("neardup: " + dir / "nope"), std::string::npos) << r.err;
}

TEST(CliTest, OutputIsByteIdenticalForEveryThreadCount) {
  TempDir dir;
  for (int i = 0; i < 60; ++i) {
    const auto base = RandomWords(150, 1000 + static_cast<uint64_t>(i % 20));
    auto words = base;
    words[static_cast<size_t>(i) % words.size()] = "edit" + std::to_string(i);
    WriteFile(dir / ("c/" + std::to_string(i) + ".txt"), Join(words));
  }
  for (const char* format : {"jsonl", "json", "csv"}) {
    const RunResult one = RunNeardup({"scan", "-j", "1", "--exact", "-f", format, dir / "c"}, dir.path());
    const RunResult four = RunNeardup({"scan", "-j", "4", "--exact", "-f", format, dir / "c"}, dir.path());
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_EQ(one.out, four.out) << format;
    EXPECT_GT(one.out.size(), 1000u);
  }
}

TEST(CliTest, OutputFileIsWrittenAtomically) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string target = dir / "out/pairs.jsonl";
  std::filesystem::create_directories(dir / "out");
  RunResult r = RunNeardup({"scan", "-o", target, dir / "docs"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(Lines(testing::ReadFile(target)).size(), 3u);
  // A bad option leaves the old file as it was.
  r = RunNeardup({"scan", "-o", target, "-t", "7", dir / "docs"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(Lines(testing::ReadFile(target)).size(), 3u);
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "out")) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);
  // A folder that does not exist: error, nothing created.
  r = RunNeardup({"scan", "-o", dir / "none/x.jsonl", dir / "docs"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir / "none"));
}

TEST(CliTest, InterruptLeavesOldOutputAndNoTemporaryFile) {
  TempDir dir;
  // One big document keeps the scan busy long enough to be interrupted.
  {
    std::string big;
    const auto words = RandomWords(20000, 3);
    const std::string chunk = Join(words) + "\n";
    while (big.size() < (300u << 20)) big += chunk;
    WriteFile(dir / "big/x.txt", big);
  }
  const std::string target = dir / "out.jsonl";
  WriteFile(target, "old\n");
  for (int sig : {SIGTERM, SIGINT}) {
    pid_t pid = fork();
    if (pid == 0) {
      const int fd = ::open("/dev/null", O_WRONLY);
      dup2(fd, 1);
      dup2(fd, 2);
      execl(kBin.c_str(), kBin.c_str(), "scan", "-j", "1", "-o", target.c_str(), (dir / "big").c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 128 + sig);
    EXPECT_EQ(testing::ReadFile(target), "old\n");
    size_t files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) files += e.is_regular_file();
    EXPECT_EQ(files, 1u);  // no temporary file left beside the target
  }
}

TEST(CliTest, ClosedStdoutEndsQuietly) {
  TempDir dir;
  const auto base = Join(RandomWords(100, 4));
  for (int i = 0; i < 80; ++i) WriteFile(dir / ("same/" + std::to_string(i) + ".txt"), base);
  const std::string script = "'" + kBin + "' scan '" + dir / "same" + "' 2>'" + dir / "err" +
                             "' | head -n 1 >/dev/null; echo ${PIPESTATUS[0]}";
  const RunResult r = RunProcess({"/bin/bash", "-c", script}, dir.path());
  EXPECT_EQ(r.out, "0\n");
  const std::string err = testing::ReadFile(dir / "err");
  EXPECT_EQ(err.find("error"), std::string::npos) << err;
  EXPECT_EQ(err.find("Broken pipe"), std::string::npos) << err;
}

// params --contains: a banding per distance between size strata, each for
// the least Jaccard of a document contained at -t at the largest ratio up to
// the cap (0.8 / (1 + 2 - 0.8) = 0.3636 for neighbours: strata of half an
// octave), and at every ratio
// up to the cap a probability of at least 0.99; beyond it, said so.
TEST(CliTest, ParamsContainsShowsStrataBandsAndTheProbabilityAtEachRatio) {
  TempDir dir;
  const RunResult r = RunNeardup({"params", "--contains"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("size ratios |B|/|A| up to 8\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("             0      1 to 1.414  0.4956  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("             1      1 to 2      0.3636  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("             7      8 to 8      0.0976  "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("             8 "), std::string::npos) << r.out;  // least ratio 11.3: not banded
  size_t ratios = 0;
  std::istringstream lines(r.out.substr(r.out.find("  ratio  P(candidate)")));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line)) {
    double ratio = 0, p = 0;
    std::istringstream(line) >> ratio >> p;
    ASSERT_GT(ratio, 0) << line;
    ++ratios;
    if (ratio <= 8) {
      EXPECT_GE(p, 0.99) << line;
      EXPECT_EQ(line.find("out of reach"), std::string::npos) << line;
    } else {
      EXPECT_NE(line.find("(beyond the cap: out of reach)"), std::string::npos) << line;
    }
  }
  EXPECT_EQ(ratios, 9u);  // 1, 1.5, 2, 3, 4, 6, 8, 12, 16
  const RunResult capped = RunNeardup({"params", "--contains", "--max-ratio", "2", "-t", "0.9"}, dir.path());
  ASSERT_EQ(capped.exit_code, 0) << capped.err;
  EXPECT_NE(capped.out.find("      3  "), std::string::npos) << capped.out;
  EXPECT_NE(capped.out.find("(beyond the cap: out of reach)"), std::string::npos) << capped.out;
  const RunResult below = RunNeardup({"params", "--contains", "--max-ratio", "0.5"}, dir.path());
  EXPECT_EQ(below.exit_code, 2) << below.out;
  const RunResult scan = RunNeardup({"scan", "--contains", dir.path()}, dir.path());
  EXPECT_EQ(scan.exit_code, 2) << scan.out;  // params only, for now
}

TEST(CliTest, ParamsPrintsTheSCurve) {
  TempDir dir;
  const RunResult r = RunNeardup({"params", "-t", "0.8", "--bands", "20", "--rows", "5"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("bands 20 x rows 5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0.5493"), std::string::npos) << r.out;  // (1/20)^(1/5)
  EXPECT_NE(r.out.find("0.4701"), std::string::npos) << r.out;  // s = 0.5 (the book rounds to .470)
  EXPECT_NE(r.out.find("0.9996"), std::string::npos) << r.out;  // s = 0.8
}

// A score of 1 means the same tokens. Two texts that differ by one word in
// 30,000 have a Jaccard of 0.99997 and (with 128 permutations) every
// signature position alike: printed as 0.9999, never 1, in every format and
// by explain; a copy still prints 1.
TEST(CliTest, ScoresOfDifferentTextsNeverPrintAsOne) {
  TempDir dir;
  const std::string text = Join(RandomWords(30000, 11, 100000));
  WriteFile(dir / "d/a.txt", text);
  WriteFile(dir / "d/b.txt", text + " extra");
  WriteFile(dir / "d/c.txt", text);
  const RunResult json = RunNeardup({"scan", "-f", "json", "--exact", dir / "d"}, dir.path());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  ASSERT_EQ(doc["pairs"].size(), 3u) << json.out;
  for (const auto& pair : doc["pairs"]) {
    const bool copies =
        pair["a"].get<std::string>().ends_with("a.txt") && pair["b"].get<std::string>().ends_with("c.txt");
    EXPECT_EQ(pair["estimate"].dump(), copies ? "1" : "0.9999") << pair.dump();
    EXPECT_EQ(pair["jaccard"].dump(), copies ? "1" : "0.9999") << pair.dump();
  }
  const RunResult csv = RunNeardup({"scan", "-f", "csv", dir / "d"}, dir.path());
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("b.txt,0.9999,"), std::string::npos) << csv.out;
  EXPECT_EQ(csv.out.find("b.txt,1,"), std::string::npos) << csv.out;
  const RunResult html = RunNeardup({"scan", "-f", "html", "--mode", "clusters", dir / "d"}, dir.path());
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(html.out.find("\"similarity\":0.9999"), std::string::npos);
  const RunResult explain = RunNeardup({"explain", "-f", "json", dir / "d/a.txt", dir / "d/b.txt"}, dir.path());
  const auto e = nlohmann::json::parse(explain.out);  // full precision, below 1
  EXPECT_LT(e["jaccard"].get<double>(), 1.0) << explain.out;
  EXPECT_LT(e["estimate"].get<double>(), 1.0) << explain.out;
  const RunResult told = RunNeardup({"explain", dir / "d/a.txt", dir / "d/b.txt"}, dir.path());
  EXPECT_NE(told.out.find("exact Jaccard: 0.9999\n"), std::string::npos) << told.out;
  EXPECT_NE(told.out.find("signature estimate: 0.9999 "), std::string::npos) << told.out;
  const RunResult same = RunNeardup({"explain", "-f", "json", dir / "d/a.txt", dir / "d/c.txt"}, dir.path());
  EXPECT_EQ(nlohmann::json::parse(same.out)["jaccard"].get<double>(), 1.0) << same.out;
}

// explain gives the exact containment both ways and which document lies
// inside the other: an excerpt of 300 words placed whole inside a document
// of 1,200 is contained entirely (1), the other way about a quarter; the
// Jaccard alone (about 0.25) says little of it.
TEST(CliTest, ExplainSaysWhichDocumentLiesInsideTheOther) {
  TempDir dir;
  const std::vector<std::string> words = RandomWords(1200, 44);
  const std::vector<std::string> excerpt(words.begin() + 400, words.begin() + 700);
  WriteFile(dir / "d/big.txt", Join(words));
  WriteFile(dir / "d/small.txt", Join(excerpt));
  const RunResult json = RunNeardup({"explain", "-f", "json", dir / "d/small.txt", dir / "d/big.txt"}, dir.path());
  ASSERT_EQ(json.exit_code, 1) << json.err;  // not reported at -t 0.8
  const auto e = nlohmann::json::parse(json.out);
  EXPECT_EQ(e["containment"]["a_in_b"].dump(), "1") << json.out;
  const double b_in_a = e["containment"]["b_in_a"].get<double>();
  EXPECT_NEAR(b_in_a, 296.0 / 1196.0, 0.02) << json.out;
  EXPECT_NEAR(e["jaccard"].get<double>(), b_in_a, 1e-4) << json.out;  // B's share is A ∪ B's
  EXPECT_EQ(e["containment"]["inside"], "a") << json.out;
  const RunResult text = RunNeardup({"explain", dir / "d/big.txt", dir / "d/small.txt"}, dir.path());
  EXPECT_NE(text.out.find("exact containment: a in b 0.2"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(", b in a 1.0000: more of b is in a "), std::string::npos) << text.out;
  const RunResult same = RunNeardup({"explain", "-f", "json", dir / "d/big.txt", dir / "d/big.txt"}, dir.path());
  EXPECT_TRUE(nlohmann::json::parse(same.out)["containment"]["inside"].is_null()) << same.out;
}

// explain takes an id only when it names one document: scan names the
// documents of a repeated id FILE:LINE, so explain refuses the id (exit 2),
// listing a few of its lines, and takes FILE:LINE.
TEST(CliTest, ExplainRefusesAJsonlIdThatIsNotUnique) {
  TempDir dir;
  std::string lines = "{\"id\":\"x\",\"text\":\"" + Join(RandomWords(50, 1)) + "\"}\n" + "{\"id\":\"y\",\"text\":\"" +
                      Join(RandomWords(50, 2)) + "\"}\n";
  for (int i = 0; i < 9; ++i) lines += "{\"id\":\"x\",\"text\":\"other words\"}\n";
  WriteFile(dir / "c.jsonl", lines);
  const RunResult r = RunNeardup({"explain", "--input", "jsonl", dir / "c.jsonl", "x", "y"}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("id \"x\" is not unique in " + dir / "c.jsonl" + " (lines 1, 3, 4, 5, 6 and 5 more)"),
            std::string::npos)
      << r.err;
  const RunResult y_twice = RunNeardup({"explain", "--input", "jsonl", dir / "c.jsonl", "y", "x"}, dir.path());
  EXPECT_EQ(y_twice.exit_code, 2) << y_twice.err;
  const RunResult by_line =
      RunNeardup({"explain", "--input", "jsonl", dir / "c.jsonl", dir / "c.jsonl:1", "y"}, dir.path());
  EXPECT_EQ(by_line.exit_code, 1) << by_line.err;  // explained: not reported (other words)
  const RunResult unique = RunNeardup({"explain", "--input", "jsonl", dir / "c.jsonl", "y", "y"}, dir.path());
  EXPECT_EQ(unique.exit_code, 0) << unique.err;
}

// explain reads what scan reads: <(cmd) is a pipe (/dev/fd/N), read as a
// stream, for text files and JSONL alike.
TEST(CliTest, ExplainReadsProcessSubstitution) {
  TempDir dir;
  WriteFile(dir / "a.txt", Join(RandomWords(200, 3)));
  WriteFile(dir / "c.jsonl", "{\"id\":\"p\",\"text\":\"" + Join(RandomWords(200, 3)) + "\"}\n");
  const std::string script = "'" + kBin + "' explain -f json <(cat '" + dir / "a.txt" + "') '" + dir / "a.txt" +
                             "' && '" + kBin + "' explain -f json --input jsonl <(cat '" + dir / "c.jsonl" + "') p p";
  const RunResult r = RunProcess({"/bin/bash", "-c", script}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  size_t at = 0, found = 0;
  while ((at = r.out.find("\"same_tokens\": true", at)) != std::string::npos) ++found, ++at;
  EXPECT_EQ(found, 2u) << r.out;
}

// -q shows errors only, and what makes the exit status 2 is one: a path
// that cannot be read is still named, in one line, with the count of the
// other problems; a run without a problem stays silent.
TEST(QuietTest, ExitTwoAlwaysSaysWhyInOneLine) {
  TempDir dir;
  const std::string text = Join(RandomWords(80, 5)) + "\n";
  WriteFile(dir / "c/a.txt", text);
  WriteFile(dir / "c/b.txt", text);
  RunResult r = RunNeardup({"scan", "-q", dir / "no_such_path"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "neardup: " + (dir / "no_such_path") + ": No such file or directory\n");
  r = RunNeardup({"scan", "-q", "-f", "tsv", dir / "missing1", dir / "missing2", dir / "c"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.out.empty());  // the pairs found are still written
  EXPECT_EQ(r.err, "neardup: " + (dir / "missing1") +
                       ": No such file or directory (and 1 more problem: drop -q to see them)\n");
  r = RunNeardup({"scan", "-q", "-f", "tsv", dir / "c"}, dir.path());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
}

// A path named in a message on stderr is quoted as ls --quoting-style=
// shell-escape quotes it: no raw newline or escape sequence reaches the
// terminal, and a name with spaces or quotes reads as one shell word. The
// data on stdout keeps the names as they are.
TEST(MessagesTest, PathsInMessagesAreQuotedAsLsShellEscapeDoes) {
  TempDir dir;
  const std::string missing = dir / "no such\nfile\x1B[31m";
  RunResult r = RunNeardup({"scan", missing}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("neardup: '" + dir.path() + "/no such'$'\\n''file'$'\\033''[31m': No such file or directory\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find('\x1B'), std::string::npos);

  std::filesystem::create_directories(dir / "d");
  std::filesystem::create_symlink(dir / "nowhere", dir / "d/it's here");
  WriteFile(dir / "d/a\tb", "x\n");
  const std::string text = Join(RandomWords(80, 9)) + "\n";
  WriteFile(dir / "d/copy 1\n", text);
  WriteFile(dir / "d/copy 2\n", text);
  r = RunNeardup({"scan", "-L", "-v", "--min-words", "3", "--mode", "duplicates", "-0", dir / "d"}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;  // a dangling link is a warning
  EXPECT_NE(r.err.find("neardup: \"" + dir.path() + "/d/it's here\": dangling symbolic link"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("neardup: skipped '" + dir.path() + "/d/a'$'\\t''b': under --min-words"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, dir / "d/copy 2\n" + std::string(1, '\0'));  // stdout: the name as it is

  // --kept-dir: DIR is named quoted when it is refused.
  const std::string kept = dir / "kept here\nx";
  WriteFile(kept, "not a folder\n");
  r = RunNeardup({"scan", "--kept-dir", kept, dir / "d"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("neardup: --kept-dir '" + dir.path() + "/kept here'$'\\n''x' exists and is not a folder"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find(kept), std::string::npos) << r.err;

  // A stage task: the work folder's files are named quoted.
  const std::string work = dir / "work folder\nw";
  std::filesystem::create_directories(work + "/sign");
  r = RunNeardup({"stage", "bucket", "--task", "0", "--tasks", "1", work}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(ShellQuoted(work + "/sign") + ": no sign task has finished"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(work), std::string::npos) << r.err;

  // An index file that is not an index is named quoted.
  const std::string index = dir / "an index\n.db";
  WriteFile(index, "not an SQLite database, only text long enough to be read as a header\n");
  r = RunNeardup({"scan", "--index", index, dir / "d"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("neardup: '" + dir.path() + "/an index'$'\\n''.db': not a neardup index"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find(index), std::string::npos) << r.err;

  // A problem kept in the index is named quoted by the run that reuses it, as by the run that found it.
  WriteFile(dir / "j/a b\n.jsonl", "{\"text\": \"" + text.substr(0, 40) + "\"}\nnot json\n");
  const std::string shown = ShellQuoted(dir / "j/a b\n.jsonl") + ":2: not a JSON object";
  for (const char* run : {"signs", "reuses"}) {
    SCOPED_TRACE(run);
    r = RunNeardup({"scan", "--input", "jsonl", "--index", dir / "j.db", dir / "j"}, dir.path());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("neardup: " + shown + "\n"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace neardup
