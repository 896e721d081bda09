// At home in the shell (#27): the real binary's suggestions, hints, grammar
// and progress, as a user at a terminal meets them.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "test_util.h"

namespace neardup {
namespace {

using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

const std::string kBin = NEARDUP_BINARY;

RunResult Neardup(const TempDir& dir, std::vector<std::string> args) {
  args.insert(args.begin(), kBin);
  return RunProcess(args, dir.path());
}

TEST(SuggestionsTest, AMisspelledOptionNamesTheNearestOne) {
  TempDir dir;
  const RunResult r = Neardup(dir, {"scan", "--treshold", "0.7", dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--treshold; did you mean --threshold?"), std::string::npos) << r.err;
  const RunResult eq = Neardup(dir, {"scan", "--text-kye=body", dir.path()});
  EXPECT_EQ(eq.exit_code, 2);
  EXPECT_NE(eq.err.find("did you mean --text-key?"), std::string::npos) << eq.err;
  // Each command's own options: params has --bands.
  const RunResult params = Neardup(dir, {"params", "--bnds", "4"});
  EXPECT_NE(params.err.find("did you mean --bands?"), std::string::npos) << params.err;
}

TEST(SuggestionsTest, AnOptionFarFromEveryNameGetsNoGuess) {
  TempDir dir;
  const RunResult r = Neardup(dir, {"scan", "--zzzzzzzz", dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--zzzzzzzz"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
}

TEST(SuggestionsTest, AMisspelledCommandNamesTheNearestOne) {
  TempDir dir;
  const RunResult scna = Neardup(dir, {"scna", dir.path()});
  EXPECT_EQ(scna.exit_code, 2);
  EXPECT_NE(scna.err.find("'scna' is not a command; did you mean scan?"), std::string::npos) << scna.err;
  const RunResult sgn = Neardup(dir, {"stage", "sgn", "work"});
  EXPECT_EQ(sgn.exit_code, 2);
  EXPECT_NE(sgn.err.find("did you mean sign?"), std::string::npos) << sgn.err;
}

TEST(SuggestionsTest, BareNeardupPrintsShortUsageAndPointsToHelp) {
  TempDir dir;
  const RunResult r = Neardup(dir, {});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("usage: neardup <command>"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("neardup --help"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("  scan "), std::string::npos) << r.err;
}

TEST(SuggestionsTest, HelpAndVersionAsWordsAndMinusV) {
  TempDir dir;
  const RunResult help = Neardup(dir, {"help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_EQ(help.out, Neardup(dir, {"--help"}).out);
  const RunResult help_scan = Neardup(dir, {"help", "scan"});
  EXPECT_EQ(help_scan.exit_code, 0) << help_scan.err;
  EXPECT_EQ(help_scan.out, Neardup(dir, {"scan", "--help"}).out);
  const std::string version = Neardup(dir, {"--version"}).out;
  ASSERT_EQ(version.rfind("neardup ", 0), 0u) << version;
  for (const char* word : {"version", "-V"}) {
    const RunResult r = Neardup(dir, {word});
    EXPECT_EQ(r.exit_code, 0) << word << ": " << r.err;
    EXPECT_EQ(r.out, version) << word;
  }
}


size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(HintsTest, AJsonlFileReadAsTextNamesInputJsonl) {
  TempDir dir;
  const std::string line = "{\"text\": \"" + testing::Join(testing::RandomWords(50, 3)) + "\"}\n";
  for (const char* name : {"a.jsonl", "b.ndjson"}) WriteFile(dir / name, line + line);
  const RunResult r = Neardup(dir, {"scan", dir.path()});
  EXPECT_EQ(Count(r.err, "--input jsonl"), 1u) << r.err;
  EXPECT_NE(r.err.find(dir / "a.jsonl"), std::string::npos) << r.err;
  const RunResult jsonl = Neardup(dir, {"scan", "--input", "jsonl", dir.path()});
  EXPECT_EQ(jsonl.err.find("add --input jsonl"), std::string::npos) << jsonl.err;
}

TEST(HintsTest, JsonlWarningsOfOneKindAreCappedAndNameTheKeysALineHas) {
  TempDir dir;
  std::string lines;
  for (int i = 0; i < 40; ++i) lines += "{\"body\": \"words " + std::to_string(i) + "\", \"id\": " + std::to_string(i) + "}\n";
  lines += "not json\n";
  WriteFile(dir / "c.jsonl", lines);
  const RunResult r = Neardup(dir, {"scan", "--input", "jsonl", dir / "c.jsonl"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(Count(r.err, "missing key \"text\" (keys: \"body\", \"id\")"), 5u) << r.err;
  EXPECT_NE(r.err.find("neardup: 35 more lines with: missing key \"text\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(":41: not a JSON object"), std::string::npos) << r.err;
  // -v lists them all.
  const RunResult all = Neardup(dir, {"scan", "-v", "--input", "jsonl", dir / "c.jsonl"});
  EXPECT_EQ(Count(all.err, "missing key \"text\""), 40u) << all.err;
}

TEST(HintsTest, ManyInvalidUtf8SequencesNameEncodingLatin1) {
  TempDir dir;
  std::string latin1;
  for (int i = 0; i < 150; ++i) latin1 += "caf\xe9 na\xefve " + std::to_string(i) + " ";
  WriteFile(dir / "mail.txt", latin1);
  const RunResult r = Neardup(dir, {"scan", dir / "mail.txt"});
  EXPECT_NE(r.err.find("300 invalid UTF-8 sequences replaced"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--encoding latin1"), std::string::npos) << r.err;
  const RunResult few = Neardup(dir, {"scan", "--encoding", "latin1", dir / "mail.txt"});
  EXPECT_EQ(few.err.find("--encoding latin1"), std::string::npos) << few.err;
}

TEST(HintsTest, AnEmptyInputSaysSo) {
  TempDir dir;
  std::filesystem::create_directories(dir / "empty");
  const RunResult r = Neardup(dir, {"scan", dir / "empty"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("neardup: no document to compare"), std::string::npos) << r.err;
}

TEST(HintsTest, VerboseNamesEachSkippedFileAndWhy) {
  TempDir dir;
  const std::string words = testing::Join(testing::RandomWords(40, 5));
  WriteFile(dir / "in/a.txt", words);
  WriteFile(dir / "in/.hidden.txt", words);
  WriteFile(dir / "in/big.txt", words + " " + words + " " + words);
  WriteFile(dir / "in/bin.dat", std::string("bin\0ary", 7));
  WriteFile(dir / "in/sub/short.md", "one two");
  WriteFile(dir / "in/skip.log", words);
  const std::vector<std::string> args = {"scan", "--max-filesize", std::to_string(words.size() + 10), "--min-words",
                                         "3", "-g", "!*.log", dir / "in"};
  std::vector<std::string> verbose = args;
  verbose.insert(verbose.begin() + 1, "-v");
  const RunResult r = Neardup(dir, verbose);
  for (const std::string& line :
       {dir / "in/.hidden.txt: hidden", dir / "in/big.txt: over --max-filesize", dir / "in/bin.dat: binary",
        dir / "in/sub/short.md: under --min-words", dir / "in/skip.log: excluded by --glob"}) {
    EXPECT_NE(r.err.find("neardup: skipped " + line + "\n"), std::string::npos) << line << "\n" << r.err;
  }
  EXPECT_EQ(r.err.find(dir / "in/a.txt"), std::string::npos) << r.err;
  // Without -v: counted only.
  const RunResult quiet = Neardup(dir, args);
  EXPECT_EQ(quiet.err.find("skipped " + dir.path()), std::string::npos) << quiet.err;
  EXPECT_NE(quiet.err.find("1 binary"), std::string::npos) << quiet.err;
}

TEST(GrammarTest, OneIsSingularAndSizesHaveAUnit) {
  TempDir dir;
  const std::string text = testing::Join(testing::RandomWords(500, 7));
  WriteFile(dir / "d/a.txt", text);
  WriteFile(dir / "d/b.txt", text);
  const RunResult pairs = Neardup(dir, {"scan", dir / "d"});
  ASSERT_EQ(pairs.exit_code, 0) << pairs.err;
  char size[32];
  std::snprintf(size, sizeof size, "%.1f kB", static_cast<double>(2 * text.size()) / 1000);
  EXPECT_NE(pairs.err.find("neardup: 2 documents (" + std::string(size) + "), "), std::string::npos) << pairs.err;
  EXPECT_NE(pairs.err.find(", 1 exact copy; 0 candidate pairs, 1 pair reported; "), std::string::npos) << pairs.err;
  const RunResult clusters = Neardup(dir, {"scan", "--mode", "clusters", dir / "d"});
  std::snprintf(size, sizeof size, "%.1f kB", static_cast<double>(text.size()) / 1000);
  EXPECT_NE(clusters.err.find("1 cluster of 2 documents, 1 removable (" + std::string(size) + ")"), std::string::npos)
      << clusters.err;
  WriteFile(dir / "s/a.txt", "a few short words here");
  WriteFile(dir / "s/b.txt", "a few short words here");
  const RunResult small = Neardup(dir, {"scan", "--mode", "clusters", dir / "s"});
  EXPECT_NE(small.err.find("2 documents (44 bytes)"), std::string::npos) << small.err;
  EXPECT_NE(small.err.find("1 removable (22 bytes)"), std::string::npos) << small.err;
  const RunResult one = Neardup(dir, {"scan", dir / "d/a.txt"});
  EXPECT_NE(one.err.find("neardup: 1 document ("), std::string::npos) << one.err;
  const RunResult explain = Neardup(dir, {"explain", dir / "d/a.txt"});
  EXPECT_EQ(explain.exit_code, 2);
  EXPECT_NE(explain.err.find("got 1 argument\n"), std::string::npos) << explain.err;
}

}  // namespace
}  // namespace neardup
