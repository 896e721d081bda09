// SortedRuns: order, repeats dropped, passes repeated, many runs merged,
// workers' shares absorbed, and a temporary folder that cannot be written.
#include "base/sorted_runs.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "base/temp_file.h"
#include "test_util.h"

namespace neardup {
namespace {

struct Rec {
  uint32_t a = 0, b = 0;
  double value = 0;  // the same for repeats
  bool operator<(const Rec& o) const { return a != o.a ? a < o.a : b < o.b; }
};
bool operator==(const Rec& x, const Rec& y) { return x.a == y.a && x.b == y.b && x.value == y.value; }

Rec Of(uint32_t a, uint32_t b) { return {a, b, a * 1000.0 + b}; }

// `n` distinct records, each added `copies` times, in a shuffled order.
std::vector<Rec> Shuffled(uint32_t n, int copies, uint32_t seed) {
  std::vector<Rec> all;
  for (uint32_t k = 0; k < n; ++k) {
    for (int c = 0; c < copies; ++c) all.push_back(Of(k % 97, k));
  }
  std::shuffle(all.begin(), all.end(), std::mt19937(seed));
  return all;
}

std::vector<Rec> Expected(uint32_t n) {
  std::vector<Rec> out;
  for (uint32_t k = 0; k < n; ++k) out.push_back(Of(k % 97, k));
  std::sort(out.begin(), out.end());
  return out;
}

// Sets TMPDIR for the life of the object.
class TmpDirSetting {
 public:
  explicit TmpDirSetting(const std::string& dir) {
    const char* old = std::getenv("TMPDIR");
    had_ = old != nullptr;
    if (had_) old_ = old;
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TmpDirSetting() {
    if (had_) {
      ::setenv("TMPDIR", old_.c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
  }

 private:
  bool had_ = false;
  std::string old_;
};

TEST(SortedRunsTest, InMemoryRecordsComeOutSortedWithoutRepeats) {
  SortedRuns<Rec> runs(1 << 20, "test records");
  for (const Rec& r : Shuffled(500, 3, 1)) ASSERT_TRUE(runs.Add(r).ok());
  ASSERT_TRUE(runs.Finish().ok());
  EXPECT_FALSE(runs.spilled());
  EXPECT_EQ(runs.added(), 1500u);
  EXPECT_EQ(runs.ToVector(), Expected(500));
  EXPECT_TRUE(runs.status().ok());
}

TEST(SortedRunsTest, SpilledRunsMergeSortedWithoutRepeatsAcrossRuns) {
  // 10 records a run: repeats land in different runs and in the buffer.
  SortedRuns<Rec> runs(10 * sizeof(Rec), "test records");
  for (const Rec& r : Shuffled(300, 4, 2)) ASSERT_TRUE(runs.Add(r).ok());
  ASSERT_TRUE(runs.Finish().ok());
  EXPECT_TRUE(runs.spilled());
  EXPECT_EQ(runs.ToVector(), Expected(300));
}

// A record ordered by a random `hash` first is sorted by radix (SortByHash):
// runs of thousands of records (partitioned), with repeats and keys shared
// by several ids, come out as std::sort puts them, in memory and spilled.
struct Keyed {
  uint64_t hash = 0;
  uint64_t id = 0;
  bool operator<(const Keyed& o) const { return hash != o.hash ? hash < o.hash : id < o.id; }
  bool operator==(const Keyed& o) const { return hash == o.hash && id == o.id; }
};

TEST(SortedRunsTest, RecordsByHashAreSortedByRadixInMemoryAndSpilled) {
  std::mt19937_64 random(7);
  std::vector<Keyed> all;
  for (uint64_t id = 0; id < 20000; ++id) {
    const uint64_t hash = id % 3 == 0 && id > 0 ? all[static_cast<size_t>(random() % id)].hash : random();
    all.push_back({hash, id});
  }
  std::vector<Keyed> expected = all;
  std::sort(expected.begin(), expected.end());
  all.insert(all.end(), all.begin(), all.begin() + 5000);  // repeats
  std::shuffle(all.begin(), all.end(), std::mt19937(3));
  for (const size_t budget : {size_t{1} << 20, 4096 * sizeof(Keyed)}) {
    SortedRuns<Keyed> runs(budget, "test keys");
    for (const Keyed& k : all) ASSERT_TRUE(runs.Add(k).ok());
    ASSERT_TRUE(runs.Finish().ok());
    EXPECT_EQ(runs.spilled(), budget < all.size() * sizeof(Keyed));
    EXPECT_EQ(runs.ToVector(), expected) << budget;
  }
}

TEST(SortedRunsTest, EveryPassGivesTheSameRecords) {
  SortedRuns<Rec> runs(16 * sizeof(Rec), "test records");
  for (const Rec& r : Shuffled(200, 2, 3)) ASSERT_TRUE(runs.Add(r).ok());
  ASSERT_TRUE(runs.Finish().ok());
  const std::vector<Rec> first = runs.ToVector();
  // A pass left half way does not disturb the next one.
  size_t seen = 0;
  for (const Rec& r : runs) {
    (void)r;
    if (++seen == 50) break;
  }
  EXPECT_EQ(runs.ToVector(), first);
  EXPECT_EQ(runs.ToVector(), Expected(200));
}

TEST(SortedRunsTest, MoreRunsThanTheLimitAreMergedIntoOne) {
  // One record a run: 5,000 runs, merged whenever kMaxRuns are open.
  SortedRuns<Rec> runs(sizeof(Rec), "test records");
  for (const Rec& r : Shuffled(2500, 2, 4)) ASSERT_TRUE(runs.Add(r).ok());
  ASSERT_TRUE(runs.Finish().ok());
  EXPECT_EQ(runs.ToVector(), Expected(2500));
}

TEST(SortedRunsTest, AbsorbedSharesGiveTheSameRecordsAsOneContainer) {
  const std::vector<Rec> all = Shuffled(1000, 2, 5);
  for (size_t budget : {sizeof(Rec), 7 * sizeof(Rec), size_t{1} << 20}) {
    SortedRuns<Rec> owner(budget * 3, "test records");
    std::vector<SortedRuns<Rec>> shares;
    for (int w = 0; w < 3; ++w) shares.emplace_back(budget, "test records");
    for (size_t k = 0; k < all.size(); ++k) ASSERT_TRUE(shares[k % 3].Add(all[k]).ok());
    for (SortedRuns<Rec>& share : shares) ASSERT_TRUE(owner.Absorb(std::move(share)).ok());
    ASSERT_TRUE(owner.Add(Of(1, 1)).ok());  // a repeat after absorbing
    ASSERT_TRUE(owner.Finish().ok());
    EXPECT_EQ(owner.added(), all.size() + 1);
    EXPECT_EQ(owner.ToVector(), Expected(1000)) << budget;
  }
}

TEST(SortedRunsTest, AnUnwritableTemporaryFolderIsAnIoError) {
  testing::TempDir dir;
  const TmpDirSetting tmp(dir / "missing");
  SortedRuns<Rec> runs(4 * sizeof(Rec), "test records");
  Status status;
  for (uint32_t k = 0; k < 10 && status.ok(); ++k) status = runs.Add(Of(k, k));
  EXPECT_EQ(status.code(), Status::Code::kIoError);
  EXPECT_NE(status.message().find("temporary file for test records in " + (dir / "missing")), std::string::npos)
      << status.message();
  // Below the budget nothing is written, and nothing fails.
  SortedRuns<Rec> small(1 << 20, "test records");
  ASSERT_TRUE(small.Add(Of(1, 2)).ok());
  ASSERT_TRUE(small.Finish().ok());
  EXPECT_EQ(small.ToVector().size(), 1u);
}

TEST(TempFileTest, FilesGoToTmpdirAndHaveNoName) {
  testing::TempDir dir;
  const TmpDirSetting tmp(dir.path());
  Result<TempFile> f = TempFile::Create("a test");
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_GE(std::fputs("hello", f->get()), 0);
  // The file lives in TMPDIR (its link in /proc names the folder) and
  // no entry of the folder names it.
  const std::string link = std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(fileno(f->get())));
  EXPECT_EQ(link.rfind(dir.path() + "/", 0), 0u) << link;
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

// ReadAt: any range of what was written, the stream's place untouched; a
// range past the end is EIO.
TEST(TempFileTest, ReadAtGivesAnyRangeWritten) {
  Result<TempFile> f = TempFile::Create("a test");
  ASSERT_TRUE(f.ok()) << f.status().message();
  std::string bytes(200000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i % 251);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f->get()), bytes.size());
  ASSERT_EQ(std::fflush(f->get()), 0);
  for (const auto& [at, n] : {std::pair<size_t, size_t>{0, 1}, {70000, 65536}, {199999, 1}, {0, 200000}}) {
    std::string got(n, '\0');
    ASSERT_TRUE(ReadAt(f->get(), at, got.data(), n)) << at;
    EXPECT_EQ(got, bytes.substr(at, n)) << at;
  }
  std::string past(2, '\0');
  errno = 0;
  EXPECT_FALSE(ReadAt(f->get(), 199999, past.data(), 2));
  EXPECT_EQ(errno, EIO);
  EXPECT_EQ(std::ftell(f->get()), 200000);  // still where the writes left it
}

}  // namespace
}  // namespace neardup
