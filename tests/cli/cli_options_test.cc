#include "cli/cli_options.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "cli/bound_options.h"
#include "neardup/option_table.h"

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
  EXPECT_EQ(c.scan.verify, VerifyMode::kExact);  // right by default (#41)
  EXPECT_EQ(c.format, OutputFormat::kJsonl);
  EXPECT_EQ(c.output, "");
  EXPECT_EQ(c.scan.threads, 0);
  EXPECT_EQ(c.verbosity, 0);
  EXPECT_FALSE(c.progress.has_value());
  EXPECT_EQ(c.scan.mode, Mode::kPairs);
  EXPECT_EQ(c.scan.keep, KeepRule::kFirst);
  EXPECT_EQ(c.terminator, '\n');
}

// --mode duplicates without -f writes bare paths (for xargs; -0 ends each
// with NUL); with -f, records. The default membership is keep: every
// removable document is like the kept one.
// Without --input, a run whose every PATH names a *.parquet file reads
// Parquet (#45); scan, --index, --kept-dir and the stage tasks all take it.
TEST(ParseArgsTest, ParquetIsReadWhenEveryPathNamesAParquetFile) {
  EXPECT_EQ(Parse({"scan", "a.parquet", "b.PARQUET"}).args.options.scan.input, InputFormat::kParquet);
  EXPECT_EQ(Parse({"scan", "a.parquet", "b.txt"}).args.options.scan.input, InputFormat::kText);
  EXPECT_EQ(Parse({"scan", "shards"}).args.options.scan.input, InputFormat::kText);
  EXPECT_EQ(Parse({"scan", "--input", "jsonl", "a.parquet"}).args.options.scan.input, InputFormat::kJsonl);
  EXPECT_EQ(Parse({"scan", "--input", "parquet", "shards"}).args.options.scan.input, InputFormat::kParquet);
  EXPECT_EQ(Parse({"explain", "a.parquet", "x", "y"}).args.options.scan.input, InputFormat::kParquet);
  EXPECT_FALSE(Parse({"scan", "--kept-dir", "k", "a.parquet"}).args.exit_now);
  EXPECT_FALSE(Parse({"scan", "--index", "i.db", "--input", "parquet", "d"}).args.exit_now);
  EXPECT_FALSE(Parse({"stage", "sign", "--task", "0", "--tasks", "2", "w", "d.parquet"}).args.exit_now);
  EXPECT_FALSE(Parse({"stage", "filter", "--input", "parquet", "--task", "0", "--tasks", "1", "--kept-dir", "k", "w"})
                   .args.exit_now);
}

// --annotate-dir (#45): JSONL and Parquet scans (with --index too), not the
// stage tasks; --annotate-prefix needs it.
TEST(ParseArgsTest, AnnotateDirIsForJsonlAndParquetScansOnly) {
  const auto jsonl = Parse({"scan", "--input", "jsonl", "--annotate-dir", "a", "--annotate-prefix", "nd_", "d"});
  ASSERT_FALSE(jsonl.args.exit_now) << jsonl.err;
  EXPECT_EQ(jsonl.args.options.scan.annotate_dir, "a");
  EXPECT_EQ(jsonl.args.options.scan.annotate_prefix, "nd_");
  EXPECT_FALSE(Parse({"scan", "--annotate-dir", "a", "d.parquet"}).args.exit_now);
  const auto text = Parse({"scan", "--annotate-dir", "a", "d"});
  EXPECT_EQ(text.args.exit_now, ExitCode::kError);
  EXPECT_NE(text.err.find("--annotate-dir adds fields to JSONL lines or Parquet rows"), std::string::npos) << text.err;
  EXPECT_FALSE(Parse({"scan", "--input", "jsonl", "--index", "i.db", "--annotate-dir", "a", "d"}).args.exit_now);
  const auto prefix = Parse({"scan", "--input", "jsonl", "--annotate-prefix", "nd_", "d"});
  EXPECT_EQ(prefix.err, "neardup: --annotate-prefix needs --annotate-dir DIR\n");
  EXPECT_EQ(Parse({"stage", "filter", "--annotate-dir", "a", "w"}).args.exit_now, ExitCode::kError);
}

