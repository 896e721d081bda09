#include "cli/bound_options.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace neardup::cli {

namespace {

using FrontEndSetter = Status (*)(const OptionSpec& spec, std::string_view text, CliOptions& cli);

struct FrontEndOption {
  std::string_view long_name;
  FrontEndSetter set;
};

// How each front-end option of the table reaches CliOptions.
constexpr FrontEndOption kFrontEndOptions[] = {
    {"--files-from",
     [](const OptionSpec&, std::string_view text, CliOptions& cli) {
       cli.files_from.emplace_back(text);
       return Status::Ok();
     }},
    {"--files0-from",
     [](const OptionSpec&, std::string_view text, CliOptions& cli) {
       cli.files0_from.emplace_back(text);
       return Status::Ok();
     }},
    {"--format",
     [](const OptionSpec& spec, std::string_view text, CliOptions& cli) {
       const std::optional<int> format = FindEnumValue(spec.choices, text);
       if (!format) return InvalidValue(spec, text);
       cli.format = static_cast<OutputFormat>(*format);
       return Status::Ok();
     }},
    {"--color",
     [](const OptionSpec& spec, std::string_view text, CliOptions& cli) {
       const std::optional<int> when = FindEnumValue(spec.choices, text);
       if (!when) return InvalidValue(spec, text);
       cli.color = static_cast<ColorWhen>(*when);
       return Status::Ok();
     }},
    {"--output",
     [](const OptionSpec&, std::string_view text, CliOptions& cli) {
       if (text.empty()) return Status::InvalidArgument("--output needs a file name ('-' for stdout), got ''");
       cli.output = std::string(text);
       return Status::Ok();
     }},
    {"--null",
     [](const OptionSpec&, std::string_view, CliOptions& cli) {
       cli.terminator = '\0';
       return Status::Ok();
     }},
    {"--quiet",
     [](const OptionSpec&, std::string_view, CliOptions& cli) {
       cli.verbosity = -1;
       return Status::Ok();
     }},
    {"--verbose",
     [](const OptionSpec&, std::string_view, CliOptions& cli) {
       ++cli.verbosity;
       return Status::Ok();
     }},
    {"--progress",
     [](const OptionSpec&, std::string_view, CliOptions& cli) {
       cli.progress = true;
       return Status::Ok();
     }},
    {"--no-progress",
     [](const OptionSpec&, std::string_view, CliOptions& cli) {
       cli.progress = false;
       return Status::Ok();
     }},
};

}  // namespace

Status ApplyFrontEndOption(const OptionSpec& spec, std::string_view text, CliOptions& cli) {
  for (const FrontEndOption& option : kFrontEndOptions) {
    if (option.long_name == spec.name()) return option.set(spec, text, cli);
  }
  return Status::Internal(std::string(spec.long_name).append(" has no front-end setter"));
}

std::string HelpFormatter::make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const {
  // CLI11 ends each group of options with a blank line and starts the next
  // with one: one is enough. Without a footer, no blank line at the end.
  const std::string help = CLI::Formatter::make_help(app, std::move(name), mode);
  std::string out;
  for (const char c : help) {
    if (c != '\n' || !out.ends_with("\n\n")) out.push_back(c);
  }
  while (out.ends_with("\n\n")) out.pop_back();
  return out;
}

std::string HelpFormatter::make_option_opts(const CLI::Option* opt) const {
  if (opt->get_positional()) return opt->get_expected_max() >= CLI::detail::expected_max_vector_size ? "..." : "";
  if (opt->get_option_text().empty()) return "";
  return " " + opt->get_option_text();
}

void BoundOptions::Register(CLI::App* app, unsigned command) {
  for (const OptionSpec& spec : OptionTable()) {
    if ((spec.commands & command) != 0) Add(app, spec);
  }
  LinkExclusions();
}

void BoundOptions::Register(CLI::App* app, std::initializer_list<std::string_view> long_names) {
  for (const OptionSpec& spec : OptionTable()) {
    if (std::find(long_names.begin(), long_names.end(), spec.name()) != long_names.end()) Add(app, spec);
  }
  assert(bound_.size() >= long_names.size());
  LinkExclusions();
}

void BoundOptions::Add(CLI::App* app, const OptionSpec& spec) {
  Bound& b = bound_.emplace_back();
  b.spec = &spec;
  const std::string names =
      *spec.short_name != '\0' ? std::string(spec.short_name).append(",").append(spec.long_name) : spec.long_name;
  const std::string help = HelpLine(spec);
  std::string value_text = ValueName(spec);
  if (const std::string shown = DefaultText(spec); !shown.empty()) value_text.append(" [").append(shown).append("]");
  switch (spec.kind) {
    case ValueKind::kFlag:
      b.option = app->add_flag(names, b.flag, help);
      break;
    case ValueKind::kCount:
      b.option = app->add_flag(names, b.count, help);
      break;
    case ValueKind::kPositional:
      b.option = app->add_option(names, b.texts, help);
      break;
    case ValueKind::kTextList:
      b.option = app->add_option(names, b.texts, help)->option_text(value_text)->allow_extra_args(false);
      break;
    default:
      b.option = app->add_option(names, b.text, help)->option_text(value_text);
      break;
  }
  b.option->group(ToString(spec.group));
}

void BoundOptions::LinkExclusions() {
  for (Bound& b : bound_) {
    if (*b.spec->excludes == '\0') continue;
    for (Bound& other : bound_) {
      if (other.spec->name() == b.spec->excludes && !b.option->get_excludes().count(other.option)) {
        b.option->excludes(other.option);
      }
    }
  }
}

Status BoundOptions::Apply(CliOptions& cli) const {
  for (const Bound& b : bound_) {
    if (b.option->count() == 0) continue;
    const OptionSpec& spec = *b.spec;
    auto apply = [&](std::string_view text) {
      return spec.front_end ? ApplyFrontEndOption(spec, text, cli) : ApplyOption(spec, text, cli.scan);
    };
    switch (spec.kind) {
      case ValueKind::kFlag:
        if (b.flag) {
          if (Status s = apply(""); !s.ok()) return s;
        }
        break;
      case ValueKind::kCount:
        for (int i = 0; i < b.count; ++i) {
          if (Status s = apply(""); !s.ok()) return s;
        }
        break;
      case ValueKind::kPositional:
      case ValueKind::kTextList:
        for (const std::string& text : b.texts) {
          if (Status s = apply(text); !s.ok()) return s;
        }
        break;
      default:
        if (Status s = apply(b.text); !s.ok()) return s;
        break;
    }
  }
  return Status::Ok();
}

bool BoundOptions::Given(std::string_view long_name) const {
  for (const Bound& b : bound_) {
    if (b.spec->name() == long_name) return b.option->count() > 0;
  }
  return false;
}

void BoundOptions::HideOutside(unsigned command) {
  for (Bound& b : bound_) {
    if ((b.spec->commands & command) == 0) b.option->group("");
  }
}

std::string_view BoundOptions::GivenOutside(unsigned command) const {
  for (const Bound& b : bound_) {
    if ((b.spec->commands & command) == 0 && b.option->count() > 0) return b.spec->name();
  }
  return {};
}

}  // namespace neardup::cli
