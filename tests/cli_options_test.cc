#include "cli/cli_options.h"

#include <gtest/gtest.h>

#include <sstream>

namespace neardup::cli {
namespace {

struct Parsed {
  ParsedArgs args;
  std::string out, err;
};

Parsed Parse(std::vector<std::string> argv) {
  argv.insert(argv.begin(), "neardup");
  std::vector<const char*> raw;
  for (const auto& a : argv) raw.push_back(a.c_str());
  std::ostringstream out, err;
  Parsed p{ParseArgs(static_cast<int>(raw.size()), raw.data(), out, err), "", ""};
  p.out = out.str();
  p.err = err.str();
  return p;
}

TEST(ParseArgsTest, ScanDefaults) {
  const auto p = Parse({"scan", "docs"});
  ASSERT_FALSE(p.args.exit_now) << p.err;
  const CliOptions& c = p.args.options;
  EXPECT_EQ(c.command, Command::kScan);
  EXPECT_EQ(c.scan.paths, std::vector<std::string>{"docs"});
  EXPECT_DOUBLE_EQ(c.scan.threshold, 0.8);
  EXPECT_EQ(c.scan.shingle, ShingleUnit::kWord);
  EXPECT_EQ(c.scan.EffectiveNgram(), 5);
  EXPECT_EQ(c.scan.num_perm, 128);
  EXPECT_EQ(c.scan.bands, 0);
  EXPECT_EQ(c.scan.seed, 1u);
  EXPECT_EQ(c.scan.verify, VerifyMode::kSignature);
  EXPECT_EQ(c.format, OutputFormat::kJsonl);
  EXPECT_EQ(c.output, "");
  EXPECT_EQ(c.scan.threads, 0);
  EXPECT_EQ(c.verbosity, 0);
  EXPECT_FALSE(c.progress.has_value());
  EXPECT_EQ(c.scan.mode, Mode::kPairs);
  EXPECT_EQ(c.scan.keep, KeepRule::kFirst);
  EXPECT_EQ(c.terminator, '\n');
}

TEST(ParseArgsTest, EveryScanOptionIsRead) {
  const auto p = Parse({"scan", "-t", "0.5", "--shingle", "char", "-k", "7", "--num-perm", "64", "--bands", "8",
                        "--rows", "8", "--seed", "42", "--exact", "-f", "csv", "-o", "out.csv", "-j", "3", "-vv",
                        "--progress", "--mode", "duplicates", "--keep", "newest", "--cluster-by", "keep",
                        "--against", "ref", "-0", "-g", "*.txt", "-g", "!skip/**", "--hidden", "-L",
                        "--max-filesize", "10M", "--input", "jsonl", "--text-key", "body", "--id-key", "url",
                        "--encoding", "latin1", "--min-words", "20", "a", "b"});
  ASSERT_FALSE(p.args.exit_now) << p.err;
  const CliOptions& c = p.args.options;
  EXPECT_DOUBLE_EQ(c.scan.threshold, 0.5);
  EXPECT_EQ(c.scan.shingle, ShingleUnit::kChar);
  EXPECT_EQ(c.scan.EffectiveNgram(), 7);
  EXPECT_EQ(c.scan.num_perm, 64);
  EXPECT_EQ(c.scan.bands, 8);
  EXPECT_EQ(c.scan.rows, 8);
  EXPECT_EQ(c.scan.seed, 42u);
  EXPECT_EQ(c.scan.verify, VerifyMode::kExact);
  EXPECT_EQ(c.format, OutputFormat::kCsv);
  EXPECT_EQ(c.output, "out.csv");
  EXPECT_EQ(c.scan.threads, 3);
  EXPECT_EQ(c.verbosity, 2);
  EXPECT_EQ(c.progress, std::optional<bool>(true));
  EXPECT_EQ(c.scan.mode, Mode::kDuplicates);
  EXPECT_EQ(c.scan.keep, KeepRule::kNewest);
  EXPECT_EQ(c.scan.cluster_by, ClusterBy::kKeep);
  EXPECT_EQ(c.scan.against, std::vector<std::string>{"ref"});
  EXPECT_EQ(c.terminator, '\0');
  EXPECT_EQ(c.scan.globs, (std::vector<std::string>{"*.txt", "!skip/**"}));
  EXPECT_TRUE(c.scan.hidden);
  EXPECT_TRUE(c.scan.follow);
  EXPECT_EQ(c.scan.max_filesize, 10u << 20);
  EXPECT_EQ(c.scan.input, InputFormat::kJsonl);
  EXPECT_EQ(c.scan.text_key, "body");
  EXPECT_EQ(c.scan.id_key, "url");
  EXPECT_EQ(c.scan.encoding, Encoding::kLatin1);
  EXPECT_EQ(c.scan.min_words, 20u);
  EXPECT_EQ(c.scan.paths, (std::vector<std::string>{"a", "b"}));
}

TEST(ParseArgsTest, RepeatableOptionsTakeOneValueEach) {
  const auto p = Parse({"scan", "--against", "ref1", "-g", "*.md", "--against", "ref2", "--files-from", "l", "new"});
  ASSERT_FALSE(p.args.exit_now) << p.err;
  EXPECT_EQ(p.args.options.scan.against, (std::vector<std::string>{"ref1", "ref2"}));
  EXPECT_EQ(p.args.options.scan.globs, std::vector<std::string>{"*.md"});
  EXPECT_EQ(p.args.options.files_from, std::vector<std::string>{"l"});
  EXPECT_EQ(p.args.options.scan.paths, std::vector<std::string>{"new"});
}

TEST(ParseArgsTest, CharShinglesDefaultToNine) {
  EXPECT_EQ(Parse({"scan", "--shingle", "char", "x"}).args.options.scan.EffectiveNgram(), 9);
}

TEST(ParseArgsTest, UsageErrorsExitWithTwoAndSayWhy) {
  const std::vector<std::vector<std::string>> bad = {
      {"scan", "-t", "0", "x"},          {"scan", "-t", "1.5", "x"},
      {"scan", "--bands", "4", "x"},     {"scan", "--bands", "40", "--rows", "4", "x"},
      {"scan", "--shingle", "line", "x"}, {"scan", "--format", "xml", "x"},
      {"scan", "--exact", "--verify", "none", "x"}, {"scan"},
      {"scan", "--max-filesize", "ten", "x"}, {"scan", "--no-such-flag", "x"},
      {"frobnicate"},                    {},
  };
  for (const auto& argv : bad) {
    const auto p = Parse(argv);
    ASSERT_TRUE(p.args.exit_now.has_value()) << argv.size();
    EXPECT_EQ(*p.args.exit_now, ExitCode::kError);
    EXPECT_FALSE(p.err.empty());
  }
}

TEST(ParseArgsTest, HelpAndVersionExitZeroOnStdout) {
  auto p = Parse({"--help"});
  ASSERT_TRUE(p.args.exit_now.has_value());
  EXPECT_EQ(*p.args.exit_now, ExitCode::kFound);
  EXPECT_NE(p.out.find("scan"), std::string::npos);
  p = Parse({"--version"});
  EXPECT_EQ(*p.args.exit_now, ExitCode::kFound);
  EXPECT_NE(p.out.find("neardup 0."), std::string::npos);
  p = Parse({"scan", "--help"});
  EXPECT_EQ(*p.args.exit_now, ExitCode::kFound);
  EXPECT_NE(p.out.find("--threshold"), std::string::npos);
}

TEST(ParseArgsTest, ParamsTakesBandingOptions) {
  const auto p = Parse({"params", "-t", "0.9", "--num-perm", "256"});
  ASSERT_FALSE(p.args.exit_now) << p.err;
  EXPECT_EQ(p.args.options.command, Command::kParams);
  EXPECT_DOUBLE_EQ(p.args.options.scan.threshold, 0.9);
  EXPECT_EQ(p.args.options.scan.num_perm, 256);
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
}

}  // namespace
}  // namespace neardup::cli