TEST(ParseArgsTest, DuplicatesModeWithoutFormatWritesPathsAndClustersByKeep) {
  auto p = Parse({"scan", "--mode", "duplicates", "-0", "x"});
  ASSERT_FALSE(p.args.exit_now) << p.err;
  EXPECT_EQ(p.args.options.format, OutputFormat::kPaths);
  EXPECT_EQ(p.args.options.terminator, '\0');
  EXPECT_EQ(p.args.options.scan.cluster_by, ClusterBy::kKeep);
  p = Parse({"scan", "--mode", "duplicates", "-f", "jsonl", "x"});
  ASSERT_FALSE(p.args.exit_now) << p.err;
  EXPECT_EQ(p.args.options.format, OutputFormat::kJsonl);
  p = Parse({"scan", "--mode", "clusters", "x"});
  EXPECT_EQ(p.args.options.format, OutputFormat::kJsonl);
}

TEST(ParseArgsTest, EveryScanOptionIsRead) {
  const auto p = Parse({"scan",
                        "-t",
                        "0.5",
                        "--shingle",
                        "char",
                        "-k",
                        "7",
                        "--num-perm",
                        "64",
                        "--bands",
                        "8",
                        "--rows",
                        "8",
                        "--seed",
                        "42",
                        "--exact",
                        "-f",
                        "csv",
                        "-o",
                        "out.csv",
                        "-j",
                        "3",
                        "-vv",
                        "--progress",
                        "--mode",
                        "duplicates",
                        "--keep",
                        "longest",
                        "--cluster-by",
                        "connected",
                        "--against",
                        "ref",
                        "-g",
                        "*.txt",
                        "-g",
                        "!skip/**",
                        "--hidden",
                        "-L",
                        "--max-filesize",
                        "10M",
                        "--input",
                        "jsonl",
                        "--text-key",
                        "body",
                        "--id-key",
                        "url",
                        "--encoding",
                        "latin1",
                        "--min-words",
                        "20",
                        "a",
                        "b"});
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
  EXPECT_EQ(c.scan.keep, KeepRule::kLongest);
  EXPECT_EQ(c.scan.cluster_by, ClusterBy::kConnected);
  EXPECT_EQ(c.scan.against, std::vector<std::string>{"ref"});
  EXPECT_EQ(c.terminator, '\n');
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
      {"scan", "-t", "0", "x"},
      {"scan", "-t", "1.5", "x"},
      {"scan", "--bands", "4", "x"},
      {"scan", "--bands", "40", "--rows", "4", "x"},
      {"scan", "--shingle", "line", "x"},
      {"scan", "--format", "xml", "x"},
      {"scan", "--exact", "--verify", "none", "x"},
      {"scan"},
      {"scan", "--max-filesize", "ten", "x"},
      {"scan", "--no-such-flag", "x"},
      {"frobnicate"},
      {},
  };
  for (const auto& argv : bad) {
    const auto p = Parse(argv);
    ASSERT_TRUE(p.args.exit_now.has_value()) << argv.size();
    EXPECT_EQ(*p.args.exit_now, ExitCode::kError);
    EXPECT_FALSE(p.err.empty());
  }
}

