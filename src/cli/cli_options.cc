#include "cli/cli_options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <deque>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/bound_options.h"
#include "cli/logging.h"
#include "neardup/option_table.h"
#include "neardup/version.h"

namespace neardup::cli {

namespace {

// The option table's commands bits of a stage task: filter alone reads
// --kept-dir and --kept-copy.
unsigned StageOptions(Command command) {
  return command == Command::kStageFilter ? kStageCommand | kStageFilterCommand : kStageCommand;
}

// The end of `neardup scan --help`: the examples and the exit status.
std::string ScanFooter() {
  std::string footer = "Examples:\n";
  for (const Example& example : kScanExamples) {
    footer.append("  ").append(example.command).append("\n      ").append(example.what).append("\n");
  }
  return footer.append("\n").append(kExitStatus);
}

// The commands, each with its options from the option table.
struct CommandLine {
  CLI::App app{std::string("neardup: ") + kSummary, "neardup"};
  std::vector<std::pair<Command, CLI::App*>> commands;
  BoundOptions scan_options;  // each command has its own values
  BoundOptions params_options;
  BoundOptions explain_options;
  std::string shell;
  std::vector<std::string> explain_args;
  std::string index_action;
  std::string index_file;
  // neardup stage sign|bucket|verify|report|filter: each with scan's options.
  struct StageCommand {
    Command command;
    CLI::App* app = nullptr;
    BoundOptions options;
    std::string task, tasks;  // as typed
  };
  CLI::App* stage = nullptr;
  std::deque<StageCommand> stages;
  std::string work;

  CommandLine() {
    app.set_version_flag("--version", std::string("neardup ") + kVersion);
    app.require_subcommand(1);
    app.formatter(std::make_shared<HelpFormatter>());  // before the subcommands, which inherit it
    for (const CommandInfo& info : kCommands) {
      CLI::App* sub = app.add_subcommand(info.name, info.summary);
      commands.emplace_back(info.command, sub);
      switch (info.command) {
        case Command::kScan:
          scan_options.Register(sub, kScanCommand);
          sub->footer(ScanFooter());
          break;
        case Command::kParams:
          params_options.Register(sub, kParamsCommand);
          break;
        case Command::kExplain:
          sub->add_option("ARGS", explain_args, "Two files A B ('-' = stdin), or with --input jsonl: FILE ID_A ID_B")
              ->required();
          explain_options.Register(sub, kExplainCommand);
          sub->footer(kExitStatus);
          break;
        case Command::kIndex:
          sub->add_option("ACTION", index_action, "info: parameters, documents, size, last runs; check: integrity")
              ->required()
              ->check(CLI::IsMember({"info", "check"}));
          sub->add_option("FILE", index_file, "The index (scan --index FILE)")->required();
          break;
        case Command::kCompletions:
          sub->add_option("SHELL", shell, "bash, zsh or fish")
              ->required()
              ->check(CLI::IsMember({"bash", "zsh", "fish"}));
          break;
        case Command::kStage:
          AddStageCommands(sub);
          break;
        case Command::kManPage:
        case Command::kStageSign:
        case Command::kStageBucket:
        case Command::kStageVerify:
        case Command::kStageReport:
        case Command::kStageFilter:
          break;
      }
    }
    // After the subcommands: the exit status is said where it means
    // something (scan, explain, stage report, and neardup's own help).
    app.footer(kExitStatus);
  }

  void AddStageCommands(CLI::App* group) {
    stage = group;
    stage->require_subcommand(1);
    for (const StageInfo& info : kStageCommands) {
      StageCommand& sc = stages.emplace_back();
      sc.command = info.command;
      sc.app = stage->add_subcommand(info.name, info.summary);
      sc.app->add_option("WORK", work, "The work folder, on storage every task sees")->required();
      if (info.command != Command::kStageReport) {
        std::string* values[] = {&sc.task, &sc.tasks};
        for (size_t k = 0; k < std::size(kStageTaskOptions); ++k) {
          const StageTaskOption& t = kStageTaskOptions[k];
          sc.app->add_option(t.name, *values[k], t.help)->option_text(t.value_name);
        }
      }
      // scan's options, those no stage reads hidden, to be refused by name.
      sc.options.Register(sc.app, kScanCommand);
      sc.options.HideOutside(StageOptions(info.command));
      if (info.command == Command::kStageReport) sc.app->footer(kExitStatus);
    }
  }

