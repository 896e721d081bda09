// BoundOptions: options of the option table (neardup/option_table.h) put on
// a CLI11 command, and the values given to them, applied after parsing.
//
// Register() adds, in one call, every table option of a command (or the
// options named) to any CLI11 app or subcommand, with its names, value name,
// default, help line, help group and exclusions; commands that reuse scan's
// options (`params` takes four of them) call it with their own subset.
// Apply() then reads each value given, in the order of the table, into
// CliOptions: core options through ApplyOption(), front-end options (-f, -o,
// -q, -v, ...) through the front end's own setters. Values are held as text
// until then, so that every value is checked by the table, with one message
// style, and enum options accept their names only.
//
//   BoundOptions bound;
//   bound.Register(scan, kScanCommand);
//   app.parse(argc, argv);
//   Status s = bound.Apply(cli_options);
//
// Thread safety: none; one parse at a time. Not copyable: CLI11 holds the
// addresses of the values.
#pragma once

#include <CLI/CLI.hpp>
#include <deque>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli_options.h"
#include "neardup/option_table.h"
#include "neardup/status.h"

namespace neardup::cli {

class BoundOptions {
 public:
  BoundOptions() = default;
  BoundOptions(const BoundOptions&) = delete;
  BoundOptions& operator=(const BoundOptions&) = delete;

  // Adds every table option whose `commands` include `command` to `app`.
  void Register(CLI::App* app, unsigned command);
  // Adds the options named (long names, "--threshold"), in table order.
  // REQUIRES: every name is in the table.
  void Register(CLI::App* app, std::initializer_list<std::string_view> long_names);

  // Reads every value given into `cli`, in table order. Returns the first
  // bad value's InvalidArgument (ApplyOption()'s one-line message).
  Status Apply(CliOptions& cli) const;

  // Whether the option `long_name` was given on the command line.
  bool Given(std::string_view long_name) const;

  // Hides from help every option whose `commands` lack `command` (it is
  // still parsed, so that it can be refused by name: GivenOutside()).
  void HideOutside(unsigned command);
  // The long name of the first option given (in table order) whose
  // `commands` lack `command`; "" when there is none.
  std::string_view GivenOutside(unsigned command) const;

 private:
  struct Bound {
    const OptionSpec* spec = nullptr;
    CLI::Option* option = nullptr;
    std::string text;                // single values, as typed
    std::vector<std::string> texts;  // repeatable values and operands
    bool flag = false;
    int count = 0;
  };
  void Add(CLI::App* app, const OptionSpec& spec);
  void LinkExclusions();

  std::deque<Bound> bound_;  // a deque: CLI11 keeps pointers into each Bound
};

// The help of neardup's commands, as CLI11 lays it out less its leftovers:
// an option shows its value name and default as the table spells them
// ("-t,--threshold X [0.8]"), never CLI11's type names, "REQUIRED" or
// "Excludes:"; an operand shows as its name ("PATH..."); one blank line
// between groups. Set on the top command before its subcommands are added
// (they inherit it).
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override;
  std::string make_option_opts(const CLI::Option* opt) const override;
};

// Sets a front-end option (OptionSpec::front_end) in `cli`, from `text` as
// typed ("" for a flag, once per occurrence). Returns InvalidArgument for a
// bad value, or Internal for an option the front end does not know.
Status ApplyFrontEndOption(const OptionSpec& spec, std::string_view text, CliOptions& cli);

}  // namespace neardup::cli