TEST(ParseArgsTest, UsageErrorsAreOneShortLineNamingOptionAndValue) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-t", "-0.5"}, "--threshold must be in (0, 1], got -0.5"},
      {{"-t", "1.7976931348623157e308"}, "--threshold must be in (0, 1], got 1.7976931348623157e308"},
      {{"-t", "0.8x"}, "--threshold must be in (0, 1], got 0.8x"},
      {{"-t", "nan"}, "--threshold must be in (0, 1], got nan"},
      {{"--num-perm", "0"}, "--num-perm must be an integer from 1 to 4096, got 0"},
      {{"--num-perm", "99999999999999999999"},
       "--num-perm must be an integer from 1 to 4096, got 99999999999999999999"},
      {{"--num-perm", "1.5"}, "--num-perm must be an integer from 1 to 4096, got 1.5"},
      {{"-k", "65"}, "--ngram must be an integer from 1 to 64, got 65"},
      {{"-j", "0"}, "--threads must be an integer from 1 to 1024, got 0"},
      {{"--bands", "-3", "--rows", "2"}, "--bands must be an integer from 1 to 2147483647, got -3"},
      {{"--bands", "40", "--rows", "4"}, "--bands 40 --rows 4 needs 160 permutations, --num-perm is 128"},
      {{"--min-words", "0"}, "--min-words must be an integer of at least 1, got 0"},
      {{"--seed", "-1"}, "--seed must be an integer from 0 to 18446744073709551615, got -1"},
      {{"--seed", "18446744073709551616"},
       "--seed must be an integer from 0 to 18446744073709551615, got 18446744073709551616"},
      {{"--seed", ""}, "--seed must be an integer from 0 to 18446744073709551615, got ''"},
      {{"--max-filesize", ""}, "--max-filesize must be a size such as 500K, 10M or 2G, got ''"},
      {{"--max-filesize", "0"}, "--max-filesize must be more than 0 (without it there is no limit), got 0"},
      {{"--max-filesize", "0K"}, "--max-filesize must be more than 0 (without it there is no limit), got 0K"},
      {{"-o", ""}, "--output needs a file name ('-' for stdout), got ''"},
      {{"-0"}, "-0 (--null) applies only to --mode duplicates"},
      {{"-0", "--mode", "duplicates", "-f", "json"},
       "-0 (--null) ends the bare paths of --mode duplicates: drop -f, which writes records"},
      {{"-0", "--mode", "duplicates", "-f", "jsonl"},
       "-0 (--null) ends the bare paths of --mode duplicates: drop -f, which writes records"},
      {{"--mode", "1"}, "--mode must be pairs, clusters or duplicates, got 1"},
      {{"--shingle", "0"}, "--shingle must be word or char, got 0"},
      {{"--verify", "2"}, "--verify must be signature, exact or none, got 2"},
      {{"--format", "1"}, "--format must be jsonl, json, csv, tsv or html, got 1"},
      {{"--keep", "0"}, "--keep must be first, longest, shortest, newest or oldest, got 0"},
      {{"--cluster-by", "1"}, "--cluster-by must be connected or keep, got 1"},
      {{"--input", "1"}, "--input must be text, jsonl or parquet, got 1"},
      {{"--encoding", "0"}, "--encoding must be utf8, utf-8, latin1, latin-1 or iso-8859-1, got 0"},
      {{"--mode", "a\nb"}, "--mode must be pairs, clusters or duplicates, got a?b"},
      {{"--bogus"}, "The following argument was not expected: --bogus"},
  };
  EXPECT_EQ(Parse({"scan", "x", "--seed"}).err, "neardup: --seed needs a value\n");
  for (const auto& [options, message] : cases) {
    std::vector<std::string> argv = {"scan"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back("x");
    const auto p = Parse(argv);
    ASSERT_TRUE(p.args.exit_now.has_value()) << message;
    EXPECT_EQ(*p.args.exit_now, ExitCode::kError);
    EXPECT_EQ(p.err, "neardup: " + message + "\n");
  }
  // params checks its options the same way.
  const auto p = Parse({"params", "-t", "2"});
  EXPECT_EQ(p.err, "neardup: --threshold must be in (0, 1], got 2\n");
  // A long value is shortened: the message stays one short line.
  const auto q = Parse({"scan", "--mode", std::string(500, 'z'), "x"});
  EXPECT_LT(q.err.size(), 120u) << q.err;
}

TEST(ParseArgsTest, BandsTimesRowsIsComputedIn64Bits) {
  const auto p = Parse({"scan", "--bands", "65536", "--rows", "65536", "x"});
  ASSERT_TRUE(p.args.exit_now.has_value());
  EXPECT_EQ(p.err, "neardup: --bands 65536 --rows 65536 needs 4294967296 permutations, --num-perm is 128\n");
}

