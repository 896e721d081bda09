// End to end: neardup at home in the shell (#27). The real binary's help,
// completion scripts, man page, --color and the width of explain's diff.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_options.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::RandomWords;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

const std::string kBin = NEARDUP_BINARY;

// `neardup <words> --help`: every command and every stage task.
std::vector<std::vector<std::string>> EveryCommand() {
  std::vector<std::vector<std::string>> commands = {{}};
  for (const cli::CommandInfo& info : cli::kCommands) commands.push_back({info.name});
  for (const cli::StageInfo& stage : cli::kStageCommands) commands.push_back({"stage", stage.name});
  return commands;
}

std::string Help(const std::vector<std::string>& words, const TempDir& dir) {
  std::vector<std::string> argv = {kBin};
  argv.insert(argv.end(), words.begin(), words.end());
  argv.push_back("--help");
  const RunResult r = RunProcess(argv, dir.path());
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
  EXPECT_EQ(explain.find("html"), std::string::npos) << explain;
  EXPECT_NE(explain.find("--color auto|always|never [auto]"), std::string::npos) << explain;
  const std::string scan = Help({"scan"}, dir);
  EXPECT_NE(scan.find("-f,--format jsonl|json|csv|tsv|html [jsonl]"), std::string::npos);
  EXPECT_EQ(scan.find("explain: json"), std::string::npos);
  EXPECT_EQ(scan.find("--color"), std::string::npos);
  // What the help says is what the parser does.
  const RunResult csv = RunProcess({kBin, "explain", "-f", "csv", "a", "b"}, dir.path());
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
  const RunResult bash = RunProcess({kBin, "completions", "bash"}, dir.path());
  ASSERT_EQ(bash.exit_code, 0);
  ExpectBashCompletes(bash.out, "neardup index ''", "info check");
  ExpectBashCompletes(bash.out, "neardup index in", "info");
  ExpectBashCompletes(bash.out, "neardup index info ind", "index.db");
  ExpectBashCompletes(bash.out, "neardup explain -f ''", "json");
  ExpectBashCompletes(bash.out, "neardup explain --color ''", "auto always never");
  ExpectBashCompletes(bash.out, "neardup scan -f ''", "jsonl json csv tsv html");
  ExpectBashCompletes(bash.out, "neardup scan --co", "");

  const RunResult zsh = RunProcess({kBin, "completions", "zsh"}, dir.path());
  EXPECT_NE(zsh.out.find("'1:action:(info check)'"), std::string::npos);
  EXPECT_NE(zsh.out.find("{-f,--format}'[Print one JSON object instead of text]:json:(json)'"), std::string::npos);
  const RunResult fish = RunProcess({kBin, "completions", "fish"}, dir.path());
  EXPECT_NE(fish.out.find("__fish_seen_subcommand_from index; and not __fish_seen_subcommand_from info check' "
                          "-x -a 'info check'"),
            std::string::npos);
  EXPECT_NE(fish.out.find("'__fish_seen_subcommand_from explain' -s f -l format -x -a 'json'"), std::string::npos);
  EXPECT_EQ(fish.out.find("'__fish_seen_subcommand_from explain' -s f -l format -x -a 'jsonl"), std::string::npos);
}

}  // namespace
}  // namespace neardup
