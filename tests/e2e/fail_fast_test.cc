// A temporary file or an output that cannot be written ends the run at once:
// exit 2, one line naming the folder or file, nothing half written. The
// pipeline does not go on enumerating, reading again or sorting what could
// no longer be kept.
//
// The disk-full cases mount a small tmpfs and run only as root (CI runs as
// root); the missing-folder case runs everywhere.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "e2e/run_neardup.h"
#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

const std::string kBin = ::neardup::testing::NeardupBinary();

// n copies of one 100-word text, each with its own last word: every pair is
// a candidate and is reported, n(n-1)/2 of them.
std::string WriteNearCopies(const TempDir& dir, int n) {
  std::vector<std::string> words = RandomWords(100, 24);
  for (int i = 0; i < n; ++i) {
    words.back() = testing::Numbered("last", i);
    WriteFile(dir / testing::Numbered("c/", 100000 + i) + ".txt", Join(words) + "\n");
  }
  return dir / "c";
}

// A tmpfs of `kib` KiB at `path`, unmounted when done; mounted() false when
// it cannot be (not root, no permission in this container).
class SmallDisk {
 public:
  SmallDisk(const std::string& path, int kib) : path_(path) {
    std::filesystem::create_directories(path);
    const std::string data = "size=" + std::to_string(kib) + "k";
    mounted_ = testing::IsRoot() && ::mount("tmpfs", path.c_str(), "tmpfs", 0, data.c_str()) == 0;
  }
  ~SmallDisk() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;
  bool mounted() const { return mounted_; }

 private:
  std::string path_;
  bool mounted_ = false;
};

struct Timed {
  RunResult run;
  double cpu_seconds = -1;  // user + system
};

Timed RunTimed(const TempDir& dir, std::vector<std::string> argv) {
  const std::string times = dir / "times";
  argv.insert(argv.begin(), {"/usr/bin/time", "-f", "%U %S", "-o", times});
  Timed t;
  t.run = RunProcess(argv, dir.path());
  // time(1) puts "Command exited with non-zero status N" before its line.
  std::string text = testing::ReadFile(times);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  const size_t last = text.rfind('\n');
  double user = -1, sys = -1;
  if (std::sscanf(text.c_str() + (last == std::string::npos ? 0 : last + 1), "%lf %lf", &user, &sys) == 2) {
    t.cpu_seconds = user + sys;
  }
  return t;
}

size_t Lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

// 8,000 near copies are 32 million candidate pairs, 770 MB to spill: the
// candidates' first spill fails. Enumerating them all took 8 s of CPU before
// the run stopped; now the enumeration stops at the first failure.
constexpr int kCopies = 8000;
#if defined(__SANITIZE_ADDRESS__)
constexpr double kMaxCpuSeconds = 30;  // only a runaway fails
#else
constexpr double kMaxCpuSeconds = 3;
#endif

TEST(FailFastTest, FullTemporaryFolderEndsTheRunAtOnce) {
  TempDir dir;
  SmallDisk disk(dir / "tmp", 256);
  if (!disk.mounted()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const std::string corpus = WriteNearCopies(dir, kCopies);
  // (Clusters mode leads a bucket that large with one document: few pairs.)
  for (const std::string mode : {"pairs"}) {
    const Timed t = RunTimed(
        dir, {"/usr/bin/env", "TMPDIR=" + (dir / "tmp"), kBin, "scan", "-j2", "--mode", mode, "-f", "tsv", corpus});
    EXPECT_EQ(t.run.exit_code, 2) << mode << t.run.err;
    EXPECT_NE(t.run.err.find("No space left on device"), std::string::npos) << mode << t.run.err;
    EXPECT_EQ(Lines(t.run.err), 1u) << mode << t.run.err;
    EXPECT_TRUE(t.run.out.empty()) << mode;
    EXPECT_GE(t.cpu_seconds, 0) << mode;
    EXPECT_LT(t.cpu_seconds, kMaxCpuSeconds) << mode;
  }
  // Nothing left behind in the folder.
  EXPECT_TRUE(std::filesystem::is_empty(dir / "tmp"));
}

// --exact spools what it reads again: a full TMPDIR there stops the reading
// as well, with the folder named.
TEST(FailFastTest, FullTemporaryFolderStopsTheReadingAgain) {
  TempDir dir;
  SmallDisk disk(dir / "tmp", 64);
  if (!disk.mounted()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  // 3,000 distinct documents in 1,500 pairs of copies: each is read again,
  // its text spooled, 2 MB in all.
  for (int i = 0; i < 1500; ++i) {
    const std::string text = Join(RandomWords(150, static_cast<uint64_t>(1000 + i))) + "\n";
    WriteFile(dir / testing::Numbered("c/a", i) + ".txt", text);
    WriteFile(dir / testing::Numbered("c/b", i) + ".txt", text);
  }
  const RunResult r = RunProcess(
      {"/usr/bin/env", "TMPDIR=" + (dir / "tmp"), kBin, "scan", "-j2", "--exact", "-f", "tsv", dir / "c"}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(dir / "tmp"), std::string::npos) << r.err;
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_TRUE(r.out.empty());
}

// -o on a full disk: exit 2, one line naming the file, the old file as it
// was and no temporary file beside it.
TEST(FailFastTest, OutputOnAFullDiskLeavesTheOldFile) {
  TempDir dir;
  SmallDisk disk(dir / "out", 64);
  if (!disk.mounted()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const std::string corpus = WriteNearCopies(dir, 400);  // 79,800 pairs, 6 MB of TSV
  WriteFile(dir / "out/pairs.tsv", "old\n");
  const RunResult r = RunNeardup({"scan", "-j2", "-f", "tsv", "-o", dir / "out/pairs.tsv", corpus}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(dir / "out/pairs.tsv"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_EQ(testing::ReadFile(dir / "out/pairs.tsv"), "old\n");
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir / "out")) names.push_back(e.path().filename());
  EXPECT_EQ(names, std::vector<std::string>{"pairs.tsv"});
}

// /dev/full as -o: a device is written in place, and its first failed write
// ends the run with exit 2.
TEST(FailFastTest, OutputToDevFullIsExitTwo) {
  TempDir dir;
  const std::string corpus = WriteNearCopies(dir, 400);
  const RunResult r = RunNeardup({"scan", "-j2", "-f", "tsv", "-o", "/dev/full", corpus}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("/dev/full"), std::string::npos) << r.err;
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
}

}  // namespace
}  // namespace neardup