TEST(ParseArgsTest, EnumOptionsTakeTheirNamesInAnyCase) {
  const auto p = Parse({"scan", "--mode", "CLUSTERS", "--shingle", "Char", "--verify", "NONE", "-f", "TSV", "--keep",
                        "Shortest", "--cluster-by", "KEEP", "--input", "JSONL", "--encoding", "UTF-8", "x"});
  ASSERT_FALSE(p.args.exit_now) << p.err;
  const CliOptions& c = p.args.options;
  EXPECT_EQ(c.scan.mode, Mode::kClusters);
  EXPECT_EQ(c.scan.shingle, ShingleUnit::kChar);
  EXPECT_EQ(c.scan.verify, VerifyMode::kNone);
  EXPECT_EQ(c.format, OutputFormat::kTsv);
  EXPECT_EQ(c.scan.keep, KeepRule::kShortest);
  EXPECT_EQ(c.scan.cluster_by, ClusterBy::kKeep);
  EXPECT_EQ(c.scan.input, InputFormat::kJsonl);
  EXPECT_EQ(c.scan.encoding, Encoding::kUtf8);
  EXPECT_TRUE(p.args.warnings.empty());
}

TEST(ParseArgsTest, SeedTakesTheWholeUint64Range) {
  EXPECT_EQ(Parse({"scan", "--seed", "18446744073709551615", "x"}).args.options.scan.seed, ~0ULL);
  EXPECT_EQ(Parse({"scan", "--seed", "0", "x"}).args.options.scan.seed, 0u);
}

TEST(ParseArgsTest, DashIsStdoutForOutput) {
  const auto p = Parse({"scan", "-o", "-", "x"});
  ASSERT_FALSE(p.args.exit_now) << p.err;
  EXPECT_EQ(p.args.options.output, "-");
}

// -o FILE.csv without -f writes csv, whatever the case of the name (#41).
TEST(ParseArgsTest, OutputNameChoosesTheFormatWhenFIsNotGiven) {
  const std::pair<const char*, OutputFormat> cases[] = {
      {"out.csv", OutputFormat::kCsv},   {"dir.v2/OUT.TSV", OutputFormat::kTsv}, {"review.html", OutputFormat::kHtml},
      {"all.json", OutputFormat::kJson}, {"pairs.jsonl", OutputFormat::kJsonl},  {"pairs.ndjson", OutputFormat::kJsonl},
  };
  for (const auto& [name, format] : cases) {
    const auto p = Parse({"scan", "-o", name, "x"});
    ASSERT_FALSE(p.args.exit_now) << name << ": " << p.err;
    EXPECT_EQ(p.args.options.format, format) << name;
  }
  // --mode duplicates: a named format writes records, not bare paths.
  auto p = Parse({"scan", "--mode", "duplicates", "-o", "dups.jsonl", "x"});
  ASSERT_FALSE(p.args.exit_now) << p.err;
  EXPECT_EQ(p.args.options.format, OutputFormat::kJsonl);
  // Other names, a hidden name and stdout: the default, as before.
  for (const char* name : {"out.txt", "out", ".csv", "csv.d/out", "out.csv.gz", "-"}) {
    p = Parse({"scan", "-o", name, "x"});
    ASSERT_FALSE(p.args.exit_now) << name << ": " << p.err;
    EXPECT_EQ(p.args.options.format, OutputFormat::kJsonl) << name;
    p = Parse({"scan", "--mode", "duplicates", "-o", name, "x"});
    EXPECT_EQ(p.args.options.format, OutputFormat::kPaths) << name;
  }
  // -f that agrees is fine.
  p = Parse({"scan", "-f", "csv", "-o", "out.CSV", "x"});
  ASSERT_FALSE(p.args.exit_now) << p.err;
  EXPECT_EQ(p.args.options.format, OutputFormat::kCsv);
  p = Parse({"scan", "-f", "tsv", "-o", "out.txt", "x"});
  EXPECT_EQ(p.args.options.format, OutputFormat::kTsv);
}