  Command Parsed() const {
    for (const StageCommand& sc : stages) {
      if (sc.app->parsed()) return sc.command;
    }
    for (const auto& [command, sub] : commands) {
      if (sub->parsed()) return command;
    }
    return Command::kScan;
  }
  const StageCommand* ParsedStage() const {
    for (const StageCommand& sc : stages) {
      if (sc.app->parsed()) return &sc;
    }
    return nullptr;
  }
};

// A CLI11 message on one line: line breaks become "; ".
std::string OneLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  std::string line;
  for (const char c : text) {
    if (c == '\n') {
      line += "; ";
    } else if (c != '\r') {
      line.push_back(c);
    }
  }
  return line;
}

// What bare `neardup` prints: one line a command, and where the rest is.
std::string ShortUsage() {
  std::string usage = std::string("neardup: ") + kSummary + "\nusage: neardup <command> [OPTIONS] ...\n";
  for (const CommandInfo& info : kCommands) {
    std::string name = info.name;
    name.resize(14, ' ');
    usage.append("  ").append(name).append(info.summary).append("\n");
  }
  return usage.append("See 'neardup --help', or 'neardup <command> --help' for a command's options.\n");
}

// The number of single-character edits (insert, delete, replace, swap of two
// neighbours) that turn `a` into `b`: "scna" is 1 from "scan".
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// The known name nearest to `typed`, when it is near enough to be a typo (a
// third of its letters, at least one, at most three); the first on a tie.
std::optional<std::string> Closest(std::string_view typed, const std::vector<std::string>& known) {
  const size_t letters = typed.size() - std::min(typed.find_first_not_of('-'), typed.size());
  const size_t allowed = std::clamp<size_t>(letters / 3, 1, 3);
  std::optional<std::string> best;
  size_t best_distance = allowed + 1;
  for (const std::string& name : known) {
    const size_t distance = EditDistance(typed, name);
    if (distance < best_distance) {
      best = name;
      best_distance = distance;
    }
  }
  return best;
}

// "; did you mean X?" when a known name is near `typed`, else "".
std::string DidYouMean(std::string_view typed, const std::vector<std::string>& known) {
  const std::optional<std::string> near = Closest(typed, known);
  return near ? "; did you mean " + *near + "?" : "";
}

std::vector<std::string> SubcommandNames(const CLI::App* app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app->get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

// The command that argv names (scan, stage sign...), or `app` itself.
const CLI::App* NamedCommand(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* command = &app;
  for (int i = 1; i < argc && argv[i][0] != '-'; ++i) {
    const CLI::App* sub = nullptr;
    for (const CLI::App* s : command->get_subcommands({})) {
      if (s->get_name() == argv[i]) sub = s;
    }
    if (sub == nullptr) break;
    command = sub;
  }
  return command;
}

// The long options `command` accepts, with their dashes (a one-letter
// option is one edit from every other: no suggestion is made for those).
std::vector<std::string> OptionNames(const CLI::App* command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command->get_options({})) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

// CLI11's "The following argument was not expected: --treshold" with a
// suggestion for each unknown option that is near a known one.
std::string WithOptionSuggestions(const std::string& message, const CLI::App* command) {
  const size_t colon = message.find(": ");
  if (colon == std::string::npos) return message;
  std::string out = message;
  const std::vector<std::string> known = OptionNames(command);
  std::istringstream extras(message.substr(colon + 2));
  for (std::string extra; extras >> extra;) {
    if (extra.size() < 3 || extra[0] != '-') continue;
    out += DidYouMean(extra.substr(0, extra.find('=')), known);
  }
  return out;
}

// CLI11's "ACTION: inf not in {info,check}" as "ACTION must be info or
// check, got inf; did you mean info?".
std::string WithValueSuggestion(const std::string& message) {
  const size_t colon = message.find(": ");
  const size_t in = message.find(" not in {");
  if (colon == std::string::npos || in == std::string::npos || in < colon || !message.ends_with("}")) return message;
  const std::string typed = message.substr(colon + 2, in - colon - 2);
  std::vector<std::string> known;
  std::istringstream set(message.substr(in + 9, message.size() - in - 10));
  for (std::string name; std::getline(set, name, ',');) known.push_back(name);
  if (known.empty()) return message;
  std::string expects = known[0];
  for (size_t k = 1; k < known.size(); ++k) expects += (k + 1 == known.size() ? " or " : ", ") + known[k];
  return message.substr(0, colon) + " must be " + expects + ", got " + typed + DidYouMean(typed, known);
}

// What `neardup index` and `neardup stage` lack when they are not told what
// to do, said as `neardup scan` without a PATH says it; nothing when they are
// (or when help is asked for). `depth`: the words of `command` in argv.
std::optional<std::string> MissingAction(const CLI::App* command, int argc, const char* const* argv, int depth) {
  std::vector<std::string_view> operands;
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--help" || word == "-h") return std::nullopt;
    if (i >= depth && !word.starts_with('-')) operands.push_back(word);
  }
  const CLI::App* parent = command->get_parent();
  if (parent == nullptr || parent->get_parent() != nullptr) return std::nullopt;  // a command of neardup itself
  if (command->get_name() == "stage") {
    std::string tasks;
    for (const StageInfo& info : kStageCommands) {
      if (std::find(operands.begin(), operands.end(), info.name) != operands.end()) return std::nullopt;
      tasks.append(tasks.empty() ? "" : ", ").append(info.name);
    }
    return "stage needs a task (" + tasks + "); see neardup stage --help";
  }
  if (command->get_name() == "index" && operands.empty()) {
    return std::string("index needs info or check and the index FILE; see neardup index --help");
  }
  if (command->get_name() == "index" && operands.size() == 1 && (operands[0] == "info" || operands[0] == "check")) {
    return "index " + std::string(operands[0]) + " needs the index FILE (scan --index FILE); see neardup index --help";
  }
  return std::nullopt;
}

// What argv asks before CLI11 sees it: bare `neardup` (short usage, exit 2),
// `help` (the help, exit 0; `help COMMAND` is `COMMAND --help`), `version` and `-V` (the version, exit 0), a
// command that does not exist (exit 2, naming the nearest one), and `index`
// or `stage` told nothing to do (exit 2, as `scan` without a PATH).
std::optional<ExitCode> ParseCommandWord(const CLI::App& app, int argc, const char* const* argv, std::ostream& out,
                                         std::ostream& err) {
  if (argc < 2) {
    err << ShortUsage();
    return ExitCode::kError;
  }
  const std::string word = argv[1];
  if (word == "help" && argc == 2) {
    out << app.help();
    return ExitCode::kFound;
  }
  if ((word == "version" || word == "-V") && argc == 2) {
    out << "neardup " << kVersion << "\n";
    return ExitCode::kFound;
  }
  const CLI::App* command = NamedCommand(app, argc, argv);
  int depth = 1;
  for (const CLI::App* c = command; c != &app; c = c->get_parent()) ++depth;
  if (depth < argc && argv[depth][0] != '-' && command->get_require_subcommand_min() > 0) {
    const std::vector<std::string> known = SubcommandNames(command);
    const std::string where = command == &app ? "" : " " + command->get_name();
    err << "neardup" << where << ": '" << argv[depth] << "' is not a command" << DidYouMean(argv[depth], known)
        << " (commands:";
    for (const std::string& name : known) err << " " << name;
    err << "; see neardup" << where << " --help)\n";
    return ExitCode::kError;
  }
  if (const std::optional<std::string> missing = MissingAction(command, argc, argv, depth)) {
    err << "neardup: " << *missing << "\n";
    return ExitCode::kError;
  }
  return std::nullopt;
}

// Runs CLI11 on argv. Returns the exit code when parsing ends the program:
// kFound after --help or --version (written to `out`), kError after a usage
// error (one line on `err`); nothing when a command is to run.
std::optional<ExitCode> ParseCommandLine(CLI::App& app, int argc, const char* const* argv, std::ostream& out,
                                         std::ostream& err) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version
      app.exit(e, out, err);
      return ExitCode::kFound;
    }
    std::string message = OneLine(e.what());
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
      message = WithOptionSuggestions(message, NamedCommand(app, argc, argv));
    }
    message = WithValueSuggestion(message);
    // "--threshold: 1 required TEXT missing" names our storage type, not the value.
    if (const size_t at = message.find(": 1 required "); at != std::string::npos && message.ends_with(" missing")) {
      message = message.substr(0, at) + " needs a value";
    }
    err << CapLine("neardup: " + message, kMaxLogLine) << "\n";
    return ExitCode::kError;
  }
  return std::nullopt;
}

