// OptionTable: every command-line option of neardup, each defined once.
//
// One entry per option: its long name and short alias, the name of its value,
// the help group it is listed under, its default as help shows it, its valid
// range, its help line, the spellings of its values, and the commands it
// applies to. Everything that states an option comes from here: the front
// end's registration and help text (src/cli/), the checks of
// ValidateOptions(), the spellings that ToString() and the json "params"
// object write, and the README's options table (tests compare them).
//
// Options of the core (those that fill an Options) carry accessors, so that
// reading a value as typed (ApplyOption) and checking a value held
// (CheckOptionRange) are generic, written once per kind of value. Options of
// the front end only (-f, -o, -q, -v, --progress, -0, --files-from...) are in
// the table with `front_end` set and no accessors: the front end applies them.
//
//   const OptionSpec* spec = FindOption("--threshold");
//   Status s = ApplyOption(*spec, "0.9", options);  // or "--threshold must be in (0, 1], got 2"
//
// Thread safety: the table is immutable static data; the functions are pure.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/options.h"
#include "neardup/status.h"

namespace neardup {

// ---------------------------------------------------------------- spellings

// One spelling of an enum value, as typed on the command line and written in
// the output. The first spelling of a value is its name (ToString()); later
// ones are accepted aliases ("utf-8" for "utf8").
struct EnumName {
  const char* name;
  int value;
};

inline constexpr EnumName kShingleUnitNames[] = {{"word", static_cast<int>(ShingleUnit::kWord)},
                                                 {"char", static_cast<int>(ShingleUnit::kChar)}};
inline constexpr EnumName kVerifyModeNames[] = {{"signature", static_cast<int>(VerifyMode::kSignature)},
                                                {"exact", static_cast<int>(VerifyMode::kExact)},
                                                {"none", static_cast<int>(VerifyMode::kNone)}};
inline constexpr EnumName kInputFormatNames[] = {{"text", static_cast<int>(InputFormat::kText)},
                                                 {"jsonl", static_cast<int>(InputFormat::kJsonl)},
                                                 {"parquet", static_cast<int>(InputFormat::kParquet)}};
inline constexpr EnumName kEncodingNames[] = {{"utf8", static_cast<int>(Encoding::kUtf8)},
                                              {"utf-8", static_cast<int>(Encoding::kUtf8)},
                                              {"latin1", static_cast<int>(Encoding::kLatin1)},
                                              {"latin-1", static_cast<int>(Encoding::kLatin1)},
                                              {"iso-8859-1", static_cast<int>(Encoding::kLatin1)}};
inline constexpr EnumName kStripNames[] = {{"none", static_cast<int>(Strip::kNone)},
                                           {"html", static_cast<int>(Strip::kHtml)},
                                           {"mail", static_cast<int>(Strip::kMail)}};
inline constexpr EnumName kRelationNames[] = {{"similar", static_cast<int>(Relation::kSimilar)},
                                              {"contains", static_cast<int>(Relation::kContains)},
                                              {"both", static_cast<int>(Relation::kBoth)}};
inline constexpr EnumName kModeNames[] = {{"pairs", static_cast<int>(Mode::kPairs)},
                                          {"clusters", static_cast<int>(Mode::kClusters)},
                                          {"duplicates", static_cast<int>(Mode::kDuplicates)}};
inline constexpr EnumName kKeepRuleNames[] = {{"first", static_cast<int>(KeepRule::kFirst)},
                                              {"longest", static_cast<int>(KeepRule::kLongest)},
                                              {"shortest", static_cast<int>(KeepRule::kShortest)},
                                              {"newest", static_cast<int>(KeepRule::kNewest)},
                                              {"oldest", static_cast<int>(KeepRule::kOldest)}};
inline constexpr EnumName kClusterByNames[] = {{"connected", static_cast<int>(ClusterBy::kConnected)},
                                               {"keep", static_cast<int>(ClusterBy::kKeep)}};
inline constexpr EnumName kOutputFormatNames[] = {{"jsonl", static_cast<int>(OutputFormat::kJsonl)},
                                                  {"json", static_cast<int>(OutputFormat::kJson)},
                                                  {"csv", static_cast<int>(OutputFormat::kCsv)},
                                                  {"tsv", static_cast<int>(OutputFormat::kTsv)},
                                                  {"html", static_cast<int>(OutputFormat::kHtml)}};
// --color: colour the output on a terminal (auto, unless NO_COLOR is set), always or never.
enum class ColorWhen { kAuto, kAlways, kNever };
inline constexpr EnumName kColorWhenNames[] = {{"auto", static_cast<int>(ColorWhen::kAuto)},
                                               {"always", static_cast<int>(ColorWhen::kAlways)},
                                               {"never", static_cast<int>(ColorWhen::kNever)}};
// explain's -f: json only (its default is text).
inline constexpr EnumName kExplainFormatNames[] = {{"json", static_cast<int>(OutputFormat::kJson)}};

// The spellings of each enum, found by the enum's type.
constexpr std::span<const EnumName> EnumNames(ShingleUnit) { return kShingleUnitNames; }
constexpr std::span<const EnumName> EnumNames(VerifyMode) { return kVerifyModeNames; }
constexpr std::span<const EnumName> EnumNames(InputFormat) { return kInputFormatNames; }
constexpr std::span<const EnumName> EnumNames(Encoding) { return kEncodingNames; }
constexpr std::span<const EnumName> EnumNames(Strip) { return kStripNames; }
constexpr std::span<const EnumName> EnumNames(Mode) { return kModeNames; }
constexpr std::span<const EnumName> EnumNames(Relation) { return kRelationNames; }
constexpr std::span<const EnumName> EnumNames(KeepRule) { return kKeepRuleNames; }
constexpr std::span<const EnumName> EnumNames(ClusterBy) { return kClusterByNames; }
constexpr std::span<const EnumName> EnumNames(OutputFormat) { return kOutputFormatNames; }

// The value spelled `text` in `names`, ignoring ASCII case; only names, never
// an index ("1" is no mode).
std::optional<int> FindEnumValue(std::span<const EnumName> names, std::string_view text);

// The name of `value` (its first spelling); "?" for a value not listed.
const char* EnumValueName(std::span<const EnumName> names, int value);

// FromString<Mode>("clusters") == Mode::kClusters; nothing for an unknown text.
template <typename E>
std::optional<E> FromString(std::string_view text) {
  const std::optional<int> value = FindEnumValue(EnumNames(E{}), text);
  if (!value) return std::nullopt;
  return static_cast<E>(*value);
}

// The name of an enum value: NameOf(Mode::kPairs) == "pairs". (ToString() in
// options.h says the same for the core's enums.)
template <typename E>
const char* NameOf(E value) {
  return EnumValueName(EnumNames(E{}), static_cast<int>(value));
}

// ------------------------------------------------------------------- table

// The groups of `--help`, in the order they are listed.
enum class OptionGroup { kInput, kShingling, kVerification, kOutput, kClusters, kExecution, kIndex, kLogging };
inline constexpr OptionGroup kOptionGroups[] = {
    OptionGroup::kInput,    OptionGroup::kShingling, OptionGroup::kVerification, OptionGroup::kOutput,
    OptionGroup::kClusters, OptionGroup::kExecution, OptionGroup::kIndex,        OptionGroup::kLogging};
// "Input", "Shingling & LSH", "Verification", "Output", "Clusters", "Execution", "Index", "Logging".
const char* ToString(OptionGroup group);

// The commands an option applies to: bits of OptionSpec::commands.
inline constexpr unsigned kScanCommand = 1u << 0;
inline constexpr unsigned kParamsCommand = 1u << 1;
inline constexpr unsigned kExplainCommand = 1u << 2;
// `neardup stage sign|bucket|verify|report`: one set for them all, as every stage
// must be given the same options; an option of scan no stage reads (--index,
// --new, --lock-wait, --progress) is refused by name.
inline constexpr unsigned kStageCommand = 1u << 3;
// `neardup stage filter` alone, besides kStageCommand: --kept-dir and
// --kept-copy, which the other stages refuse, naming stage filter.
inline constexpr unsigned kStageFilterCommand = 1u << 4;

enum class ValueKind {
  kFlag,        // no value; giving it once or more has one effect
  kCount,       // no value; counted (-vv is 2)
  kInteger,     // a decimal integer within `range`
  kReal,        // a decimal number within `range`
  kSize,        // a byte count such as 10M (ParseSize()) within `range`
  kChoice,      // one of `choices`, in any ASCII case
  kText,        // any text (the last one given)
  kTextList,    // any text, repeatable: one value each time
  kPositional,  // the command's operands (PATH...)
};

// The valid values of a number. 0 may also mean "not given" (`zero_is_unset`:
// chosen by neardup, such as --bands or --threads).
struct ValueRange {
  long long low = 0;
  unsigned long long high = 0;
  bool has_high = false;   // else: no upper bound
  bool low_open = false;   // kReal: (low, ...
  bool high_open = false;  // kReal: ..., high)
  bool zero_is_unset = false;
};

struct OptionSpec {
  const char* long_name = "";   // "--threshold"; a positional's name ("PATH")
  const char* short_name = "";  // "-t", or ""
  const char* value_name = "";  // "X", "FILE"; "" for flags and choices (spelled from `choices`)
  OptionGroup group = OptionGroup::kInput;
  // A front-end option's default as help shows it ("jsonl"), a value that
  // reads back as the front end's default; "" when there is none. A core
  // option leaves it "": DefaultText() reads its default from Options{}.
  const char* default_text = "";
  // What leaving the option out means, when no value says it ("chosen",
  // "cores", "no limit"; the core's 0); else "".
  const char* unset_text = "";
  ValueKind kind = ValueKind::kFlag;
  ValueRange range = {};                   // kInteger, kReal, kSize
  std::span<const EnumName> choices = {};  // kChoice
  // What a bad value must be, when the kind's phrase does not say it well
  // ("a size such as 500K, 10M or 2G"); else "". `zero_expects`: the same,
  // for a value of 0 (kSize); else "".
  const char* expects = "";
  const char* zero_expects = "";
  const char* help = "";      // one line, without the range (RangeText() adds it)
  unsigned commands = 0;      // kScanCommand | kParamsCommand | kExplainCommand | kStageCommand | kStageFilterCommand
  const char* excludes = "";  // the long name of an option not to be given with it, or ""
  bool front_end = false;     // read by the front end into its own options, not Options