TEST(ParseArgsTest, OutputNameThatDisagreesWithFIsAUsageError) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"-f", "csv", "-o", "out.json"},
       "-f csv disagrees with -o out.json, a name for json: drop -f, or name the file for the format"},
      {{"-f", "jsonl", "-o", "out.json"},
       "-f jsonl disagrees with -o out.json, a name for json: drop -f, or name the file for the format"},
      {{"--mode", "duplicates", "-0", "-o", "dups.csv"},
       "-0 (--null) writes NUL-ended paths, not the csv that -o dups.csv names: drop -0, or name the file otherwise"},
      {{"--mode", "duplicates", "-o", "dups.html"},
       "-o dups.html is a review page of pairs or clusters: use it with --mode pairs or clusters"},
  };
  for (const auto& [options, message] : cases) {
    std::vector<std::string> argv = {"scan"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back("x");
    const auto p = Parse(argv);
    ASSERT_TRUE(p.args.exit_now.has_value()) << message;
    EXPECT_EQ(*p.args.exit_now, ExitCode::kError);
    EXPECT_EQ(p.err, "neardup: " + message + "\n");
  }
  // Outside duplicates mode -0 is refused for that, whatever -o names.
  EXPECT_EQ(Parse({"scan", "-0", "-o", "out.csv", "x"}).err,
            "neardup: -0 (--null) applies only to --mode duplicates\n");
}

// JSONL duplicates are lines named by id: -0 would hand ids to xargs rm (#41).
TEST(ParseArgsTest, NullWithJsonlInputIsAUsageError) {
  auto p = Parse({"scan", "--input", "jsonl", "--mode", "duplicates", "-0", "x"});
  ASSERT_TRUE(p.args.exit_now.has_value());
  EXPECT_EQ(*p.args.exit_now, ExitCode::kError);
  EXPECT_EQ(p.err,
            "neardup: -0 (--null) ends paths for xargs -0 rm, but with --input jsonl the duplicates are lines named "
            "by id, not files: use -f jsonl to list them, or --kept-dir DIR to write the files without them\n");
  p = Parse({"stage", "report", "--input", "jsonl", "--mode", "duplicates", "-0", "work"});
  EXPECT_TRUE(p.args.exit_now.has_value()) << "stage report writes what scan writes";
  p = Parse({"scan", "--input", "jsonl", "--mode", "duplicates", "x"});
  EXPECT_FALSE(p.args.exit_now) << p.err;
  p = Parse({"scan", "--mode", "duplicates", "-0", "x"});
  EXPECT_FALSE(p.args.exit_now) << p.err;
}

// A JSONL line has no time of its own (#41): --keep newest|oldest is refused.
TEST(ParseArgsTest, KeepNewestOrOldestWithJsonlInputIsAUsageError) {
  for (const char* rule : {"newest", "oldest"}) {
    for (const char* mode : {"pairs", "clusters", "duplicates"}) {
      const auto p = Parse({"scan", "--input", "jsonl", "--mode", mode, "--keep", rule, "x"});
      ASSERT_TRUE(p.args.exit_now.has_value()) << rule << " " << mode;
      EXPECT_EQ(p.err, std::string("neardup: --keep ") + rule +
                           " compares modification times, which JSONL lines have none of: use --keep first, longest or "
                           "shortest\n");
    }
    EXPECT_FALSE(Parse({"scan", "--mode", "clusters", "--keep", rule, "x"}).args.exit_now);
  }
  for (const char* rule : {"first", "longest", "shortest"}) {
    EXPECT_FALSE(Parse({"scan", "--input", "jsonl", "--mode", "clusters", "--keep", rule, "x"}).args.exit_now) << rule;
  }
}