// Whether `command` is one of the stage commands.
bool IsStage(Command command) {
  return command == Command::kStageSign || command == Command::kStageBucket || command == Command::kStageVerify ||
         command == Command::kStageReport || command == Command::kStageFilter;
}

// The stage commands: no option that only scan or only stage filter reads,
// and stage filter's --kept-dir.
Status CheckStageOptions(const BoundOptions& given, const CliOptions& c) {
  const bool stage = IsStage(c.command);
  const Options& o = c.scan;
  if (const std::string_view name = given.GivenOutside(kStageCommand | kStageFilterCommand); stage && !name.empty()) {
    return Status::InvalidArgument(
        std::string(name).append(" applies to scan only: the stage commands do not read it"));
  }
  if (const std::string_view name = given.GivenOutside(StageOptions(c.command)); stage && !name.empty()) {
    return Status::InvalidArgument(std::string(name).append(
        " is read by `neardup stage filter` only, which writes the kept documents after stage report"));
  }
  if (c.command == Command::kStageFilter && o.kept_dir.empty() && o.annotate_dir.empty()) {
    return Status::InvalidArgument(
        "stage filter needs --kept-dir DIR (the kept documents) or --annotate-dir DIR (the corpus, marked), the "
        "folder it writes");
  }
  return Status::Ok();
}

