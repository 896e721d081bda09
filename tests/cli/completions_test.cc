#include "cli/completions.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "cli/cli_options.h"
#include "cli/man_page.h"
#include "neardup/option_table.h"

namespace neardup::cli {
namespace {

// Calls f(command, option) for every option of every command.
template <typename F>
void ForEveryOption(F&& f) {
  int count = 0;
  for (const CommandInfo& info : kCommands) {
    for (const OptionSpec& spec : OptionTable()) {
      if ((spec.commands & info.options) == 0 || spec.kind == ValueKind::kPositional) continue;
      f(info, spec);
      ++count;
    }
  }
  ASSERT_GT(count, 30);
}

TEST(CompletionsTest, EveryOptionOfEveryCommandIsInEveryScript) {
  const std::string bash = CompletionScript("bash");
  const std::string zsh = CompletionScript("zsh");
  const std::string fish = CompletionScript("fish");
  for (const CommandInfo& info : kCommands) {
    EXPECT_NE(bash.find(info.name), std::string::npos);
    EXPECT_NE(zsh.find(std::string("'") + info.name + ":"), std::string::npos);
    EXPECT_NE(fish.find(std::string(" -a ") + info.name + " "), std::string::npos);
  }
  ForEveryOption([&](const CommandInfo& info, const OptionSpec& spec) {
    SCOPED_TRACE(std::string(info.name) + " " + spec.long_name);
    EXPECT_NE(bash.find(std::string(" ") + spec.long_name), std::string::npos);
    EXPECT_NE(zsh.find(spec.long_name), std::string::npos);
    EXPECT_NE(fish.find(std::string("'__fish_seen_subcommand_from ") + info.name + "'" +
                        (*spec.short_name != '\0' ? std::string(" -s ") + (spec.short_name + 1) : std::string()) +
                        " -l " + (spec.long_name + 2)),
              std::string::npos);
    if (spec.kind == ValueKind::kChoice) {
      EXPECT_NE(bash.find(spec.choices[0].name), std::string::npos);
    }
  });
  EXPECT_EQ(CompletionScript("tcsh"), "");
}

// bash itself reads the script, and completes an option's values from it.
TEST(CompletionsTest, BashReadsTheScriptAndCompletesChoices) {
  char path[] = "/tmp/neardup_completion_XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::ofstream(path) << CompletionScript("bash");
  const std::string command = std::string("bash -c 'source ") + path +
                              " && COMP_WORDS=(neardup scan --mode du) && COMP_CWORD=3 && _neardup"
                              " && [ \"${COMPREPLY[*]}\" = duplicates ]'";
  EXPECT_EQ(std::system(command.c_str()), 0);
  std::remove(path);
}

// bash completes the tasks of `neardup stage`, then their --task/--tasks.
TEST(CompletionsTest, BashCompletesTheStageTasksAndTheirOptions) {
  char path[] = "/tmp/neardup_completion_XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::ofstream(path) << CompletionScript("bash");
  const std::string source = std::string("bash -c 'source ") + path;
  EXPECT_EQ(std::system((source + " && COMP_WORDS=(neardup stage \"\") && COMP_CWORD=2 && _neardup"
                                  " && [ \"${COMPREPLY[*]}\" = \"sign bucket verify report filter\" ]'")
                            .c_str()),
            0);
  EXPECT_EQ(std::system((source + " && COMP_WORDS=(neardup stage sign --tas) && COMP_CWORD=3 && _neardup"
                                  " && [ \"${COMPREPLY[*]}\" = \"--task --tasks\" ]'")
                            .c_str()),
            0);
  EXPECT_EQ(std::system((source + " && COMP_WORDS=(neardup stage report --mo) && COMP_CWORD=3 && _neardup"
                                  " && [ \"${COMPREPLY[*]}\" = \"--mode\" ]'")
                            .c_str()),
            0);
  EXPECT_EQ(std::system((source + " && COMP_WORDS=(neardup stage filter --kept) && COMP_CWORD=3 && _neardup"
                                  " && [ \"${COMPREPLY[*]}\" = \"--kept-dir --kept-copy\" ]'")
                            .c_str()),
            0);
  std::remove(path);
  const std::string zsh = CompletionScript("zsh");
  const std::string fish = CompletionScript("fish");
  EXPECT_NE(zsh.find("'1:task:(sign bucket verify report filter)'"), std::string::npos);
  EXPECT_NE(zsh.find("'--tasks[The number of tasks"), std::string::npos);
  EXPECT_NE(fish.find("-a 'sign bucket verify report filter'"), std::string::npos);
  EXPECT_NE(fish.find("'__fish_seen_subcommand_from stage' -l tasks -x"), std::string::npos);
}

// Text as roff writes it: each - as \-.
std::string Dashes(std::string_view text) {
  std::string roff;
  for (const char c : text) roff += c == '-' ? std::string("\\-") : std::string(1, c);
  return roff;
}

TEST(ManPageTest, EveryOptionOfEveryCommandIsDocumented) {
  const std::string page = ManPage();
  EXPECT_TRUE(page.starts_with(".TH NEARDUP 1 "));
  ForEveryOption([&](const CommandInfo& info, const OptionSpec& spec) {
    SCOPED_TRACE(std::string(info.name) + " " + spec.long_name);
    EXPECT_NE(page.find("\\fB" + Dashes(spec.long_name) + "\\fR"), std::string::npos);
  });
  for (const OptionGroup group : kOptionGroups) {
    EXPECT_NE(page.find(std::string(".SS ") + ToString(group) + "\n"), std::string::npos) << ToString(group);
  }
  for (const Example& example : kScanExamples) {
    EXPECT_NE(page.find(Dashes(example.command)), std::string::npos);
    EXPECT_NE(page.find(Dashes(example.what)), std::string::npos);
  }
  for (const StageInfo& stage : kStageCommands) {
    EXPECT_NE(page.find(std::string("\\fBneardup stage ") + stage.name + "\\fR"), std::string::npos) << stage.name;
  }
  for (const StageTaskOption& t : kStageTaskOptions) {
    EXPECT_NE(page.find("\\fB" + Dashes(t.name) + "\\fR"), std::string::npos) << t.name;
  }
  // No line starts with a control character by accident.
  EXPECT_EQ(page.find("\n'"), std::string::npos);
}

}  // namespace
}  // namespace neardup::cli
