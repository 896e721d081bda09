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
    s.append(Roff(t.help)).append(" (sign, bucket, verify and filter).\n");
  }
  std::string refused, filter_only;
  for (const OptionSpec& spec : OptionTable()) {
    if ((spec.commands & kScanCommand) == 0 || (spec.commands & kStageCommand) != 0) continue;
    std::string& list = (spec.commands & kStageFilterCommand) != 0 ? filter_only : refused;
    list.append(list.empty() ? "" : ", ").append("\\fB").append(Roff(spec.long_name)).append("\\fR");
  }
  s.append(
       ".PP\nEvery other option is scan's, with the same meaning (see SCAN), and the same for every stage; "
       "the stages refuse those they do not read (")
      .append(refused)
      .append("), and all but filter refuse ")
      .append(filter_only)
      .append(
          ". The output of stage report is byte-identical to scan's over the same PATHs "
          "with the same options, and it leaves in WORK/report the documents each sign shard can lose. Then filter "
          "task I of N (N the sign tasks' count) writes the kept documents of sign shard I's files to "
          "\\fB\\-\\-kept\\-dir\\fR "
          "\\fIDIR\\fR: together, byte for byte what scan \\fB\\-\\-kept\\-dir\\fR writes. The tasks share DIR: it "
          "must be "
          "new or empty when the first of them begins it (recorded in WORK/filter), and a task run again replaces "
          "its own files. scripts/slurm/submit.sh runs the stages as Slurm job arrays, the filter tasks too when "
          "given \\fB\\-\\-kept\\-dir\\fR.\n");
  return s;
}