// `neardup index` and `neardup stage` without what to do answer as `neardup
// scan` without a PATH does: one line, exit 2 (#41).
TEST(ParseArgsTest, IndexAndStageWithoutAnActionSayWhatTheyNeed) {
  const auto scan = Parse({"scan"});
  ASSERT_TRUE(scan.args.exit_now.has_value());
  EXPECT_EQ(scan.err, "neardup: scan needs a PATH (or --files-from); see neardup scan --help\n");
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"index"}, "index needs info or check and the index FILE; see neardup index --help"},
      {{"index", "info"}, "index info needs the index FILE (scan --index FILE); see neardup index --help"},
      {{"index", "check"}, "index check needs the index FILE (scan --index FILE); see neardup index --help"},
      {{"stage"}, "stage needs a task (sign, bucket, verify, report, filter); see neardup stage --help"},
      {{"stage", "--tasks", "2"},
       "stage needs a task (sign, bucket, verify, report, filter); see neardup stage --help"},
  };
  for (const auto& [argv, message] : cases) {
    const auto p = Parse(argv);
    ASSERT_TRUE(p.args.exit_now.has_value()) << message;
    EXPECT_EQ(*p.args.exit_now, ExitCode::kError);
    EXPECT_EQ(p.out, "");
    EXPECT_EQ(p.err, "neardup: " + message + "\n");
  }
  for (const std::vector<std::string>& help : {std::vector<std::string>{"index", "--help"}, {"stage", "--help"}}) {
    const auto p = Parse(help);
    ASSERT_TRUE(p.args.exit_now.has_value());
    EXPECT_EQ(*p.args.exit_now, ExitCode::kFound);
    EXPECT_NE(p.out, "");
  }
  const auto info = Parse({"index", "info", "x.db"});
  EXPECT_FALSE(info.args.exit_now) << info.err;
}

TEST(ParseArgsTest, KeepAndClusterByInPairsModeAreWarnings) {
  auto p = Parse({"scan", "--keep", "longest", "--cluster-by", "keep", "x"});
  ASSERT_FALSE(p.args.exit_now) << p.err;
  EXPECT_EQ(p.args.warnings, (std::vector<std::string>{"--keep has no effect in pairs mode (see --mode)",
                                                       "--cluster-by has no effect in pairs mode (see --mode)"}));
  EXPECT_EQ(p.err, "");  // logged by main, so that -q silences them
  p = Parse({"scan", "--mode", "duplicates", "--keep", "longest", "x"});
  EXPECT_TRUE(p.args.warnings.empty());
}

