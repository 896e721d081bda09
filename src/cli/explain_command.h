// The explain command: why scan does (or does not) report a pair.
#pragma once

#include <cstddef>
#include <ostream>

#include "cli/cli_options.h"
#include "cli/exit_code.h"
#include "neardup/word_diff.h"

namespace neardup {
struct PairExplanation;  // neardup/explain.h
}  // namespace neardup

namespace neardup::cli {

// Reads the pair named by options.explain_args (ExplainPair), prints its
// facts and a word diff as text (-f text) or one JSON object (-f json) on
// `out`. Exit status: 0 when scan would report the pair under the options'
// --verify setting, 1 when not, 2 on an error (logged on stderr).
ExitCode RunExplain(const CliOptions& options, std::ostream& out);

// How removed and added words are marked in the text diff.
enum class DiffMarks {
  kBrackets,  // [-removed-]{+added+}, as git diff --word-diff=plain
  kColor,     // red and green (ANSI), as git diff --word-diff=color
};

// Whether to colour what is written on `fd`: always, never, or (auto) when
// `fd` is a terminal and NO_COLOR is unset or empty (https://no-color.org).
bool UseColor(ColorWhen when, int fd);

// The width of the terminal `fd` is, in columns: COLUMNS when set to a
// number, else the terminal's own width, else (not a terminal)
// kDefaultWidth.
inline constexpr size_t kDefaultWidth = 80;
size_t TerminalWidth(int fd);

// The text report of `e` and then its word diff, as RunExplain prints it,
// the diff wrapped between words to fit `width` columns.
void WriteExplanationText(const PairExplanation& e, const std::vector<DiffRun>& diff, DiffMarks marks, size_t width,
                          std::ostream& out);
// The same facts and diff as one JSON object and a newline.
void WriteExplanationJson(const PairExplanation& e, const std::vector<DiffRun>& diff, std::ostream& out);

}  // namespace neardup::cli