// The section of a command with options: its summary, `prose` (roff), then
// its options by group.
std::string CommandSection(const CommandInfo& info, const char* prose) {
  std::string s = ".SH ";
  for (const char* c = info.name; *c != '\0'; ++c) s += static_cast<char>(*c - 'a' + 'A');
  s.append("\n").append(Roff(info.summary)).append(std::string_view(info.summary).ends_with(".") ? "\n" : ".\n");
  s.append(prose);
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

// What each command without options of the table does, and the sections
// that read better as prose than as a list of options. Roff as written.
constexpr const char* kExplainText =
    ".PP\n"
    "Reads two documents under the options of scan and prints every fact its decision rests on: sizes, "
    "words, tokens and shingles, the shared shingles and the exact Jaccard, the MinHash estimate and its "
    "standard error, the LSH bands in which the signatures agree, what scan would say under each "
    "\\fB\\-\\-verify\\fR, and the S\\-curve probability that a pair of this similarity becomes a candidate. "
    "Then a word diff of the normalized words, as \\fBgit diff \\-\\-word\\-diff\\fR: red and green on a "
    "terminal, \\fB[\\-removed\\-]{+added+}\\fR otherwise, wrapped to the terminal's width.\n";

constexpr const char* kIndexText =
    ".TP\n\\fBneardup index info\\fR \\fIFILE\\fR\n"
    "Prints the signature parameters of the index FILE (written by \\fBscan \\-\\-index\\fR), its numbers of "
    "files and documents, its size and its last runs.\n"
    ".TP\n\\fBneardup index check\\fR \\fIFILE\\fR\n"
    "Checks the SQLite file's integrity and passes every row through the checks a scan makes; prints "
    "\\fIFILE\\fB: ok\\fR and exits 0 when the index is sound, else names each problem on standard error and "
    "exits 2.\n"
    ".PP\nBoth open the index read\\-only.\n";

constexpr const char* kOtherCommandsText =
    ".SH COMPLETIONS\n"
    ".B neardup completions\n\\fIbash\\fR|\\fIzsh\\fR|\\fIfish\\fR\n"
    "prints a completion script for the shell, made from the same table as the help: each command "
    "completes its own options and their values. For example:\n"
    ".PP\n.RS\n.nf\n"
    "neardup completions bash > ~/.local/share/bash\\-completion/completions/neardup\n"
    "neardup completions zsh > ~/.zfunc/_neardup\n"
    "neardup completions fish > ~/.config/fish/completions/neardup.fish\n"
    ".fi\n.RE\n"
    ".SH MANPAGE\n"
    ".B neardup manpage\nprints this page (roff), for example to "
    "\\fI~/.local/share/man/man1/neardup.1\\fR.\n";

constexpr const char* kOutputText =
    ".SH OUTPUT FORMATS\n"
    "Standard output carries the records only; logs, warnings, progress and the summary go to standard "
    "error. Pairs have \\fIa\\fR < \\fIb\\fR in byte order and are sorted; the same input and options give "
    "the same bytes, whatever \\fB\\-j\\fR. A score is 1 only for two documents with the same tokens.\n"
    ".TP\n.B jsonl\n"
    "The default: one pair per line, "
    "{\"a\":...,\"b\":...,\"estimate\":...,\"jaccard\":...} (\\fBjaccard\\fR, the exact Jaccard, unless "
    "\\fB\\-\\-verify signature\\fR or \\fBnone\\fR); in "
    "clusters mode one cluster per line, {\"cluster\":0,\"keep\":...,\"members\":[...],\"size\":2}.\n"
    ".TP\n.B json\n"
    "One document: the version, \"format\", the parameters, the counts (\"stats\"), and \"pairs\", "
    "\"clusters\" or \"removable\".\n"
    ".TP\n.B csv\n"
    "RFC 4180, with a header: a,b,estimate,jaccard; clusters cluster,path,kept,reference, a row per member.\n"
    ".TP\n.B tsv\n"
    "The columns of csv without a header; a backslash, tab, LF or CR in a path is written \\e\\e, \\et, "
    "\\en, \\er.\n"
    ".TP\n.B html\n"
    "A review page of the pairs or clusters, with a word diff of each pair, for a browser.\n"
    ".TP\n.B \\-\\-mode duplicates\n"
    "Without \\fB\\-f\\fR, the removable paths, one a line (NUL\\-terminated with \\fB\\-0\\fR), for "
    "\\fBxargs\\fR(1); with \\fB\\-f\\fR, one record per removable document naming the one it duplicates.\n"
    ".PP\n"
    "jsonl and json write each invalid UTF\\-8 sequence of a path as U+FFFD; csv, tsv and the bare paths "
    "write a path's bytes as they are.\n";

constexpr const char* kExitText =
    ".SH EXIT STATUS\n"
    ".TP\n.B 0\nAt least one pair, cluster or removable document reported (explain: scan would report "
    "the pair; index check: the index is sound; and every other command that succeeds).\n"
    ".TP\n.B 1\nNothing reported (explain: scan would not report the pair).\n"
    ".TP\n.B 2\nAn error: a usage error (one line on standard error, nothing read), an unreadable file, a "
    "malformed JSONL line, an index that cannot be used, a file changed during a run that verifies exactly (the "
    "default). "
    "Results are still written after a soft error.\n"
    ".TP\n.B 128+N\nEnded by signal N (130 for SIGINT): \\fB\\-o\\fR \\fIFILE\\fR is left untouched.\n";

constexpr const char* kEnvironmentText =
    ".SH ENVIRONMENT\n"
    ".TP\n.B NO_COLOR\nWhen set and not empty, \\fBexplain\\fR does not colour (with \\fB\\-\\-color "
    "auto\\fR, the default; \\fB\\-\\-color always\\fR still colours).\n"
    ".TP\n.B COLUMNS\nThe width \\fBexplain\\fR wraps its diff to, before the terminal's own width; "
    "80 when neither is known.\n"
    ".TP\n.B TMPDIR\nWhere temporary files go (else \\fI/tmp\\fR): spilled candidates and pairs, and the "
    "copies of standard input and streams that exact verification (the default) checks from.\n"
    ".TP\n.B SLURM_ARRAY_TASK_ID\\fR, \\fBSLURM_ARRAY_TASK_COUNT\n"
    "The defaults of \\fB\\-\\-task\\fR and \\fB\\-\\-tasks\\fR of \\fBstage sign\\fR, \\fBstage bucket\\fR, \\fBstage "
    "verify\\fR and \\fBstage filter\\fR, "
    "in a Slurm job array.\n";

constexpr const char* kFilesText =
    ".SH FILES\n"
    ".TP\n.I FILE\nThe index of \\fBscan \\-\\-index\\fR \\fIFILE\\fR: an SQLite database of the signatures "
    "of the files read, with a \\fIFILE\\-wal\\fR journal while a run holds it.\n"
    ".TP\n.I WORK\nThe work folder of \\fBneardup stage\\fR: \\fIWORK/sign/\\fR holds each sign task's "
    "signatures and bands, \\fIWORK/bucket/\\fR each bucket task's candidate pairs, \\fIWORK/verify/\\fR each verify "
    "task's verified pairs; start each run in an "
    "empty folder.\n"
    ".TP\n.I .gitignore, .ignore\nIgnore files in gitignore syntax, honoured by \\fBscan\\fR below each "
    "\\fIPATH\\fR as \\fBrg\\fR(1) honours them (\\fB\\-\\-no\\-ignore\\fR turns them off).\n";

constexpr const char* kSeeAlsoText =
    ".SH SEE ALSO\n"
    "\\fBxargs\\fR(1), \\fBrm\\fR(1), \\fBsqlite3\\fR(1), \\fBsbatch\\fR(1), \\fBgit\\-diff\\fR(1).\n"
    ".PP\n"
    "J. Leskovec, A. Rajaraman and J. D. Ullman, \\fIMining of Massive Datasets\\fR, chapter 3: "
    "finding similar items.\n"
    ".PP\n"
    "The README of neardup and the pages of its docs/ folder that it links: the output formats with "
    "examples, the guarantees, the index schema, running on a cluster, and performance.\n";

}  // namespace

