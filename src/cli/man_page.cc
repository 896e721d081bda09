#include "cli/man_page.h"

#include "cli/cli_options.h"
#include "neardup/option_table.h"
#include "neardup/version.h"

namespace neardup::cli {

namespace {

// `text` as roff: \ is \e, - is \- (a minus, as options are typed), and a
// line does not start with a control character.
std::string Roff(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

// ".TP" paragraph of one option: names, value, then help, range and default.
std::string OptionParagraph(const OptionSpec& spec) {
  std::string s = ".TP\n";
  if (*spec.short_name != '\0') s.append("\\fB").append(Roff(spec.short_name)).append("\\fR, ");
  s.append("\\fB").append(Roff(spec.long_name)).append("\\fR");
  if (const std::string value = ValueName(spec); !value.empty()) s.append(" \\fI").append(Roff(value)).append("\\fR");
  s.append("\n").append(Roff(HelpLine(spec))).append(".");
  if (const std::string shown = DefaultText(spec); !shown.empty())
    s.append(" Default: ").append(Roff(shown)).append(".");
  return s.append("\n");
}

// The tasks of `neardup stage` and their --task/--tasks; their other options
// are scan's, described once under SCAN.
std::string StageSection() {
  std::string s;
  for (const StageInfo& stage : kStageCommands) {
    s.append(".TP\n\\fBneardup stage ").append(stage.name).append("\\fR [\\fIOPTIONS\\fR] \\fI");
    s.append(Roff(stage.operands)).append("\\fR\n").append(Roff(stage.summary)).append(".\n");
  }
  s.append(".SS Tasks\n");
  for (const StageTaskOption& t : kStageTaskOptions) {
    s.append(".TP\n\\fB").append(Roff(t.name)).append("\\fR \\fI").append(t.value_name).append("\\fR\n");
    s.append(Roff(t.help)).append(" (sign and bucket).\n");
  }
  std::string refused;
  for (const OptionSpec& spec : OptionTable()) {
    if ((spec.commands & kScanCommand) != 0 && (spec.commands & kStageCommand) == 0) {
      refused.append(refused.empty() ? "" : ", ").append("\\fB").append(Roff(spec.long_name)).append("\\fR");
    }
  }
  s.append(".PP\nEvery other option is scan's, with the same meaning (see SCAN), and the same for the three stages; "
           "the stages refuse those they do not read (").append(refused).append("). The output of stage report is "
           "byte-identical to scan's over the same PATHs with the same options. scripts/slurm/submit.sh runs the "
           "three stages as Slurm job arrays.\n");
  return s;
}

std::string CommandSection(const CommandInfo& info) {
  std::string s = ".SH ";
  for (const char* c = info.name; *c != '\0'; ++c) s += static_cast<char>(*c - 'a' + 'A');
  s.append("\n").append(Roff(info.summary)).append(std::string_view(info.summary).ends_with(".") ? "\n" : ".\n");
  if (info.command == Command::kStage) return s.append(StageSection());
  for (const OptionGroup group : kOptionGroups) {
    bool heading = false;
    for (const OptionSpec& spec : OptionTable()) {
      if ((spec.commands & info.options) == 0 || spec.group != group) continue;
      if (!heading) s.append(".SS ").append(Roff(ToString(group))).append("\n");
      heading = true;
      if (spec.kind == ValueKind::kPositional) {
        s.append(".TP\n\\fI").append(Roff(spec.long_name)).append("\\fR...\n").append(Roff(spec.help)).append(".\n");
      } else {
        s.append(OptionParagraph(spec));
      }
    }
  }
  return s;
}

}  // namespace

std::string ManPage() {
  std::string s = std::string(".TH NEARDUP 1 \"\" \"neardup ").append(kVersion).append("\" \"User Commands\"\n");
  s.append(".SH NAME\nneardup \\- ").append(Roff(kSummary)).append("\n.SH SYNOPSIS\n");
  for (const CommandInfo& info : kCommands) {
    s.append(".B neardup ").append(info.name).append("\n");
    // A stage's options follow its task: the task names them in its operands.
    const bool options = info.options != 0 && info.command != Command::kStage;
    if (options) s.append("[\\fIOPTIONS\\fR]");
    if (*info.operands != '\0')
      s.append(options ? " " : "").append("\\fI").append(Roff(info.operands)).append("\\fR");
    s.append("\n.br\n");
  }
  s.append(".B neardup\n\\-\\-help | \\-\\-version\n");
  s.append(
      ".SH DESCRIPTION\n.B neardup\nfinds near-duplicate text documents: it cuts each document into shingles, "
      "signs it with MinHash, finds candidate pairs by locality-sensitive hashing, and checks them against "
      "the similarity threshold.\n");
  for (const CommandInfo& info : kCommands) {
    if (info.options != 0) s.append(CommandSection(info));
  }
  s.append(
      ".SH COMPLETIONS\n.B neardup completions\n\\fIbash\\fR|\\fIzsh\\fR|\\fIfish\\fR\nprints a completion script.\n");
  s.append(".SH EXIT STATUS\n").append(Roff(kExitStatus)).append("\n.SH EXAMPLES\n");
  for (const Example& example : kScanExamples) {
    s.append(".TP\n.B ").append(Roff(example.command)).append("\n").append(Roff(example.what)).append(".\n");
  }
  return s;
}

}  // namespace neardup::cli
