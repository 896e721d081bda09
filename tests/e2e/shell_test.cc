// End to end: neardup at home in the shell (#27). The real binary's help,
// completion scripts, man page, --color and the width of explain's diff.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_options.h"
#include "e2e/run_neardup.h"
#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::RandomWords;
using testing::RunNeardup;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::With;
using testing::WriteFile;

const std::string kBin = ::neardup::testing::NeardupBinary();

// `neardup <words> --help`: every command and every stage task.
std::vector<std::vector<std::string>> EveryCommand() {
  std::vector<std::vector<std::string>> commands = {{}};
  for (const cli::CommandInfo& info : cli::kCommands) commands.push_back({info.name});
  for (const cli::StageInfo& stage : cli::kStageCommands) commands.push_back({"stage", stage.name});
  return commands;
}

std::string Help(const std::vector<std::string>& words, const TempDir& dir) {
  const RunResult r = RunNeardup(With(words, {"--help"}), dir.path());
  EXPECT_EQ(r.exit_code, 0);
  return r.out;
}

TEST(ShellHelpTest, HelpHasNoLeftoversOfTheParser) {
  TempDir dir;
  for (const std::vector<std::string>& words : EveryCommand()) {
    const std::string help = Help(words, dir);
    SCOPED_TRACE(words.empty() ? "neardup" : words.back());
    ASSERT_FALSE(help.empty());
    EXPECT_EQ(help.find("Excludes"), std::string::npos) << help;
    EXPECT_EQ(help.find("REQUIRED"), std::string::npos) << help;
    EXPECT_EQ(help.find(" TEXT"), std::string::npos) << help;
    EXPECT_EQ(help.find("......"), std::string::npos) << help;
    EXPECT_EQ(help.find("\n\n\n"), std::string::npos) << help;
    EXPECT_FALSE(help.ends_with("\n\n")) << help;
  }
}

TEST(ShellHelpTest, TheExitStatusIsSaidWhereItMeansSomething) {
  TempDir dir;
  const std::string kExit = "Exit status: 0 something reported";
  for (const char* command : {"scan", "explain"}) {
    EXPECT_NE(Help({command}, dir).find(kExit), std::string::npos) << command;
  }
  EXPECT_NE(Help({"stage", "report"}, dir).find(kExit), std::string::npos);
  for (const char* command : {"params", "completions", "manpage", "index"}) {
    EXPECT_EQ(Help({command}, dir).find(kExit), std::string::npos) << command;
  }
}

TEST(ShellHelpTest, ExplainListsOnlyTheFormatsItAccepts) {
  TempDir dir;
  const std::string explain = Help({"explain"}, dir);
  EXPECT_NE(explain.find("-f,--format json [text]"), std::string::npos) << explain;
  EXPECT_EQ(explain.find("csv"), std::string::npos) << explain;
  EXPECT_EQ(explain.find("|html ["), std::string::npos) << explain;  // (--strip's html is no format)
  EXPECT_NE(explain.find("--color auto|always|never [auto]"), std::string::npos) << explain;
  const std::string scan = Help({"scan"}, dir);
  EXPECT_NE(scan.find("-f,--format jsonl|json|csv|tsv|html [jsonl]"), std::string::npos);
  EXPECT_EQ(scan.find("explain: json"), std::string::npos);
  EXPECT_EQ(scan.find("--color"), std::string::npos);
  // What the help says is what the parser does.
  const RunResult csv = RunNeardup({"explain", "-f", "csv", "a", "b"}, dir.path());
  EXPECT_EQ(csv.exit_code, 2);
  EXPECT_NE(csv.err.find("--format must be json, got csv"), std::string::npos) << csv.err;
}

// bash, reading the script the binary prints, completes `words` (the last
// one being typed) to `expected`.
void ExpectBashCompletes(const std::string& script, const std::string& words, const std::string& expected) {
  TempDir dir;
  WriteFile(dir.path() + "/neardup.bash", script);
  WriteFile(dir.path() + "/index.db", "");
  const std::string command = "cd " + dir.path() + " && source neardup.bash && COMP_WORDS=(" + words +
                              ") && COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && { _neardup; echo \"${COMPREPLY[*]}\"; }";
  const RunResult r = RunProcess({"/bin/bash", "-c", command}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, expected + "\n") << words;
}