std::string ManPage() {
  std::string s = std::string(".TH NEARDUP 1 \"").append(kManPageDate).append("\" \"neardup ");
  s.append(kVersion).append("\" \"User Commands\"\n");
  s.append(".SH NAME\nneardup \\- ").append(Roff(kSummary)).append("\n.SH SYNOPSIS\n");
  for (const CommandInfo& info : kCommands) {
    s.append(".B neardup ").append(info.name).append("\n");
    // A stage's options follow its task: the task names them in its operands.
    const bool options = info.options != 0 && info.command != Command::kStage;
    if (options) s.append("[\\fIOPTIONS\\fR]");
    if (*info.operands != '\0') s.append(options ? " " : "").append("\\fI").append(Roff(info.operands)).append("\\fR");
    if (options || *info.operands != '\0') s.append("\n");
    s.append(".br\n");
  }
  s.append(".B neardup\n\\-\\-help | \\-\\-version\n");
  s.append(
      ".SH DESCRIPTION\n.B neardup\nfinds near-duplicate text documents: it cuts each document into shingles, "
      "signs it with MinHash, finds candidate pairs by locality-sensitive hashing, and checks them against "
      "the similarity threshold. It reports pairs, clusters, or the documents that can go "
      "(\\fB\\-\\-mode\\fR).\n");
  for (const CommandInfo& info : kCommands) {
    if (info.options != 0) {
      s.append(CommandSection(info, info.command == Command::kExplain ? kExplainText : ""));
    } else if (info.command == Command::kIndex) {
      s.append(".SH INDEX\n").append(Roff(info.summary)).append(".\n").append(kIndexText);
    }
  }
  s.append(kOtherCommandsText).append(kOutputText).append(kExitText).append(kEnvironmentText).append(kFilesText);
  s.append(".SH EXAMPLES\n");
  for (const Example& example : kScanExamples) {
    s.append(".TP\n.B ").append(Roff(example.command)).append("\n").append(Roff(example.what)).append(".\n");
  }
  return s.append(kSeeAlsoText);
}

}  // namespace neardup::cli