// What is written and how: where -0 and --keep newest|oldest apply, -f html,
// --lock-wait, and which options have no effect (warnings).
Status CheckOutputOptions(const BoundOptions& given, const CliOptions& c, std::vector<std::string>* warnings) {
  const Options& o = c.scan;
  if (given.Given("--null") && o.mode != Mode::kDuplicates) {
    return Status::InvalidArgument("-0 (--null) applies only to --mode duplicates");
  }
  if (given.Given("--null") && given.Given("--format")) {
    return Status::InvalidArgument(
        "-0 (--null) ends the bare paths of --mode duplicates: drop -f, which writes records");
  }
  // JSONL duplicates are lines, named by id or FILE:LINE: no path for rm.
  if (given.Given("--null") && RowsAreDocuments(o.input)) {
    return Status::InvalidArgument(
        "-0 (--null) ends paths for xargs -0 rm, but with --input jsonl the duplicates are lines named by id, not "
        "files: use -f jsonl to list them, or --kept-dir DIR to write the files without them");
  }
  // A JSONL line has no time of its own: its file's is not the document's.
  if (RowsAreDocuments(o.input) && (o.keep == KeepRule::kNewest || o.keep == KeepRule::kOldest)) {
    return Status::InvalidArgument(
        std::string("--keep ")
            .append(ToString(o.keep))
            .append(
                " compares modification times, which JSONL lines have none of: use --keep first, longest or shortest"));
  }
  if (!o.annotate_dir.empty() && !RowsAreDocuments(o.input)) {
    return Status::InvalidArgument(
        "--annotate-dir adds fields to JSONL lines or Parquet rows: use it with --input jsonl or parquet (text files "
        "have no fields; use -f jsonl for the clusters, or --kept-dir DIR)");
  }
  // --kept-dir and --annotate-dir cluster in every mode.
  if (o.mode == Mode::kPairs && o.kept_dir.empty() && o.annotate_dir.empty()) {
    if (given.Given("--keep")) warnings->push_back("--keep has no effect in pairs mode (see --mode)");
    if (given.Given("--cluster-by")) warnings->push_back("--cluster-by has no effect in pairs mode (see --mode)");
  }
  if (c.format == OutputFormat::kHtml && o.mode == Mode::kDuplicates) {
    return Status::InvalidArgument(
        std::string(given.Given("--format") ? "-f html" : "-o " + ShownValue(c.output))
            .append(" is a review page of pairs or clusters: use it with --mode pairs or clusters"));
  }
  if (given.Given("--lock-wait") && o.index.empty()) return Status::InvalidArgument("--lock-wait needs --index FILE");
  return Status::Ok();
}

