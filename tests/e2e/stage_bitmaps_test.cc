// End to end: below -t 0.7 the sign tasks store each document's bitmap
// (sign/I.bitmaps, format/shard_bitmaps.h) and the verify tasks rule pairs
// out with them before they read documents again, as scan does: fewer
// documents are read again, and the report is scan's, byte for byte, with
// the bitmaps, without them (a work folder of an older neardup) and at
// -t 0.7 and above (none is stored, none left is kept). A damaged bitmaps
// file is refused.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "e2e/run_neardup.h"
#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::ReadFile;
using testing::RunNeardup;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::With;
using testing::WriteFile;

using Args = std::vector<std::string>;

constexpr int kTasks = 2;

// 600 mails of build/gen_mail: at -t 0.5, LSH finds many candidates far
// below the threshold for each planted pair.
void MakeMail(const TempDir& dir) {
  const RunResult g = RunProcess(
      {::neardup::testing::GenMailBinary(), "--mails", "600", "--seed", "42", "--out", dir / "mail"}, dir.path());
  ASSERT_EQ(g.exit_code, 0) << g.err;
}

RunResult RunStage(const TempDir& dir, const std::string& stage, int task, const Args& options, const Args& tail = {}) {
  Args argv = {"stage", stage};
  if (stage != "report") argv = With(argv, {"--task", std::to_string(task), "--tasks", std::to_string(kTasks)});
  argv = With(With(argv, options), {dir / "work"});
  return RunNeardup(With(argv, tail), dir.path());
}

// What the verify tasks said with -v, summed over them.
struct Verified {
  uint64_t ruled_out = 0;
  uint64_t reread = 0;
};

// Reads "R ruled out by their bitmaps, D documents read again" (or
// "document") from a verify task's stderr; false when it is not there.
bool ParseSaid(const std::string& err, uint64_t* ruled_out, uint64_t* reread) {
  const std::string mid = " ruled out by their bitmaps, ";
  const size_t at = err.find(mid);
  if (at == std::string::npos) return false;
  size_t from = at;
  while (from > 0 && std::isdigit(static_cast<unsigned char>(err[from - 1])) != 0) --from;
  const size_t second = at + mid.size();
  size_t end = second;
  while (end < err.size() && std::isdigit(static_cast<unsigned char>(err[end])) != 0) ++end;
  if (from == at || end == second || err.compare(end, 9, " document") != 0) return false;
  *ruled_out = std::stoull(err.substr(from, at - from));
  *reread = std::stoull(err.substr(second, end - second));
  return true;
}

// Runs the verify tasks with -v (after removing what earlier ones left),
// and returns what they said.
Verified RunVerifyTasks(const TempDir& dir, const Args& options) {
  std::filesystem::remove_all(dir / "work/verify");
  Verified sum;
  for (int k = 0; k < kTasks; ++k) {
    const RunResult v = RunStage(dir, "verify", k, With(options, {"-v"}));
    EXPECT_EQ(v.exit_code, 0) << v.err;
    uint64_t ruled_out = 0, reread = 0;
    if (!ParseSaid(v.err, &ruled_out, &reread)) {
      ADD_FAILURE() << "verify task " << k << " did not say what it read: " << v.err;
      continue;
    }
    sum.ruled_out += ruled_out;
    sum.reread += reread;
  }
  return sum;
}

// Signs and buckets `mail` into WORK with `options`; scan's stdout.
std::string SignAndBucket(const TempDir& dir, const Args& options) {
  const RunResult scan = RunNeardup(With(With({"scan"}, options), {dir / "mail"}), dir.path());
  EXPECT_EQ(scan.exit_code, 0) << scan.err;
  for (int i = 0; i < kTasks; ++i) {
    const RunResult s = RunStage(dir, "sign", i, options, {dir / "mail"});
    EXPECT_EQ(s.exit_code, 0) << s.err;
  }
  for (int j = 0; j < kTasks; ++j) {
    const RunResult b = RunStage(dir, "bucket", j, options);
    EXPECT_EQ(b.exit_code, 0) << b.err;
  }
  return scan.out;
}

TEST(StageBitmapsTest, BitmapsRuleOutPairsAndTheReportStaysScans) {
  TempDir dir;
  MakeMail(dir);
  const Args options = {"-t", "0.5"};
  const std::string scan = SignAndBucket(dir, options);
  for (int i = 0; i < kTasks; ++i) {
    EXPECT_TRUE(std::filesystem::exists(dir / ("work/sign/" + std::to_string(i) + ".bitmaps"))) << i;
  }
  const Verified with = RunVerifyTasks(dir, options);
  const RunResult report = RunStage(dir, "report", 0, options);
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(report.out, scan);

  // The same folder as an older neardup left it: no bitmaps, no pair ruled
  // out, every pair proven all the same.
  for (int i = 0; i < kTasks; ++i) std::filesystem::remove(dir / ("work/sign/" + std::to_string(i) + ".bitmaps"));
  const Verified without = RunVerifyTasks(dir, options);
  const RunResult again = RunStage(dir, "report", 0, options);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, scan);

  std::fprintf(stderr, "documents read again: %llu with bitmaps (%llu pairs ruled out), %llu without\n",
               static_cast<unsigned long long>(with.reread), static_cast<unsigned long long>(with.ruled_out),
               static_cast<unsigned long long>(without.reread));
  EXPECT_GT(with.ruled_out, 0u);
  EXPECT_EQ(without.ruled_out, 0u);
  EXPECT_GT(with.reread, 0u);
  EXPECT_LT(with.reread, without.reread);
}

// At -t 0.8 no bitmaps are written, and those a killed run at another
// threshold left are removed: they must not outlive the shard they were of.
TEST(StageBitmapsTest, NoBitmapsAtSevenTenthsOrAbove) {
  TempDir dir;
  MakeMail(dir);
  WriteFile(dir / "work/sign/0.bitmaps", "left by a killed run");
  const Args options = {"-t", "0.8"};
  const std::string scan = SignAndBucket(dir, options);
  EXPECT_FALSE(std::filesystem::exists(dir / "work/sign/0.bitmaps"));
  EXPECT_FALSE(std::filesystem::exists(dir / "work/sign/1.bitmaps"));
  for (int k = 0; k < kTasks; ++k) ASSERT_EQ(RunStage(dir, "verify", k, options).exit_code, 0);
  const RunResult report = RunStage(dir, "report", 0, options);
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(report.out, scan);
}

TEST(StageBitmapsTest, ADamagedBitmapsFileIsRefusedNamingIt) {
  TempDir dir;
  MakeMail(dir);
  const Args options = {"-t", "0.5"};
  SignAndBucket(dir, options);
  const std::string path = dir / "work/sign/1.bitmaps";
  std::string bytes = ReadFile(path);
  ASSERT_GT(bytes.size(), 100u);
  bytes[60] = static_cast<char>(~bytes[60]);  // in the first record
  bytes[20] = static_cast<char>(~bytes[20]);  // in the header's fingerprint
  WriteFile(path, bytes);
  for (int k = 0; k < kTasks; ++k) {
    const RunResult v = RunStage(dir, "verify", k, options);
    EXPECT_EQ(v.exit_code, 2) << v.err;
    EXPECT_NE(v.err.find(path), std::string::npos) << v.err;
    EXPECT_NE(v.err.find("the header's checksum"), std::string::npos) << v.err;
    EXPECT_EQ(v.err.find('\n'), v.err.size() - 1) << v.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "work/verify/0.done"));
}

}  // namespace
}  // namespace neardup
