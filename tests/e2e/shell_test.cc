// At home in the shell (#27): the real binary's suggestions, hints, grammar
// and progress, as a user at a terminal meets them.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "test_util.h"

namespace neardup {
namespace {

using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

const std::string kBin = NEARDUP_BINARY;

RunResult Neardup(const TempDir& dir, std::vector<std::string> args) {
  args.insert(args.begin(), kBin);
  return RunProcess(args, dir.path());
}

TEST(SuggestionsTest, AMisspelledOptionNamesTheNearestOne) {
  TempDir dir;
  const RunResult r = Neardup(dir, {"scan", "--treshold", "0.7", dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--treshold; did you mean --threshold?"), std::string::npos) << r.err;
  const RunResult eq = Neardup(dir, {"scan", "--text-kye=body", dir.path()});
  EXPECT_EQ(eq.exit_code, 2);
  EXPECT_NE(eq.err.find("did you mean --text-key?"), std::string::npos) << eq.err;
  // Each command's own options: params has --bands.
  const RunResult params = Neardup(dir, {"params", "--bnds", "4"});
  EXPECT_NE(params.err.find("did you mean --bands?"), std::string::npos) << params.err;
}

TEST(SuggestionsTest, AnOptionFarFromEveryNameGetsNoGuess) {
  TempDir dir;
  const RunResult r = Neardup(dir, {"scan", "--zzzzzzzz", dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--zzzzzzzz"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
}

TEST(SuggestionsTest, AMisspelledCommandNamesTheNearestOne) {
  TempDir dir;
  const RunResult scna = Neardup(dir, {"scna", dir.path()});
  EXPECT_EQ(scna.exit_code, 2);
  EXPECT_NE(scna.err.find("'scna' is not a command; did you mean scan?"), std::string::npos) << scna.err;
  const RunResult sgn = Neardup(dir, {"stage", "sgn", "work"});
  EXPECT_EQ(sgn.exit_code, 2);
  EXPECT_NE(sgn.err.find("did you mean sign?"), std::string::npos) << sgn.err;
}

TEST(SuggestionsTest, BareNeardupPrintsShortUsageAndPointsToHelp) {
  TempDir dir;
  const RunResult r = Neardup(dir, {});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("usage: neardup <command>"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("neardup --help"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("  scan "), std::string::npos) << r.err;
}

TEST(SuggestionsTest, HelpAndVersionAsWordsAndMinusV) {
  TempDir dir;
  const RunResult help = Neardup(dir, {"help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_EQ(help.out, Neardup(dir, {"--help"}).out);
  const RunResult help_scan = Neardup(dir, {"help", "scan"});
  EXPECT_EQ(help_scan.exit_code, 0) << help_scan.err;
  EXPECT_EQ(help_scan.out, Neardup(dir, {"scan", "--help"}).out);
  const std::string version = Neardup(dir, {"--version"}).out;
  ASSERT_EQ(version.rfind("neardup ", 0), 0u) << version;
  for (const char* word : {"version", "-V"}) {
    const RunResult r = Neardup(dir, {word});
    EXPECT_EQ(r.exit_code, 0) << word << ": " << r.err;
    EXPECT_EQ(r.out, version) << word;
  }
}

}  // namespace
}  // namespace neardup