TEST(ShellCompletionTest, EachCommandCompletesOnlyWhatItAccepts) {
  TempDir dir;
  const RunResult bash = RunNeardup({"completions", "bash"}, dir.path());
  ASSERT_EQ(bash.exit_code, 0);
  ExpectBashCompletes(bash.out, "neardup index ''", "info check");
  ExpectBashCompletes(bash.out, "neardup index in", "info");
  ExpectBashCompletes(bash.out, "neardup index info ind", "index.db");
  ExpectBashCompletes(bash.out, "neardup explain -f ''", "json");
  ExpectBashCompletes(bash.out, "neardup explain --color ''", "auto always never");
  ExpectBashCompletes(bash.out, "neardup scan -f ''", "jsonl json csv tsv html");
  ExpectBashCompletes(bash.out, "neardup scan --co", "");

  const RunResult zsh = RunNeardup({"completions", "zsh"}, dir.path());
  EXPECT_NE(zsh.out.find("'1:action:(info check)'"), std::string::npos);
  EXPECT_NE(zsh.out.find("{-f,--format}'[Print one JSON object instead of text]:json:(json)'"), std::string::npos);
  const RunResult fish = RunNeardup({"completions", "fish"}, dir.path());
  EXPECT_NE(fish.out.find("__fish_seen_subcommand_from index; and not __fish_seen_subcommand_from info check' "
                          "-x -a 'info check'"),
            std::string::npos);
  EXPECT_NE(fish.out.find("'__fish_seen_subcommand_from explain' -s f -l format -x -a 'json'"), std::string::npos);
  EXPECT_EQ(fish.out.find("'__fish_seen_subcommand_from explain' -s f -l format -x -a 'jsonl"), std::string::npos);
}

// Two documents of 600 words that differ in a few words, far apart.
void WritePair(const TempDir& dir) {
  std::string a = testing::Join(RandomWords(600, 27));
  std::string b = a;
  for (const size_t at : {size_t{40}, a.size() / 2, a.size() - 60}) {
    const size_t space = b.find(' ', at);
    b.insert(space + 1, "inserted ");
  }
  WriteFile(dir.path() + "/a.txt", a);
  WriteFile(dir.path() + "/b.txt", b);
}