TEST(ValidateOptionsTest, MessagesAreShortAndProductsDoNotOverflow) {
  Options o;
  o.bands = 65536;
  o.rows = 65536;
  EXPECT_EQ(ValidateOptions(o).message(),
            "--bands 65536 --rows 65536 needs 4294967296 permutations, --num-perm is 128");
  o = Options{};
  o.threshold = 1.7976931348623157e308;
  EXPECT_EQ(ValidateOptions(o).message(), "--threshold must be in (0, 1], got 1.7976931348623157e+308");
  o.threshold = -0.5;
  EXPECT_EQ(ValidateOptions(o).message(), "--threshold must be in (0, 1], got -0.5");
  o = Options{};
  o.num_perm = 5000;
  EXPECT_EQ(ValidateOptions(o).message(), "--num-perm must be an integer from 1 to 4096, got 5000");
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

// The sections of a help text: "Input" -> the lines listed under "Input:".
std::map<std::string, std::string> HelpSections(const std::string& help) {
  std::map<std::string, std::string> sections;
  std::string current;
  size_t start = 0;
  while (start < help.size()) {
    size_t end = help.find('\n', start);
    if (end == std::string::npos) end = help.size();
    const std::string line = help.substr(start, end - start);
    if (!line.empty() && line[0] != ' ' && line.back() == ':') {
      current = line.substr(0, line.size() - 1);
    } else if (!current.empty()) {
      sections[current] += line + "\n";
    }
    start = end + 1;
  }
  return sections;
}

TEST(ParseArgsTest, HelpListsEveryTableOptionUnderItsGroup) {
  for (const auto& [command, bit] :
       {std::pair<std::string, unsigned>{"scan", kScanCommand}, {"params", kParamsCommand}}) {
    const auto p = Parse({command, "--help"});
    ASSERT_EQ(p.args.exit_now, ExitCode::kFound);
    const auto sections = HelpSections(p.out);
    int listed = 0;
    for (const OptionSpec& spec : OptionTable()) {
      if ((spec.commands & bit) == 0 || spec.kind == ValueKind::kPositional) continue;
      SCOPED_TRACE(command + " " + spec.long_name);
      ASSERT_EQ(sections.count(ToString(spec.group)), 1u) << p.out;
      const std::string& section = sections.at(ToString(spec.group));
      std::string names = spec.long_name;
      if (*spec.short_name != '\0') names = std::string(spec.short_name) + "," + names;
      EXPECT_NE(section.find("  " + names + " "), std::string::npos) << section;
      EXPECT_NE(section.find(HelpLine(spec)), std::string::npos) << section;
      const std::string shown = DefaultText(spec);
      if (!shown.empty()) {
        EXPECT_NE(section.find(ValueName(spec) + " [" + shown + "]"), std::string::npos);
      }
      ++listed;
    }
    EXPECT_GE(listed, 4);
  }
}

TEST(ParseArgsTest, ScanHelpEndsWithExamples) {
  const auto p = Parse({"scan", "--help"});
  const size_t examples = p.out.find("\nExamples:\n");
  ASSERT_NE(examples, std::string::npos) << p.out;
  size_t count = 0;
  for (size_t at = p.out.find("\n  neardup scan ", examples); at != std::string::npos;
       at = p.out.find("\n  neardup scan ", at + 1)) {
    ++count;
  }
  EXPECT_EQ(count, std::size(kScanExamples));
}

TEST(ParseArgsTest, FrontEndDefaultsAreThoseOfCliOptions) {
  for (const OptionSpec& spec : OptionTable()) {
    if (!spec.front_end) continue;
    SCOPED_TRACE(spec.long_name);
    CliOptions options;
    const bool takes_value = spec.kind != ValueKind::kFlag && spec.kind != ValueKind::kCount;
    const Status s = ApplyFrontEndOption(spec, takes_value ? "x" : "", options);
    EXPECT_NE(s.code(), Status::Code::kInternal) << s.message();  // every one has a setter
    if (*spec.default_text == '\0') continue;
    options = CliOptions{};
    ASSERT_TRUE(ApplyFrontEndOption(spec, spec.default_text, options).ok());
    EXPECT_TRUE(options == CliOptions{});
  }
}

// Generated from the table: every ranged option refuses a value below its
// range, as typed, with the table's message.
TEST(ParseArgsTest, EveryRangedOptionRefusesAValueBelowItsRange) {
  int checked = 0;
  for (const OptionSpec& spec : OptionTable()) {
    const bool ranged =
        spec.kind == ValueKind::kInteger || spec.kind == ValueKind::kReal || spec.kind == ValueKind::kSize;
    if (!ranged || (spec.commands & kScanCommand) == 0) continue;
    const long long below = spec.range.low_open ? spec.range.low : spec.range.low - 1;
    const std::string text = std::to_string(below);
    const std::string expects = below == 0 && *spec.zero_expects != '\0' ? spec.zero_expects : Expectation(spec);
    const auto p = Parse({"scan", spec.long_name, text, "x"});
    ASSERT_TRUE(p.args.exit_now.has_value()) << spec.long_name;
    EXPECT_EQ(p.err, "neardup: " + std::string(spec.long_name) + " must be " + expects + ", got " + text + "\n");
    ++checked;
  }
  EXPECT_GE(checked, 9);
}

TEST(ParseArgsTest, CompletionsTakeAKnownShell) {
  auto p = Parse({"completions", "zsh"});
  ASSERT_FALSE(p.args.exit_now) << p.err;
  EXPECT_EQ(p.args.options.command, Command::kCompletions);
  EXPECT_EQ(p.args.options.shell, "zsh");
  p = Parse({"completions", "tcsh"});
  EXPECT_EQ(p.args.exit_now, ExitCode::kError);
  p = Parse({"manpage"});
  ASSERT_FALSE(p.args.exit_now) << p.err;
  EXPECT_EQ(p.args.options.command, Command::kManPage);
}

// Every option of scan that no stage reads is refused by each stage, by
// name; every other one is accepted by all three, as the scripts give the
// same options to every stage.
TEST(ParseArgsTest, StagesRefuseTheOptionsNoStageReads) {
  int refused = 0, filter_only = 0;
  for (const OptionSpec& spec : OptionTable()) {
    if ((spec.commands & kScanCommand) == 0 || spec.kind == ValueKind::kPositional) continue;
    std::vector<std::string> option = {spec.long_name};
    if (spec.kind != ValueKind::kFlag && spec.kind != ValueKind::kCount) {
      option.push_back(spec.kind == ValueKind::kChoice ? spec.choices[0].name : "1");
    }
    for (const char* stage : {"sign", "bucket", "verify", "report", "filter"}) {
      std::vector<std::string> argv = {"stage", stage};
      if (std::string(stage) != "report") argv.insert(argv.end(), {"--task", "0", "--tasks", "1"});
      // filter needs --kept-dir (given again: the last one counts).
      if (std::string(stage) == "filter") argv.insert(argv.end(), {"--kept-dir", "kept"});
      argv.insert(argv.end(), option.begin(), option.end());
      argv.push_back("work");
      if (std::string(stage) == "sign") argv.push_back("docs");
      const auto p = Parse(argv);
      const std::string refusal =
          "neardup: " + option[0] + " applies to scan only: the stage commands do not read it\n";
      const std::string filter_refusal = "neardup: " + option[0] +
                                         " is read by `neardup stage filter` only, which writes the kept documents "
                                         "after stage report\n";
      const bool filter = std::string(stage) == "filter";
      if ((spec.commands & (kStageCommand | kStageFilterCommand)) == 0) {
        EXPECT_EQ(p.args.exit_now, ExitCode::kError) << stage << " " << option[0];
        EXPECT_EQ(p.err, refusal);
        ++refused;
      } else if ((spec.commands & kStageCommand) == 0 && !filter) {
        EXPECT_EQ(p.args.exit_now, ExitCode::kError) << stage << " " << option[0];
        EXPECT_EQ(p.err, filter_refusal);
        ++filter_only;
      } else {
        EXPECT_NE(p.err, refusal) << stage << " " << option[0];
        EXPECT_NE(p.err, filter_refusal) << stage << " " << option[0];
      }
    }
  }
  // --index, --new, --lock-wait, --progress, --no-progress
  EXPECT_EQ(refused, 5 * 5);
  // --kept-dir, --kept-copy, --annotate-dir, --annotate-prefix: filter's, not sign's, bucket's, verify's or report's
  EXPECT_EQ(filter_only, 4 * 4);
}

TEST(ParseArgsTest, StageFilterNeedsKeptDirAndTakesNoPath) {
  auto p = Parse({"stage", "filter", "--task", "0", "--tasks", "2", "work"});
  EXPECT_EQ(p.args.exit_now, ExitCode::kError);
  EXPECT_EQ(p.err,
            "neardup: stage filter needs --kept-dir DIR (the kept documents) or --annotate-dir DIR (the corpus, "
            "marked), the folder it writes\n");
  p = Parse({"stage", "filter", "--task", "0", "--tasks", "2", "--kept-dir", "kept", "work", "docs"});
  EXPECT_EQ(p.args.exit_now, ExitCode::kError);
  EXPECT_EQ(
      p.err,
      "neardup: stage bucket, verify, report and filter take no PATH: they read what the sign tasks wrote in WORK\n");
  p = Parse({"stage", "filter", "--task", "1", "--tasks", "2", "--kept-dir", "kept", "--kept-copy", "work"});
  ASSERT_FALSE(p.args.exit_now) << p.err;
  EXPECT_EQ(p.args.options.command, Command::kStageFilter);
  EXPECT_EQ(p.args.options.scan.kept_dir, "kept");
  EXPECT_TRUE(p.args.options.scan.kept_copy);
  EXPECT_EQ(p.args.options.task, 1u);
  EXPECT_EQ(p.args.options.tasks, 2u);
}

}  // namespace
}  // namespace neardup::cli