  // Accessors into Options (core options only; null for the others):
  // numbers and choices (as their EnumName::value); flags (put(1) = given).
  long double (*get)(const Options&) = nullptr;
  void (*put)(Options&, long double) = nullptr;
  std::string* (*text)(Options&) = nullptr;               // kText
  std::vector<std::string>* (*list)(Options&) = nullptr;  // kTextList, kPositional

  std::string_view name() const { return long_name; }
};

// Every option, in help order: by group (kOptionGroups), then as listed.
std::span<const OptionSpec> OptionTable();

// The entry named `long_name` ("--mode") or `short_name` ("-t"); nullptr if none.
// A name may have one entry per command (-f: scan's formats, explain's json);
// this is the first.
const OptionSpec* FindOption(std::string_view name);

// Reads `text`, the value as typed after the option ("" for a flag), into
// `options`. Returns InvalidArgument, one line naming the option and the
// value as typed: "--num-perm must be an integer from 1 to 4096, got 0".
// REQUIRES: !spec.front_end.
Status ApplyOption(const OptionSpec& spec, std::string_view text, Options& options);

// Checks the value `options` holds for a ranged option (kInteger, kReal,
// kSize, kChoice) against the table; Ok for other kinds. The message has the
// same form as ApplyOption's, with the value as held ("got 5000").
Status CheckOptionRange(const OptionSpec& spec, const Options& options);

// The error for a bad value as typed: InvalidArgument "<long name> must be
// <Expectation()>, got <ShownValue(text)>".
Status InvalidValue(const OptionSpec& spec, std::string_view text);

// What a bad value must be: "in (0, 1]", "an integer from 1 to 64", "an
// integer of at least 1", "pairs, clusters or duplicates".
std::string Expectation(const OptionSpec& spec);

// The value's name in help: "X", or the choices' names "word|char".
std::string ValueName(const OptionSpec& spec);

// The range in help: "0 < X <= 1", "1..4096", ">= 1", "0..2^64-1"; "" if none
// (or when the upper bound is only that of an int, as for --bands).
std::string RangeText(const OptionSpec& spec);

// The default in help. A core option's is read from Options{} and spelled as
// it would be typed ("0.8", "256M", "word", "text"); a value that means "not
// given" (0 where `zero_is_unset`, an empty text) and a flag show
// `unset_text` instead. A front-end option's is `default_text`, else
// `unset_text`. "" if none.
std::string DefaultText(const OptionSpec& spec);

// The help line: `help`, with the range when there is one.
std::string HelpLine(const OptionSpec& spec);

// A value as typed, for a message: '' when empty, control characters as '?',
// at most 40 bytes (then "..."), so that the message stays one short line.
std::string ShownValue(std::string_view text);

// "10M" -> 10485760. Suffixes K, M, G, T (powers of 1024), optional "B"/"iB",
// any case. Nothing for a text that is not a size or overflows 64 bits.
std::optional<uint64_t> ParseSize(std::string_view text);

}  // namespace neardup