// That there is something to read, and only for the commands that read
// paths; that standard input is read once.
Status CheckPaths(const CliOptions& c) {
  const bool stage = IsStage(c.command);
  const Options& o = c.scan;
  const bool no_paths = o.paths.empty() && c.files_from.empty() && c.files0_from.empty();
  if (c.command == Command::kStageBucket || c.command == Command::kStageVerify || c.command == Command::kStageReport ||
      c.command == Command::kStageFilter) {
    // --files-from and --against are accepted (and not read), so that every
    // stage can take the same options.
    if (!o.paths.empty()) {
      return Status::InvalidArgument(
          "stage bucket, verify, report and filter take no PATH: they read what the sign tasks wrote in WORK");
    }
    return Status::Ok();
  }
  if (no_paths) {
    return Status::InvalidArgument(stage ? "stage sign needs a PATH (or --files-from) after WORK"
                                         : "scan needs a PATH (or --files-from); see neardup scan --help");
  }
  // '-' as a PATH is standard input, as is '-' as a list of paths.
  const auto has_dash = [](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), "-") != v.end(); };
  if (has_dash(o.paths) && (has_dash(c.files_from) || has_dash(c.files0_from))) {
    return Status::InvalidArgument("'-' as a PATH and --files-from - both read standard input: use one of them");
  }
  return Status::Ok();
}

// Whether `path` names a Parquet file (*.parquet, any case).
bool ParquetName(std::string_view path) {
  constexpr std::string_view kEnd = ".parquet";
  if (path.size() <= kEnd.size()) return false;
  const std::string_view end = path.substr(path.size() - kEnd.size());
  return std::equal(end.begin(), end.end(), kEnd.begin(),
                    [](char x, char y) { return std::tolower(static_cast<unsigned char>(x)) == y; });
}

// Without --input, a run whose every PATH (explain: whose FILE) names a
// *.parquet file reads Parquet.
void ChooseParquet(const BoundOptions& given, CliOptions* c) {
  Options& o = c->scan;
  const bool scan = c->command == Command::kScan || IsStage(c->command);
  if (!given.Given("--input") && scan && !o.paths.empty() && c->files_from.empty() && c->files0_from.empty() &&
      std::all_of(o.paths.begin(), o.paths.end(), [](const std::string& p) { return ParquetName(p); })) {
    o.input = InputFormat::kParquet;
  }
  if (!given.Given("--input") && c->command == Command::kExplain && c->explain_args.size() == 3 &&
      ParquetName(c->explain_args[0])) {
    o.input = InputFormat::kParquet;
  }
}

// The rules of scan across options that the core does not check: where -0
// applies, which options have no effect (warnings), and that there is
// something to read.
Status CheckScanOptions(const BoundOptions& given, const CliOptions& c, std::vector<std::string>* warnings) {
  if (Status s = CheckStageOptions(given, c); !s.ok()) return s;
  if (Status s = CheckOutputOptions(given, c, warnings); !s.ok()) return s;
  return CheckPaths(c);
}