// The lines of explain's word diff (after its heading).
std::vector<std::string> DiffLines(const std::string& out) {
  std::vector<std::string> lines;
  const size_t heading = out.find("word diff of the normalized words");
  EXPECT_NE(heading, std::string::npos) << out;
  if (heading == std::string::npos) return lines;
  size_t start = out.find('\n', heading) + 1;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    std::string line = out.substr(start, end - start);
    if (line.ends_with('\r')) line.pop_back();
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

size_t Longest(const std::vector<std::string>& lines) {
  size_t longest = 0;
  for (const std::string& line : lines) longest = std::max(longest, line.size());
  return longest;
}

constexpr const char* kGreen = "\x1b[32m";  // added words

TEST(ShellColorTest, ColorAlwaysColoursIntoAPipeAndNeverDoesNot) {
  TempDir dir;
  WritePair(dir);
  const std::string a = dir.path() + "/a.txt", b = dir.path() + "/b.txt";
  const RunResult piped = RunProcess({"/usr/bin/env", "-u", "NO_COLOR", kBin, "explain", a, b}, dir.path());
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out.find(kGreen), std::string::npos);
  EXPECT_NE(piped.out.find("{+inserted+}"), std::string::npos);
  // always: even into a pipe, and even with NO_COLOR (which only tempers auto).
  const RunResult always =
      RunProcess({"/usr/bin/env", "NO_COLOR=1", kBin, "explain", "--color", "always", a, b}, dir.path());
  EXPECT_EQ(always.exit_code, 0);
  EXPECT_NE(always.out.find("\x1b[32minserted\x1b[m"), std::string::npos) << always.out;
  EXPECT_EQ(always.out.find("{+"), std::string::npos);
  const RunResult never = RunNeardup({"explain", "--color=NEVER", a, b}, dir.path());
  EXPECT_EQ(never.out, piped.out);
  const RunResult bad = RunNeardup({"explain", "--color", "yes", a, b}, dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--color must be auto, always or never, got yes"), std::string::npos) << bad.err;
}

// On a terminal (script(1) gives one): auto colours, NO_COLOR wins over
// auto, never does not colour.
TEST(ShellColorTest, AutoColoursOnATerminalUnlessNoColorIsSet) {
  if (!std::filesystem::exists("/usr/bin/script")) GTEST_SKIP() << "no script(1)";
  TempDir dir;
  WritePair(dir);
  const std::string args = " explain " + dir.path() + "/a.txt " + dir.path() + "/b.txt";
  auto on_tty = [&](const std::string& command) {
    return RunProcess({"/usr/bin/script", "-qec", command, "/dev/null"}, dir.path()).out;
  };
  EXPECT_NE(on_tty("env -u NO_COLOR " + kBin + args).find(kGreen), std::string::npos);
  EXPECT_EQ(on_tty("env NO_COLOR=1 " + kBin + args).find(kGreen), std::string::npos);
  EXPECT_EQ(on_tty("env -u NO_COLOR " + kBin + args + " --color never").find(kGreen), std::string::npos);
  // The terminal's own width, when COLUMNS is not set.
  const std::vector<std::string> wide =
      DiffLines(on_tty("stty cols 150; env -u COLUMNS " + kBin + args + " --color never"));
  EXPECT_GT(Longest(wide), 120u);
  EXPECT_LE(Longest(wide), 148u);
}

TEST(ShellColorTest, TheDiffWrapsToTheWidthOfTheTerminal) {
  TempDir dir;
  WritePair(dir);
  const std::string a = dir.path() + "/a.txt", b = dir.path() + "/b.txt";
  const RunResult narrow = RunProcess({"/usr/bin/env", "COLUMNS=40", kBin, "explain", a, b}, dir.path());
  const RunResult wide = RunProcess({"/usr/bin/env", "COLUMNS=160", kBin, "explain", a, b}, dir.path());
  const RunResult piped = RunProcess({"/usr/bin/env", "-u", "COLUMNS", kBin, "explain", a, b}, dir.path());
  EXPECT_LE(Longest(DiffLines(narrow.out)), 38u);
  EXPECT_GT(Longest(DiffLines(narrow.out)), 30u);
  EXPECT_LE(Longest(DiffLines(wide.out)), 158u);
  EXPECT_GT(Longest(DiffLines(wide.out)), 130u);
  EXPECT_LE(Longest(DiffLines(piped.out)), 78u);  // not a terminal: 80 columns
  EXPECT_GT(Longest(DiffLines(piped.out)), 60u);
  EXPECT_GT(DiffLines(narrow.out).size(), DiffLines(wide.out).size());
}

// The path of a tool the man page is checked with, or "" when the machine
// lacks it (RunProcess takes a path, not a name).
std::string Tool(const std::string& name) {
  for (const char* dir : {"/usr/bin/", "/bin/", "/usr/local/bin/"}) {
    if (std::filesystem::exists(dir + name)) return dir + name;
  }
  return "";
}
bool Have(const std::string& name) { return !Tool(name).empty(); }

// Text as a terminal shows it: man's overstrikes ("N\bN" bold, "_\bN"
// underlined) become the character.
std::string Plain(const std::string& text) {
  std::string plain;
  for (size_t i = 0; i < text.size(); ++i) {
    if (i + 1 < text.size() && text[i + 1] == '\b') {
      ++i;
      continue;
    }
    plain += text[i];
  }
  return plain;
}

TEST(ShellManPageTest, HasASectionForEveryCommandAndTheStandardSections) {
  TempDir dir;
  const RunResult page = RunNeardup({"manpage"}, dir.path());
  ASSERT_EQ(page.exit_code, 0);
  for (const cli::CommandInfo& info : cli::kCommands) {
    std::string heading = ".SH ";
    for (const char* c = info.name; *c != '\0'; ++c) heading += static_cast<char>(*c - 'a' + 'A');
    EXPECT_NE(page.out.find(heading + "\n"), std::string::npos) << heading;
  }
  for (const char* section : {"NAME", "SYNOPSIS", "DESCRIPTION", "OUTPUT FORMATS", "EXIT STATUS", "ENVIRONMENT",
                              "FILES", "EXAMPLES", "SEE ALSO"}) {
    EXPECT_NE(page.out.find(std::string(".SH ") + section + "\n"), std::string::npos) << section;
  }
  for (const char* variable : {"NO_COLOR", "COLUMNS", "TMPDIR", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT"}) {
    EXPECT_NE(page.out.find(variable), std::string::npos) << variable;
  }
  EXPECT_NE(page.out.find("\\fBneardup index check\\fR"), std::string::npos);
  // The exit status is said once, as a list, not as the help's one line.
  EXPECT_EQ(page.out.find("Exit status: 0 something reported"), std::string::npos);
}

// man(1), mandoc's linter and lexgrog read the page without a complaint.
TEST(ShellManPageTest, ManMandocAndLexgrogReadThePage) {
  if (!Have("man") && !Have("mandoc") && !Have("lexgrog")) GTEST_SKIP() << "no man, mandoc or lexgrog";
  TempDir dir;
  const RunResult page = RunNeardup({"manpage"}, dir.path());
  ASSERT_EQ(page.exit_code, 0);
  const std::string path = dir.path() + "/neardup.1";
  WriteFile(path, page.out);
  if (Have("mandoc")) {
    const RunResult lint = RunProcess({Tool("mandoc"), "-T", "lint", "-W", "warning", path}, dir.path());
    EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
    EXPECT_EQ(lint.out + lint.err, "");
  }
  if (Have("lexgrog")) {
    const RunResult whatis = RunProcess({Tool("lexgrog"), path}, dir.path());
    EXPECT_EQ(whatis.exit_code, 0) << whatis.err;
    EXPECT_NE(whatis.out.find("\"neardup - find near-duplicate text documents"), std::string::npos) << whatis.out;
  }
  if (Have("man")) {
    RunResult shown = RunProcess({"/usr/bin/env", "MANWIDTH=80", Tool("man"), "-l", path}, dir.path());
    shown.out = Plain(shown.out);
    EXPECT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_EQ(shown.err, "");
    EXPECT_NE(shown.out.find("EXIT STATUS"), std::string::npos) << shown.out.substr(0, 400);
    EXPECT_NE(shown.out.find("SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT"), std::string::npos);
  }
}

}  // namespace
}  // namespace neardup
