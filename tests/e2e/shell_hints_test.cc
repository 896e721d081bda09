// At home in the shell (#27): the real binary's suggestions, hints, grammar
// and progress, as a user at a terminal meets them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "e2e/run_neardup.h"
#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::RunNeardup;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

const std::string kBin = ::neardup::testing::NeardupBinary();

TEST(SuggestionsTest, AMisspelledOptionNamesTheNearestOne) {
  TempDir dir;
  const RunResult r = RunNeardup({"scan", "--treshold", "0.7", dir.path()}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--treshold; did you mean --threshold?"), std::string::npos) << r.err;
  const RunResult eq = RunNeardup({"scan", "--text-kye=body", dir.path()}, dir.path());
  EXPECT_EQ(eq.exit_code, 2);
  EXPECT_NE(eq.err.find("did you mean --text-key?"), std::string::npos) << eq.err;
  // Each command's own options: params has --bands.
  const RunResult params = RunNeardup({"params", "--bnds", "4"}, dir.path());
  EXPECT_NE(params.err.find("did you mean --bands?"), std::string::npos) << params.err;
}

TEST(SuggestionsTest, AnOptionFarFromEveryNameGetsNoGuess) {
  TempDir dir;
  const RunResult r = RunNeardup({"scan", "--zzzzzzzz", dir.path()}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--zzzzzzzz"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
}

TEST(SuggestionsTest, AMisspelledCommandNamesTheNearestOne) {
  TempDir dir;
  const RunResult scna = RunNeardup({"scna", dir.path()}, dir.path());
  EXPECT_EQ(scna.exit_code, 2);
  EXPECT_NE(scna.err.find("'scna' is not a command; did you mean scan?"), std::string::npos) << scna.err;
  const RunResult sgn = RunNeardup({"stage", "sgn", "work"}, dir.path());
  EXPECT_EQ(sgn.exit_code, 2);
  EXPECT_NE(sgn.err.find("did you mean sign?"), std::string::npos) << sgn.err;
}

TEST(SuggestionsTest, AMisspelledOperandNamesTheNearestValue) {
  TempDir dir;
  const RunResult index = RunNeardup({"index", "inf", dir / "x.db"}, dir.path());
  EXPECT_EQ(index.exit_code, 2);
  EXPECT_EQ(index.err, "neardup: ACTION must be info or check, got inf; did you mean info?\n");
  const RunResult shell = RunNeardup({"completions", "bsh"}, dir.path());
  EXPECT_EQ(shell.err, "neardup: SHELL must be bash, zsh or fish, got bsh; did you mean bash?\n");
}

TEST(SuggestionsTest, BareNeardupPrintsShortUsageAndPointsToHelp) {
  TempDir dir;
  const RunResult r = RunNeardup({}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("usage: neardup <command>"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("neardup --help"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("  scan "), std::string::npos) << r.err;
}

TEST(SuggestionsTest, HelpAndVersionAsWordsAndMinusV) {
  TempDir dir;
  const RunResult help = RunNeardup({"help"}, dir.path());
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_EQ(help.out, RunNeardup({"--help"}, dir.path()).out);
  const RunResult help_scan = RunNeardup({"help", "scan"}, dir.path());
  EXPECT_EQ(help_scan.exit_code, 0) << help_scan.err;
  EXPECT_EQ(help_scan.out, RunNeardup({"scan", "--help"}, dir.path()).out);
  const std::string version = RunNeardup({"--version"}, dir.path()).out;
  ASSERT_EQ(version.rfind("neardup ", 0), 0u) << version;
  for (const char* word : {"version", "-V"}) {
    const RunResult r = RunNeardup({word}, dir.path());
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
  const RunResult r = RunNeardup({"scan", dir.path()}, dir.path());
  EXPECT_EQ(Count(r.err, "--input jsonl"), 1u) << r.err;
  EXPECT_NE(r.err.find(dir / "a.jsonl"), std::string::npos) << r.err;
  const RunResult jsonl = RunNeardup({"scan", "--input", "jsonl", dir.path()}, dir.path());
  EXPECT_EQ(jsonl.err.find("add --input jsonl"), std::string::npos) << jsonl.err;
}

TEST(HintsTest, JsonlWarningsOfOneKindAreCappedAndNameTheKeysALineHas) {
  TempDir dir;
  std::string lines;
  for (int i = 0; i < 40; ++i)
    lines += "{\"body\": \"words " + std::to_string(i) + "\", \"id\": " + std::to_string(i) + "}\n";
  lines += "not json\n";
  WriteFile(dir / "c.jsonl", lines);
  const RunResult r = RunNeardup({"scan", "--input", "jsonl", dir / "c.jsonl"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(Count(r.err, "missing key \"text\" (keys: \"body\", \"id\")"), 5u) << r.err;
  EXPECT_NE(r.err.find("neardup: 35 more lines with: missing key \"text\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(":41: not a JSON object"), std::string::npos) << r.err;
  // -v lists them all.
  const RunResult all = RunNeardup({"scan", "-v", "--input", "jsonl", dir / "c.jsonl"}, dir.path());
  EXPECT_EQ(Count(all.err, "missing key \"text\""), 40u) << all.err;
}

TEST(HintsTest, ManyInvalidUtf8SequencesNameEncodingLatin1) {
  TempDir dir;
  std::string latin1;
  for (int i = 0; i < 150; ++i) latin1 += "caf\xe9 na\xefve " + std::to_string(i) + " ";
  WriteFile(dir / "mail.txt", latin1);
  const RunResult r = RunNeardup({"scan", dir / "mail.txt"}, dir.path());
  EXPECT_NE(r.err.find("300 invalid UTF-8 sequences replaced"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--encoding latin1"), std::string::npos) << r.err;
  const RunResult few = RunNeardup({"scan", "--encoding", "latin1", dir / "mail.txt"}, dir.path());
  EXPECT_EQ(few.err.find("--encoding latin1"), std::string::npos) << few.err;
}

// With --index, a run that reads nothing new does not advise again on the
// encoding of files it reused (#41); a new file is advised on alone.
TEST(HintsTest, TheEncodingAdviceIsNotRepeatedForFilesReusedFromTheIndex) {
  TempDir dir;
  std::string latin1;
  for (int i = 0; i < 150; ++i) latin1 += "caf\xe9 na\xefve " + std::to_string(i) + " ";
  WriteFile(dir / "in/mail.txt", latin1);
  const std::vector<std::string> args = {"scan", "--index", dir / "idx.db", dir / "in"};
  const RunResult first = RunNeardup(args, dir.path());
  EXPECT_EQ(Count(first.err, "--encoding latin1"), 1u) << first.err;
  const RunResult again = RunNeardup(args, dir.path());
  EXPECT_NE(again.err.find("index: 1 reused, 0 signed"), std::string::npos) << again.err;
  EXPECT_EQ(again.err.find("--encoding latin1"), std::string::npos) << again.err;
  std::string more;
  for (int i = 0; i < 60; ++i) more += "\xe0 la cr\xe8me " + std::to_string(i) + " ";
  WriteFile(dir / "in/new.txt", more);
  const RunResult grown = RunNeardup(args, dir.path());
  EXPECT_NE(grown.err.find("120 invalid UTF-8 sequences replaced"), std::string::npos) << grown.err;
  EXPECT_EQ(grown.err.find("420 invalid UTF-8 sequences"), std::string::npos) << grown.err;
}

// --input jsonl over text files: one warning for the run, naming a file and
// --input text, not one a line (#41); -v still lists the lines.
TEST(HintsTest, JsonlInputOverFilesThatAreNotJsonlSaysSoOnce) {
  TempDir dir;
  for (const char* name : {"a.txt", "b.md", "c.txt"}) {
    std::string text;
    for (int line = 0; line < 12; ++line) text += testing::Join(testing::RandomWords(10, line + 40)) + "\n";
    WriteFile(dir / (std::string("in/") + name), text);
  }
  const RunResult r = RunNeardup({"scan", "--input", "jsonl", dir / "in"}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;  // the lines are still malformed
  EXPECT_EQ(Count(r.err, "not JSONL"), 1u) << r.err;
  EXPECT_NE(
      r.err.find(dir / "in/a.txt" + " and 2 more files are not JSONL: none of their 36 lines is a JSON object "
                                    "(skipped as malformed); to read each file as one document, use --input text"),
      std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find(dir / "in/a.txt:1:"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("more lines with"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("36 malformed lines"), std::string::npos) << r.err;
  const RunResult one = RunNeardup({"scan", "--input", "jsonl", dir / "in/b.md"}, dir.path());
  EXPECT_NE(one.err.find(dir / "in/b.md" + " is not JSONL: none of its 12 lines is a JSON object"), std::string::npos)
      << one.err;
  const RunResult verbose = RunNeardup({"scan", "-v", "--input", "jsonl", dir / "in/b.md"}, dir.path());
  EXPECT_EQ(Count(verbose.err, dir / "in/b.md:"), 12u) << verbose.err;
  // A JSONL file with a bad line is JSONL: its line is named as before.
  const std::string good = "{\"text\": \"" + testing::Join(testing::RandomWords(20, 3)) + "\"}\n";
  WriteFile(dir / "j/d.jsonl", good + "not json at all\n" + good);
  const RunResult jsonl = RunNeardup({"scan", "--input", "jsonl", dir / "j"}, dir.path());
  EXPECT_EQ(jsonl.err.find("not JSONL"), std::string::npos) << jsonl.err;
  EXPECT_NE(jsonl.err.find(dir / "j/d.jsonl:2: "), std::string::npos) << jsonl.err;
}

// A Parquet file found in a folder of a text or JSONL run is named, once,
// as read by --input parquet (#41, #45), and counted as the binary file it
// was counted as before.
TEST(HintsTest, AParquetFileInATextRunSaysHowItIsRead) {
  TempDir dir;
  constexpr char kChunk[] = "\x15\x04\x00\x19 col text\n";
  std::string parquet = "PAR1";
  for (int i = 0; i < 200; ++i) parquet += std::string(kChunk, sizeof kChunk - 1);
  WriteFile(dir / "in/part-0.parquet", parquet + "PAR1");
  WriteFile(dir / "in/a.txt", testing::Join(testing::RandomWords(100, 5)));
  const std::string notice = dir / "in/part-0.parquet" +
                             ": a Parquet file, not read: each of its rows is a document with --input parquet (a "
                             "run reads one kind of input)";
  const RunResult text = RunNeardup({"scan", dir / "in"}, dir.path());
  EXPECT_EQ(text.exit_code, 1) << text.err;
  EXPECT_EQ(Count(text.err, "Parquet"), 1u) << text.err;  // one line
  EXPECT_NE(text.err.find("neardup: " + notice + "\n"), std::string::npos) << text.err;
  EXPECT_NE(text.err.find("(skipped: 1 binary)"), std::string::npos) << text.err;
  WriteFile(dir / "j/d.jsonl", "{\"text\": \"" + testing::Join(testing::RandomWords(20, 3)) + "\"}\n");
  WriteFile(dir / "j/e.PARQUET", parquet);
  const RunResult jsonl = RunNeardup({"scan", "--input", "jsonl", dir / "j"}, dir.path());
  EXPECT_EQ(jsonl.exit_code, 1) << jsonl.err;  // no malformed line: the file is not read
  EXPECT_NE(jsonl.err.find(dir / "j/e.PARQUET: a Parquet file, not read"), std::string::npos) << jsonl.err;
  EXPECT_EQ(jsonl.err.find("malformed"), std::string::npos) << jsonl.err;
}

// .gitignore files are honoured by default, as ripgrep does; --no-ignore
// reads everything; what they leave out is counted and, with -v, named (#41).
TEST(HintsTest, GitignoreFilesAreHonouredUnlessNoIgnore) {
  TempDir dir;
  const std::string text = testing::Join(testing::RandomWords(300, 51));
  WriteFile(dir / "in/a.txt", text);
  WriteFile(dir / "in/out/a-copy.txt", text);
  WriteFile(dir / "in/.gitignore", "out/\n");
  const RunResult r = RunNeardup({"scan", dir / "in"}, dir.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("(skipped: 1 hidden, 1 ignored (.ignore, .gitignore, --ignore-file))"), std::string::npos)
      << r.err;
  const RunResult verbose = RunNeardup({"scan", "-v", dir / "in"}, dir.path());
  EXPECT_NE(verbose.err.find("skipped " + dir / "in/out" + ": ignored (.ignore, .gitignore or --ignore-file)"),
            std::string::npos)
      << verbose.err;
  const RunResult all = RunNeardup({"scan", "--no-ignore", dir / "in"}, dir.path());
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find(dir / "in/out/a-copy.txt"), std::string::npos) << all.out;
  // --ignore-file adds its patterns; --no-ignore leaves them in force.
  WriteFile(dir / "list", "a.txt\n");
  const RunResult listed = RunNeardup({"scan", "--ignore-file", dir / "list", dir / "in"}, dir.path());
  EXPECT_EQ(listed.exit_code, 1) << listed.err;
  EXPECT_NE(listed.err.find(", 2 ignored ("), std::string::npos) << listed.err;
  const RunResult listed_only =
      RunNeardup({"scan", "--no-ignore", "--ignore-file", dir / "list", dir / "in"}, dir.path());
  EXPECT_EQ(listed_only.exit_code, 1) << listed_only.err;
  EXPECT_NE(listed_only.err.find(", 1 ignored ("), std::string::npos) << listed_only.err;
}

TEST(HintsTest, AnEmptyInputSaysSo) {
  TempDir dir;
  std::filesystem::create_directories(dir / "empty");
  const RunResult r = RunNeardup({"scan", dir / "empty"}, dir.path());
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
  const std::vector<std::string> args = {
      "scan", "--max-filesize", std::to_string(words.size() + 10), "--min-words", "3", "-g", "!*.log", dir / "in"};
  std::vector<std::string> verbose = args;
  verbose.insert(verbose.begin() + 1, "-v");
  const RunResult r = RunNeardup(verbose, dir.path());
  for (const std::string& line :
       {dir / "in/.hidden.txt: hidden", dir / "in/big.txt: over --max-filesize", dir / "in/bin.dat: binary",
        dir / "in/sub/short.md: under --min-words", dir / "in/skip.log: excluded by --glob"}) {
    EXPECT_NE(r.err.find("neardup: skipped " + line + "\n"), std::string::npos) << line << "\n" << r.err;
  }
  EXPECT_EQ(r.err.find(dir / "in/a.txt"), std::string::npos) << r.err;
  // Without -v: counted only.
  const RunResult quiet = RunNeardup(args, dir.path());
  EXPECT_EQ(quiet.err.find("skipped " + dir.path()), std::string::npos) << quiet.err;
  EXPECT_NE(quiet.err.find("1 binary"), std::string::npos) << quiet.err;
}

TEST(GrammarTest, OneIsSingularAndSizesHaveAUnit) {
  TempDir dir;
  const std::string text = testing::Join(testing::RandomWords(500, 7));
  WriteFile(dir / "d/a.txt", text);
  WriteFile(dir / "d/b.txt", text);
  const RunResult pairs = RunNeardup({"scan", dir / "d"}, dir.path());
  ASSERT_EQ(pairs.exit_code, 0) << pairs.err;
  char size[32];
  std::snprintf(size, sizeof size, "%.1f kB", static_cast<double>(2 * text.size()) / 1000);
  EXPECT_NE(pairs.err.find("neardup: 2 documents (" + std::string(size) + "), "), std::string::npos) << pairs.err;
  EXPECT_NE(pairs.err.find(", 1 exact copy; 0 candidate pairs, 1 pair reported; "), std::string::npos) << pairs.err;
  const RunResult clusters = RunNeardup({"scan", "--mode", "clusters", dir / "d"}, dir.path());
  std::snprintf(size, sizeof size, "%.1f kB", static_cast<double>(text.size()) / 1000);
  EXPECT_NE(clusters.err.find("1 cluster of 2 documents, 1 removable (" + std::string(size) + ")"), std::string::npos)
      << clusters.err;
  WriteFile(dir / "s/a.txt", "a few short words here");
  WriteFile(dir / "s/b.txt", "a few short words here");
  const RunResult small = RunNeardup({"scan", "--mode", "clusters", dir / "s"}, dir.path());
  EXPECT_NE(small.err.find("2 documents (44 bytes)"), std::string::npos) << small.err;
  EXPECT_NE(small.err.find("1 removable (22 bytes)"), std::string::npos) << small.err;
  const RunResult one = RunNeardup({"scan", dir / "d/a.txt"}, dir.path());
  EXPECT_NE(one.err.find("neardup: 1 document ("), std::string::npos) << one.err;
  const RunResult explain = RunNeardup({"explain", dir / "d/a.txt"}, dir.path());
  EXPECT_EQ(explain.exit_code, 2);
  EXPECT_NE(explain.err.find("got 1 argument\n"), std::string::npos) << explain.err;
}

// Every count said on stderr agrees with its number (#41): "kept: 1 file",
// "1 malformed line", "1 special file ... was not read".
TEST(GrammarTest, CountsOfOneAreSingularInTheSummaryAndHints) {
  TempDir dir;
  WriteFile(dir / "one/a.txt", testing::Join(testing::RandomWords(200, 21)));
  const RunResult kept = RunNeardup({"scan", "--kept-dir", dir / "kept", dir / "one"}, dir.path());
  EXPECT_EQ(kept.exit_code, 1) << kept.err;
  EXPECT_NE(kept.err.find("; kept: 1 file, 1 document written, 0 left out;"), std::string::npos) << kept.err;
  WriteFile(dir / "two/a.txt", testing::Join(testing::RandomWords(200, 21)));
  WriteFile(dir / "two/b.txt", testing::Join(testing::RandomWords(200, 22)));
  const RunResult two = RunNeardup({"scan", "--kept-dir", dir / "kept2", dir / "two"}, dir.path());
  EXPECT_NE(two.err.find("; kept: 2 files, 2 documents written, 0 left out;"), std::string::npos) << two.err;
  WriteFile(dir / "bad.jsonl", "not json\n");
  const RunResult bad = RunNeardup({"scan", "--input", "jsonl", dir / "bad.jsonl"}, dir.path());
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find(", 1 malformed line)"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find("1 malformed lines"), std::string::npos) << bad.err;
}

// explain -f json writes its scores as scan writes them: 4 decimals at most,
// the same digits (#41).
TEST(GrammarTest, ExplainJsonScoresHaveTheDigitsOfScan) {
  TempDir dir;
  std::vector<std::string> words = testing::RandomWords(300, 31);
  WriteFile(dir / "a.txt", testing::Join(words));
  for (size_t i = 0; i < words.size(); i += 9) words[i] = "changed";
  WriteFile(dir / "b.txt", testing::Join(words));
  const auto number = [](const std::string& text, const std::string& key) {
    const size_t at = text.find("\"" + key + "\":");
    if (at == std::string::npos) return std::string("missing");
    size_t start = at + key.size() + 3;
    while (start < text.size() && text[start] == ' ') ++start;
    return text.substr(start, text.find_first_of(",}\n", start) - start);
  };
  const RunResult scan = RunNeardup({"scan", "--exact", "-t", "0.05", dir / "a.txt", dir / "b.txt"}, dir.path());
  ASSERT_EQ(scan.exit_code, 0) << scan.err;
  const RunResult explain =
      RunNeardup({"explain", "--exact", "-t", "0.05", "-f", "json", dir / "a.txt", dir / "b.txt"}, dir.path());
  ASSERT_EQ(explain.exit_code, 0) << explain.err;
  for (const char* key : {"jaccard", "estimate"}) {
    const std::string shown = number(explain.out, key);
    EXPECT_EQ(shown, number(scan.out, key)) << key << "\n" << explain.out << "\n" << scan.out;
    const size_t dot = shown.find('.');
    EXPECT_TRUE(dot == std::string::npos || shown.size() - dot - 1 <= 4) << key << ": " << shown;
  }
  for (const char* key : {"standard_error", "candidate_probability"}) {
    const std::string shown = number(explain.out, key);
    const size_t dot = shown.find('.');
    EXPECT_TRUE(dot == std::string::npos || shown.size() - dot - 1 <= 4) << key << ": " << shown;
  }
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

extern "C" char** environ;

// Starts `argv` with stdin from /dev/null and stdout, stderr into `log`;
// returns its pid.
pid_t Start(const std::vector<std::string>& argv, const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> raw;
  for (const std::string& a : argv) raw.push_back(const_cast<char*>(a.c_str()));
  raw.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawnp(&pid, raw[0], &actions, nullptr, raw.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// Waits until `path` holds `what` (at most a minute: the run is blocked on
// a FIFO the test holds, so it comes at once on any machine).
bool WaitFor(const std::string& path, const std::string& what) {
  for (int i = 0; i < 600; ++i) {
    if (Slurp(path).find(what) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// A scan of a.txt then the FIFO `fifo` (read as a stream), with one worker:
// it stays in its reading stage, one of two inputs read, until the FIFO is
// written and closed.
struct BlockedScan {
  TempDir dir;
  std::string fifo = dir / "z.fifo";
  std::vector<std::string> Args(const std::string& output) {
    WriteFile(dir / "a.txt", testing::Join(testing::RandomWords(300, 11)));
    EXPECT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    return {kBin, "scan", "-j", "1", dir / "a.txt", fifo, "-o", output};
  }
  // Opens the FIFO (the run is reading it), writes a document and closes it.
  void Release(int fd) {
    const std::string text = testing::Join(testing::RandomWords(300, 12));
    EXPECT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ::close(fd);
  }
};

TEST(ProgressTest, OnATerminalTheReadingLineShowsTheShareAndTimeLeft) {
  BlockedScan scan;
  const std::vector<std::string> args = scan.Args(scan.dir / "out.jsonl");
  std::string command;
  for (const std::string& a : args) command += "'" + a + "' ";
  const std::string typescript = scan.dir / "typescript";
  // script(1) runs neardup on a pseudo-terminal: stderr is a terminal.
  const pid_t pid = Start({"script", "-qfec", command, typescript}, scan.dir / "script.log");
  ASSERT_GT(pid, 0);
  const int fd = ::open(scan.fifo.c_str(), O_WRONLY);  // waits for neardup to open it
  ASSERT_GE(fd, 0);
  // a.txt is read: 1 of 2 inputs; after a second in the stage, the time left.
  const bool shown = WaitFor(typescript, "s left\033[K");
  scan.Release(fd);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const std::string screen = Slurp(typescript);
  ASSERT_TRUE(shown) << screen;
  EXPECT_NE(screen.find("\rneardup: reading 50% (1/2 files, "), std::string::npos) << screen;
  EXPECT_NE(screen.find("\rneardup: writing the output\033[K"), std::string::npos) << screen;
  // Cleared before the summary, which counts the whole run.
  EXPECT_NE(screen.find("\r\033[Kneardup: 2 documents ("), std::string::npos) << screen;
}

// Writing a large output moves too: the bytes written so far. 300 light
// edits of one text are about 45,000 pairs (4 MB); the output is a FIFO the
// test reads slowly, so that writing takes over a second.
TEST(ProgressTest, OnATerminalWritingTheOutputCountsItsBytes) {
  TempDir dir;
  const std::vector<std::string> words = testing::RandomWords(300, 17);
  for (int i = 0; i < 300; ++i) {
    std::vector<std::string> w = words;
    w[static_cast<size_t>(i)] = "edit" + std::to_string(i);
    WriteFile(dir / ("d/" + std::to_string(i) + ".txt"), testing::Join(w));
  }
  const std::string out = dir / "out.fifo";
  ASSERT_EQ(::mkfifo(out.c_str(), 0600), 0);
  const std::string command = "'" + kBin + "' scan '" + (dir / "d") + "' -o '" + out + "'";
  const std::string typescript = dir / "typescript";
  const pid_t pid = Start({"script", "-qfec", command, typescript}, dir / "script.log");
  ASSERT_GT(pid, 0);
  const int fd = ::open(out.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  std::vector<char> buf(1 << 16);
  uint64_t got = 0;
  const auto start = std::chrono::steady_clock::now();
  for (ssize_t n = 1; n > 0;) {
    n = ::read(fd, buf.data(), buf.size());
    if (n > 0) got += static_cast<uint64_t>(n);
    // Slowly for the first 1.5 s, then as fast as it comes.
    if (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1500)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  ::close(fd);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const std::string screen = Slurp(typescript);
  EXPECT_GT(got, uint64_t{1} << 20);
  EXPECT_NE(screen.find("\rneardup: writing the output\033[K"), std::string::npos) << screen;
  const size_t at = screen.find("\rneardup: writing the output, ");
  ASSERT_NE(at, std::string::npos) << screen;
  const std::string line = screen.substr(at + 1, screen.find('\033', at) - at - 1);
  EXPECT_TRUE(line.ends_with(" kB") || line.ends_with(" MB")) << line;
}

TEST(ProgressTest, IntoAFileProgressIsPlainLinesEveryFiveSeconds) {
  BlockedScan scan;
  std::vector<std::string> args = scan.Args(scan.dir / "out.jsonl");
  args.insert(args.begin() + 2, "--progress");
  const std::string log = scan.dir / "progress.log";
  const pid_t pid = Start(args, log);
  ASSERT_GT(pid, 0);
  const int fd = ::open(scan.fifo.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  const bool shown = WaitFor(log, "neardup: walking");
  // Six seconds of reading: one more line (at 5 s), not thirty.
  std::this_thread::sleep_for(std::chrono::seconds(6));
  scan.Release(fd);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const std::string text = Slurp(log);
  ASSERT_TRUE(shown) << text;
  EXPECT_EQ(text.find_first_of("\r\033"), std::string::npos) << text;
  EXPECT_GE(Count(text, "neardup: reading "), 1u) << text;
  EXPECT_LE(Count(text, "\n"), 4u) << text;  // walking, reading, the summary (and one more at most)
  EXPECT_NE(text.find("neardup: reading 50% (1/2 files, "), std::string::npos) << text;
  EXPECT_NE(text.find("\nneardup: 2 documents ("), std::string::npos) << text;
}

TEST(ProgressTest, TheSummaryTimeCoversTheWholeRunWithItsOutput) {
  TempDir dir;
  const std::string text = testing::Join(testing::RandomWords(300, 13));
  WriteFile(dir / "d/a.txt", text);
  WriteFile(dir / "d/b.txt", text);
  // -o a FIFO: the output waits for its reader, whom the test keeps waiting.
  const std::string out = dir / "out.fifo";
  ASSERT_EQ(::mkfifo(out.c_str(), 0600), 0);
  const std::string log = dir / "stderr.log";
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = Start({kBin, "scan", dir / "d", "-o", out}, log);
  ASSERT_GT(pid, 0);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const int fd = ::open(out.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  char buf[4096];
  while (::read(fd, buf, sizeof buf) > 0) {
  }
  ::close(fd);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string err = Slurp(log);
  const size_t at = err.rfind("; ");
  ASSERT_NE(at, std::string::npos) << err;
  const double said = std::stod(err.substr(at + 2));
  // The scan itself takes about 0.01 s; the rest is the wait for the reader.
  // The child's clock starts after its exec (slower under a sanitizer, or on
  // a loaded machine), so it may count a little under the 2 s the test
  // waited, and the summary rounds to 0.01 s.
  EXPECT_GE(said, 1.5) << err;
  EXPECT_LE(said, took + 0.01) << err;
}

}  // namespace
}  // namespace neardup