// The output format that -o's file name ends with (any case): .jsonl or
// .ndjson, .json, .csv, .tsv, .html; nothing for stdout or any other name.
std::optional<OutputFormat> FormatNamedBy(std::string_view output) {
  if (output.empty() || output == "-") return std::nullopt;
  const std::string_view name = output.substr(output.rfind('/') + 1);
  const size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return std::nullopt;  // ".csv" is a hidden name, not a kind
  std::string extension(name.substr(dot + 1));
  for (char& ch : extension) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (extension == "ndjson") return OutputFormat::kJsonl;
  return FromString<OutputFormat>(extension);
}

// -o FILE.csv without -f writes csv (as -f csv would); with -f, the two must
// agree, and -0 (bare paths) takes no file named for a format. Returns
// whether the format was chosen (by -f or by the name).
Result<bool> ChooseFormatByOutput(const BoundOptions& given, CliOptions* c) {
  const std::optional<OutputFormat> named = FormatNamedBy(c->output);
  if (!named) return given.Given("--format");
  const std::string output = ShownValue(c->output);
  if (given.Given("--format")) {
    if (c->format == *named) return true;
    return Status::InvalidArgument(std::string("-f ")
                                       .append(NameOf(c->format))
                                       .append(" disagrees with -o ")
                                       .append(output)
                                       .append(", a name for ")
                                       .append(NameOf(*named))
                                       .append(": drop -f, or name the file for the format"));
  }
  if (given.Given("--null") && c->scan.mode == Mode::kDuplicates) {  // else -0 is refused for its mode
    return Status::InvalidArgument(std::string("-0 (--null) writes NUL-ended paths, not the ")
                                       .append(NameOf(*named))
                                       .append(" that -o ")
                                       .append(output)
                                       .append(" names: drop -0, or name the file otherwise"));
  }
  c->format = *named;
  return true;
}

// --task I and --tasks N as typed, else from Slurm's job array variables.
Status ReadTask(const std::string& typed, const char* variable, const char* option, uint32_t* out) {
  std::string text = typed;
  if (text.empty()) {
    const char* env = std::getenv(variable);
    if (env == nullptr || *env == '\0') {
      return Status::InvalidArgument(std::string(option)
                                         .append(" is missing (and ")
                                         .append(variable)
                                         .append(" is not set: not in a Slurm job array)"));
    }
    text = env;
  }
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v > (1u << 24) || text[0] == '-') {
    return Status::InvalidArgument(
        std::string(option).append(" must be an integer from 0 to 2^24, got ").append(ShownValue(text)));
  }
  *out = static_cast<uint32_t>(v);
  return Status::Ok();
}

Status ReadTasks(const std::string& task, const std::string& tasks, CliOptions* c) {
  if (Status s = ReadTask(task, "SLURM_ARRAY_TASK_ID", "--task", &c->task); !s.ok()) return s;
  if (Status s = ReadTask(tasks, "SLURM_ARRAY_TASK_COUNT", "--tasks", &c->tasks); !s.ok()) return s;
  if (c->tasks == 0 || c->task >= c->tasks) {
    return Status::InvalidArgument(std::string("--task must be below --tasks, got ")
                                       .append(std::to_string(c->task))
                                       .append(" of ")
                                       .append(std::to_string(c->tasks)));
  }
  return Status::Ok();
}

// The operands of explain, and its -f: text (the default) or json.
Status CheckExplainOptions(const BoundOptions& given, const CliOptions& c) {
  if (given.Given("--format") && c.format != OutputFormat::kJson) {
    return Status::InvalidArgument("explain prints text, or one JSON object with -f json");
  }
  const bool jsonl = RowsAreDocuments(c.scan.input);
  const size_t want = jsonl ? 3 : 2;
  if (c.explain_args.size() != want) {
    const size_t n = c.explain_args.size();
    const std::string got = std::to_string(n) + (n == 1 ? " argument" : " arguments");
    return Status::InvalidArgument(jsonl ? "explain --input " + std::string(NameOf(c.scan.input)) +
                                               " needs FILE ID_A ID_B, got " + got
                                         : "explain needs two files A B, got " + got);
  }
  if (!jsonl && c.explain_args[0] == "-" && c.explain_args[1] == "-") {
    return Status::InvalidArgument("explain: standard input ('-') can be only one of A and B");
  }
  return Status::Ok();
}

