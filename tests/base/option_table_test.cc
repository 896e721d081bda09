#include "neardup/option_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "neardup/report.h"
#include "test_paths.h"

namespace neardup {
namespace {

bool IsRanged(const OptionSpec& spec) {
  return spec.kind == ValueKind::kInteger || spec.kind == ValueKind::kReal || spec.kind == ValueKind::kSize;
}

TEST(OptionTableTest, EveryEntryHasNameHelpGroupAndCommands) {
  std::set<std::string> names;
  const std::set<OptionGroup> groups(std::begin(kOptionGroups), std::end(kOptionGroups));
  for (const OptionSpec& spec : OptionTable()) {
    SCOPED_TRACE(spec.long_name);
    const std::string name = spec.long_name;
    if (spec.kind == ValueKind::kPositional) {
      EXPECT_FALSE(name.empty());
    } else {
      EXPECT_TRUE(name.starts_with("--") && name.size() > 3) << name;
    }
    // A name has one entry per command (-f: scan's formats, explain's json).
    for (unsigned command = 1; command != 0 && command <= spec.commands; command <<= 1) {
      if ((spec.commands & command) == 0) continue;
      const std::string bit = std::to_string(command) + ":";
      EXPECT_TRUE(names.insert(bit + name).second) << "defined twice";
      const std::string short_name = spec.short_name;
      if (!short_name.empty()) {
        EXPECT_TRUE(names.insert(bit + short_name).second) << "short name used twice";
      }
    }
    const std::string short_name = spec.short_name;
    if (!short_name.empty()) {
      EXPECT_EQ(short_name.size(), 2u);
      EXPECT_EQ(short_name[0], '-');
    }
    EXPECT_STRNE(spec.help, "");
    EXPECT_STRNE(ToString(spec.group), "?");
    EXPECT_EQ(groups.count(spec.group), 1u);
    EXPECT_NE(spec.commands, 0u);
    // FindOption gives the first entry of a name, another command's or this one.
    const OptionSpec* found = FindOption(name);
    ASSERT_NE(found, nullptr);
    EXPECT_TRUE(found == &spec || (found->commands & spec.commands) == 0);
    if (!short_name.empty()) {
      EXPECT_EQ(FindOption(short_name), FindOption(name));
    }
    // A value has a name; a flag has none.
    const bool takes_value = spec.kind != ValueKind::kFlag && spec.kind != ValueKind::kCount;
    EXPECT_EQ(!ValueName(spec).empty(), takes_value && spec.kind != ValueKind::kPositional) << ValueName(spec);
    if (spec.kind == ValueKind::kChoice) {
      EXPECT_FALSE(spec.choices.empty());
    }
    if (*spec.excludes != '\0') {
      EXPECT_NE(FindOption(spec.excludes), nullptr);
    }
    // Core options reach Options through the accessor their kind needs;
    // front-end options have none.
    if (spec.front_end) {
      EXPECT_TRUE(spec.get == nullptr && spec.put == nullptr && spec.text == nullptr && spec.list == nullptr);
    } else if (spec.kind == ValueKind::kText) {
      EXPECT_NE(spec.text, nullptr);
    } else if (spec.kind == ValueKind::kTextList || spec.kind == ValueKind::kPositional) {
      EXPECT_NE(spec.list, nullptr);
    } else {
      EXPECT_NE(spec.put, nullptr);
      if (spec.kind != ValueKind::kFlag) {
        EXPECT_NE(spec.get, nullptr);
      }
    }
  }
}

TEST(OptionTableTest, OptionsAreListedByGroupInHelpOrder) {
  size_t group = 0;
  for (const OptionSpec& spec : OptionTable()) {
    while (group < std::size(kOptionGroups) && kOptionGroups[group] != spec.group) ++group;
    ASSERT_LT(group, std::size(kOptionGroups)) << spec.long_name << " is out of its group's place";
  }
}

// A value help shows as the default, rather than what leaving it out means.
bool ShowsADefaultValue(const OptionSpec& spec) {
  const std::string shown = DefaultText(spec);
  return !shown.empty() && shown != spec.unset_text;
}

TEST(OptionTableTest, CoreDefaultsAreReadFromOptionsNotWrittenInTheTable) {
  for (const OptionSpec& spec : OptionTable()) {
    if (!spec.front_end) {
      EXPECT_STREQ(spec.default_text, "") << spec.long_name;
    }
  }
}

TEST(OptionTableTest, EveryDefaultReadsBackAsTheDefaultOfOptions) {
  int checked = 0;
  for (const OptionSpec& spec : OptionTable()) {
    if (spec.front_end || !ShowsADefaultValue(spec)) continue;
    SCOPED_TRACE(spec.long_name);
    const std::string shown = DefaultText(spec);
    Options options;
    ASSERT_TRUE(ApplyOption(spec, shown, options).ok());
    EXPECT_TRUE(options == Options{}) << shown << " is not the default of Options";
    EXPECT_TRUE(ValidateOptions(options).ok());
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

TEST(OptionTableTest, OptionsWithoutADefaultSayWhatTheirAbsenceMeans) {
  for (const OptionSpec& spec : OptionTable()) {
    if (!IsRanged(spec) || ShowsADefaultValue(spec)) continue;
    SCOPED_TRACE(spec.long_name);
    EXPECT_TRUE(spec.range.zero_is_unset);
    EXPECT_STRNE(spec.unset_text, "");
    // The absence is Options' 0, which validates.
    Options options;
    EXPECT_EQ(spec.get(options), 0);
    EXPECT_TRUE(CheckOptionRange(spec, options).ok());
  }
}

TEST(OptionTableTest, EnumSpellingsRoundTrip) {
  const std::vector<std::span<const EnumName>> lists = {kShingleUnitNames, kVerifyModeNames,  kInputFormatNames,
                                                        kEncodingNames,    kModeNames,        kKeepRuleNames,
                                                        kClusterByNames,   kOutputFormatNames};
  for (const auto names : lists) {
    for (const EnumName& entry : names) {
      SCOPED_TRACE(entry.name);
      EXPECT_EQ(FindEnumValue(names, entry.name), entry.value);
      std::string upper = entry.name;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      EXPECT_EQ(FindEnumValue(names, upper), entry.value);
      // The name of the value is its first spelling, which reads back as it.
      EXPECT_EQ(FindEnumValue(names, EnumValueName(names, entry.value)), entry.value);
    }
    EXPECT_FALSE(FindEnumValue(names, "0"));
    EXPECT_FALSE(FindEnumValue(names, ""));
    EXPECT_STREQ(EnumValueName(names, 99), "?");
  }
  EXPECT_EQ(FromString<Mode>("Duplicates"), Mode::kDuplicates);
  EXPECT_EQ(FromString<Encoding>("ISO-8859-1"), Encoding::kLatin1);
  EXPECT_STREQ(NameOf(Encoding::kLatin1), "latin1");
  EXPECT_STREQ(ToString(VerifyMode::kNone), "none");
  EXPECT_STREQ(NameOf(OutputFormat::kTsv), "tsv");
  EXPECT_FALSE(FromString<KeepRule>("1"));
}

TEST(OptionTableTest, EveryChoiceOfEveryOptionReachesOptions) {
  for (const OptionSpec& spec : OptionTable()) {
    if (spec.kind != ValueKind::kChoice || spec.front_end) continue;
    for (const EnumName& entry : spec.choices) {
      Options options;
      ASSERT_TRUE(ApplyOption(spec, entry.name, options).ok()) << spec.long_name << " " << entry.name;
      EXPECT_EQ(spec.get(options), entry.value);
      EXPECT_TRUE(CheckOptionRange(spec, options).ok());
    }
    Options options;
    EXPECT_EQ(ApplyOption(spec, "1", options).message(),
              std::string(spec.long_name) + " must be " + Expectation(spec) + ", got 1");
  }
}

// The value as ValidateOptions() writes it: an integer, or the shortest text
// of a double.
std::string Printed(const OptionSpec& spec, long double value) {
  if (spec.kind != ValueKind::kReal) {
    return value < 0 ? std::to_string(static_cast<long long>(value))
                     : std::to_string(static_cast<unsigned long long>(value));
  }
  char text[64];
  const auto result = std::to_chars(text, text + sizeof text, static_cast<double>(value));
  return std::string(text, result.ptr);
}

// Generated from the table: a new ranged option is covered without a new test.
TEST(OptionTableTest, ValidateOptionsRejectsValuesOutOfEveryRange) {
  int rejected = 0;
  for (const OptionSpec& spec : OptionTable()) {
    if (!IsRanged(spec) || spec.front_end) continue;
    const ValueRange& r = spec.range;
    const auto low = static_cast<long double>(r.low);
    const auto high = static_cast<long double>(r.high);
    std::vector<long double> bad;
    if (spec.kind == ValueKind::kReal) {
      bad.push_back(r.low_open ? low : low - 0.5L);
      bad.push_back(low - 1);
      if (r.has_high) bad.push_back(r.high_open ? high : high + 0.5L);
      bad.push_back(std::nanl(""));
    } else {
      bad.push_back(low - 1);
      bad.push_back(low - 2);
      if (r.has_high) bad.push_back(high + 1);
    }
    for (const long double value : bad) {
      if (r.zero_is_unset && value == 0) continue;
      Options options;
      spec.put(options, value);
      const long double held = spec.get(options);
      if (!(held == value) && !(std::isnan(held) && std::isnan(value))) continue;  // the field cannot hold it
      SCOPED_TRACE(std::string(spec.long_name) + " " + Printed(spec, value));
      const Status status = ValidateOptions(options);
      ASSERT_FALSE(status.ok());
      EXPECT_EQ(status.code(), Status::Code::kInvalidArgument);
      const std::string expects = value == 0 && *spec.zero_expects != '\0' ? spec.zero_expects : Expectation(spec);
      EXPECT_EQ(status.message(),
                std::string(spec.long_name) + " must be " + expects + ", got " + Printed(spec, value));
      ++rejected;
    }
    // And the bounds themselves are accepted.
    Options options;
    if (!r.low_open) {
      spec.put(options, low);
      EXPECT_TRUE(CheckOptionRange(spec, options).ok()) << spec.long_name;
    }
    if (r.has_high && !r.high_open) {
      spec.put(options, high);
      EXPECT_TRUE(CheckOptionRange(spec, options).ok()) << spec.long_name;
    }
  }
  EXPECT_GE(rejected, 12);
}

TEST(OptionTableTest, ApplyOptionChecksTheTextAsTyped) {
  Options options;
  const OptionSpec& threshold = *FindOption("-t");
  EXPECT_EQ(ApplyOption(threshold, "0.8x", options).message(), "--threshold must be in (0, 1], got 0.8x");
  EXPECT_EQ(ApplyOption(threshold, "", options).message(), "--threshold must be in (0, 1], got ''");
  ASSERT_TRUE(ApplyOption(threshold, "1", options).ok());
  EXPECT_EQ(options.threshold, 1.0);
  const OptionSpec& seed = *FindOption("--seed");
  ASSERT_TRUE(ApplyOption(seed, "18446744073709551615", options).ok());
  EXPECT_EQ(options.seed, ~uint64_t{0});
  EXPECT_EQ(ApplyOption(seed, "18446744073709551616", options).message(),
            "--seed must be an integer from 0 to 18446744073709551615, got 18446744073709551616");
  const OptionSpec& size = *FindOption("--max-filesize");
  EXPECT_EQ(ApplyOption(size, "0K", options).message(),
            "--max-filesize must be more than 0 (without it there is no limit), got 0K");
  ASSERT_TRUE(ApplyOption(size, "2G", options).ok());
  EXPECT_EQ(options.max_filesize, uint64_t{2} << 30);
  ASSERT_TRUE(ApplyOption(*FindOption("--exact-all"), "", options).ok());
  EXPECT_EQ(options.verify, VerifyMode::kExact);
  EXPECT_EQ(options.exact_margin, 0.0);
  ASSERT_TRUE(ApplyOption(*FindOption("-g"), "*.md", options).ok());
  ASSERT_TRUE(ApplyOption(*FindOption("-g"), "!a/**", options).ok());
  EXPECT_EQ(options.globs, (std::vector<std::string>{"*.md", "!a/**"}));
}

TEST(OptionTableTest, HelpTextsComeFromTheTable) {
  EXPECT_EQ(HelpLine(*FindOption("--threshold")), "Jaccard similarity threshold, 0 < X <= 1");
  EXPECT_EQ(HelpLine(*FindOption("--num-perm")), "MinHash permutations (signature length), 1..4096");
  EXPECT_EQ(ValueName(*FindOption("--encoding")), "utf8|latin1");
  EXPECT_EQ(Expectation(*FindOption("--encoding")), "utf8, utf-8, latin1, latin-1 or iso-8859-1");
  EXPECT_EQ(DefaultText(*FindOption("--bands")), "chosen");
  EXPECT_EQ(DefaultText(*FindOption("--max-line")), "256M");
  EXPECT_EQ(RangeText(*FindOption("--seed")), "0..2^64-1");
  // A real without an upper bound says so (it once printed "0 <= SECONDS <= 0").
  EXPECT_EQ(HelpLine(*FindOption("--lock-wait")),
            "With --index: wait this long for another run holding the index, SECONDS >= 0");
  Options options;
  EXPECT_EQ(ApplyOption(*FindOption("--lock-wait"), "-1", options).message(),
            "--lock-wait must be a number of at least 0, got -1");
  ASSERT_TRUE(ApplyOption(*FindOption("--lock-wait"), "86400", options).ok());
  EXPECT_EQ(options.lock_wait, 86400.0);
}

// The README's options tables: one row per option, "| `-t, --threshold X` |
// meaning | default |", the default as help shows it.
TEST(OptionTableTest, ReadmeListsEveryOptionWithItsDefault) {
  std::ifstream in(std::string(::neardup::testing::SourceDir()) + "/README.md");
  ASSERT_TRUE(in) << "README.md not found";
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("| `")) rows.push_back(line);
  }
  for (const OptionSpec& spec : OptionTable()) {
    if (spec.kind == ValueKind::kPositional) continue;
    SCOPED_TRACE(spec.long_name);
    std::string names = spec.long_name;
    if (*spec.short_name != '\0') names = std::string(spec.short_name) + ", " + names;
    // A Markdown table cell escapes the | of "jsonl|json".
    std::string value;
    for (const char c : ValueName(spec)) value.append(c == '|' ? "\\|" : std::string(1, c));
    const std::string start = "| `" + names + (value.empty() ? "`" : " " + value + "`");
    const auto row = std::find_if(rows.begin(), rows.end(), [&](const std::string& r) { return r.starts_with(start); });
    ASSERT_NE(row, rows.end()) << "no README row starts with " << start;
    const std::string shown = DefaultText(spec);
    if (!shown.empty()) {
      EXPECT_TRUE(row->ends_with("| " + shown + " |")) << *row;
    }
  }
}

TEST(ParamsTest, ComeFromOptionsAndTheBanding) {
  Options options;
  options.shingle = ShingleUnit::kChar;
  options.against = {"ref"};
  const Params p = MakeParams(options, Banding{20, 5});
  EXPECT_EQ(p.ngram, 9);
  EXPECT_EQ(p.bands, 20);
  EXPECT_EQ(p.rows, 5);
  EXPECT_TRUE(p.has_reference);
  const Params defaults;
  EXPECT_EQ(defaults.threshold, Options{}.threshold);
  EXPECT_EQ(defaults.ngram, Options{}.EffectiveNgram());
  EXPECT_EQ(defaults.seed, Options{}.seed);
  EXPECT_EQ(defaults.bands, 0);
}

TEST(ParseSizeTest, SuffixesArePowersOf1024) {
  EXPECT_EQ(ParseSize("512"), 512u);
  EXPECT_EQ(ParseSize("10K"), 10240u);
  EXPECT_EQ(ParseSize("10M"), 10u << 20);
  EXPECT_EQ(ParseSize("2G"), 2ull << 30);
  EXPECT_EQ(ParseSize("1MiB"), 1u << 20);
  EXPECT_EQ(ParseSize("3kb"), 3072u);
  EXPECT_FALSE(ParseSize("M"));
  EXPECT_FALSE(ParseSize("10X"));
  EXPECT_FALSE(ParseSize("99999999999999999999"));
  EXPECT_FALSE(ParseSize("16777216T"));
}

}  // namespace
}  // namespace neardup