// `neardup help scan ...` is `neardup scan ... --help`: then *argc and
// *argv are made to name that command line, held in *storage.
void HelpAsOption(int* argc, const char* const** argv, std::vector<const char*>* storage) {
  if (*argc < 3 || std::string_view((*argv)[1]) != "help") return;
  storage->push_back((*argv)[0]);
  storage->insert(storage->end(), *argv + 2, *argv + *argc);
  storage->push_back("--help");
  *argc = static_cast<int>(storage->size());
  *argv = storage->data();
}

}  // namespace

ParsedArgs ParseArgs(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  ParsedArgs parsed;
  CliOptions& c = parsed.options;
  CommandLine line;
  std::vector<const char*> help_args;
  HelpAsOption(&argc, &argv, &help_args);
  if (const std::optional<ExitCode> code = ParseCommandWord(line.app, argc, argv, out, err)) {
    parsed.exit_now = code;
    return parsed;
  }
  if (const std::optional<ExitCode> code = ParseCommandLine(line.app, argc, argv, out, err)) {
    parsed.exit_now = code;
    return parsed;
  }
  c.command = line.Parsed();
  c.shell = line.shell;
  c.index_action = line.index_action;
  c.index_file = line.index_file;
  if (c.command == Command::kCompletions || c.command == Command::kManPage || c.command == Command::kIndex) {
    return parsed;
  }
  const auto* stage = line.ParsedStage();
  const BoundOptions& given = stage != nullptr                 ? stage->options
                              : c.command == Command::kParams  ? line.params_options
                              : c.command == Command::kExplain ? line.explain_options
                                                               : line.scan_options;
  c.explain_args = line.explain_args;
  c.work = line.work;

  Status status = given.Apply(c);
  if (status.ok()) ChooseParquet(given, &c);
  if (c.verbosity < 0) c.progress = false;  // -q: errors only, no progress line
  c.scan.name_skipped = c.verbosity > 0;    // -v names each skipped file
  if (status.ok() && (c.command == Command::kScan || stage != nullptr)) {
    const Result<bool> chosen = ChooseFormatByOutput(given, &c);
    status = chosen.ok() ? CheckScanOptions(given, c, &parsed.warnings) : chosen.status();
    // --mode duplicates without -f (or -o FILE.jsonl...): the bare paths, for
    // xargs; with a format, one record per removable document naming the
    // document it duplicates.
    if (status.ok() && c.scan.mode == Mode::kDuplicates && !*chosen) c.format = OutputFormat::kPaths;
  }
  c.scan.doc_places = c.format == OutputFormat::kHtml;  // the page reads JSONL documents again
  // The page of near-copy pairs shows each as verification read it (ComparesSets()
  // in scan/review.cc: the other reviews compare sets, and read again).
  c.scan.keep_texts =
      c.format == OutputFormat::kHtml && c.scan.mode == Mode::kPairs && c.scan.relation == Relation::kSimilar;
  if (status.ok() && c.command == Command::kExplain) status = CheckExplainOptions(given, c);
  if (status.ok() && stage != nullptr && c.command != Command::kStageReport) {
    status = ReadTasks(stage->task, stage->tasks, &c);
  }
  if (status.ok()) status = ValidateOptions(c.scan);
  if (!status.ok()) {
    err << CapLine("neardup: " + status.message(), kMaxLogLine) << "\n";
    parsed.exit_now = ExitCode::kError;
    parsed.warnings.clear();
  }
  return parsed;
}

}  // namespace neardup::cli
