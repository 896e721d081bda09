// End to end: an unchanged --index re-run gives the output the index kept
// (#46, src/index/stored_result.h). The same bytes and exit status as the
// run that kept them, without reading the stored signatures; and never when
// anything that output rests on changed: a touch, an edit, a file added or
// removed, other options, a file younger than the keeping run's start less
// the timestamp resolution, or a run whose output is more than its files
// (--new, -f json, a stream).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "e2e/run_neardup.h"
#include "index/stored_result.h"
#include "neardup/index.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunResult;
using testing::TempDir;
using testing::With;
using testing::WriteFile;
using Args = std::vector<std::string>;

constexpr const char* kGivenAgain = "none changed since, given again";

std::string Text(uint64_t seed) { return Join(RandomWords(300, seed)); }

// Text(seed) with every 100th word replaced: a near copy (J about 0.9).
std::string Edited(uint64_t seed, const std::string& tag) {
  auto w = RandomWords(300, seed);
  for (size_t i = 7; i < w.size(); i += 100) w[i] = tag + std::to_string(i);
  return Join(w);
}

// Past the timestamp resolution the rule allows for (2 s): files written
// before this are older than the start of any run after it, less 2 s.
void AgeFiles() { std::this_thread::sleep_for(std::chrono::milliseconds(2300)); }

// A corpus of two near copies, an exact copy and a stray.
void WriteCorpus(const TempDir& dir) {
  WriteFile(dir / "c/a.txt", Text(1));
  WriteFile(dir / "c/b.txt", Edited(1, "b"));
  WriteFile(dir / "c/copy.txt", Text(1));
  WriteFile(dir / "c/other.txt", Text(2));
}

// scan --index ix.db c, in tsv unless `extra` says -f, from the test's folder.
RunResult Scan(const TempDir& dir, const Args& extra = {}) {
  Args args = {"scan", "--index", dir / "ix.db", "c"};
  if (std::find(extra.begin(), extra.end(), "-f") == extra.end()) args.insert(args.end(), {"-f", "tsv"});
  return RunNeardup(With(args, extra), dir.path(), testing::RunOptions().In(dir.path()));
}

bool GivenAgain(const RunResult& r) { return r.err.find(kGivenAgain) != std::string::npos; }

TEST(KeptResultTest, AnUnchangedRunGivesTheKeptOutputAgainByteForByte) {
  TempDir dir;
  WriteCorpus(dir);
  AgeFiles();
  for (const Args& extra : {Args{}, Args{"--mode", "duplicates"}, Args{"--mode", "clusters", "-f", "csv"}}) {
    const RunResult first = Scan(dir, extra);
    ASSERT_EQ(first.exit_code, 0) << first.err;
    EXPECT_FALSE(GivenAgain(first)) << first.err;
    ASSERT_FALSE(first.out.empty());
    for (int again = 0; again < 2; ++again) {
      const RunResult next = Scan(dir, extra);
      EXPECT_EQ(next.exit_code, first.exit_code) << next.err;
      EXPECT_EQ(next.out, first.out) << Join(extra);
      EXPECT_TRUE(GivenAgain(next)) << Join(extra) << ": " << next.err;
    }
  }
  // Nothing found is kept too, with its exit status 1.
  const RunResult strict = Scan(dir, {"-t", "0.99", "--mode", "pairs"});
  const RunResult strict_again = Scan(dir, {"-t", "0.99", "--mode", "pairs"});
  EXPECT_EQ(strict_again.exit_code, strict.exit_code);
  EXPECT_EQ(strict_again.out, strict.out);
  EXPECT_TRUE(GivenAgain(strict_again)) << strict_again.err;
  // The index with its kept results is sound.
  const RunResult check = RunNeardup({"index", "check", dir / "ix.db"}, dir.path());
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

// A run with a kept result reads the index after its walk, not beside it,
// when the index's last run found nothing changed (phases.cc): that rule
// reads the runs as they ended. A run that signs or removes a file is no
// quiet run; one that reuses every file, or gives its output again, is.
TEST(KeptResultTest, TheLastRunSaysWhetherTheCorpusWasQuiet) {
  TempDir dir;
  WriteCorpus(dir);
  AgeFiles();
  EXPECT_FALSE(LastRunChangedNothing(dir / "ix.db"));  // no index
  ASSERT_EQ(Scan(dir).exit_code, 0);
  EXPECT_FALSE(LastRunChangedNothing(dir / "ix.db"));  // it signed every file
  ASSERT_TRUE(GivenAgain(Scan(dir)));
  EXPECT_TRUE(LastRunChangedNothing(dir / "ix.db"));
  ASSERT_FALSE(GivenAgain(Scan(dir, {"-t", "0.95"})));  // other options: computed, every file reused
  EXPECT_TRUE(LastRunChangedNothing(dir / "ix.db"));
  WriteFile(dir / "c/new.txt", Text(5));
  AgeFiles();
  const RunResult added = Scan(dir);
  EXPECT_FALSE(GivenAgain(added)) << added.err;
  EXPECT_FALSE(LastRunChangedNothing(dir / "ix.db"));
  std::filesystem::remove(dir / "c/new.txt");
  AgeFiles();
  const RunResult removed = Scan(dir);
  EXPECT_FALSE(GivenAgain(removed)) << removed.err;
  EXPECT_FALSE(LastRunChangedNothing(dir / "ix.db"));  // it removed one
  // Whichever way the reading went, an unchanged run gives the same bytes.
  const RunResult again = Scan(dir);
  EXPECT_TRUE(GivenAgain(again)) << again.err;
  EXPECT_EQ(again.out, removed.out);
}

// A touch changes no byte but the stat the kept output rests on: the run
// computes again (the same output), and keeps it; an edit gives the output of
// the new text, as a run without the index does; so do a file added and one
// removed.
TEST(KeptResultTest, AnyChangeOfTheFilesIsSeenAndTheOutputComputedAgain) {
  TempDir dir;
  WriteCorpus(dir);
  AgeFiles();
  const RunResult first = Scan(dir);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_TRUE(GivenAgain(Scan(dir)));

  ASSERT_EQ(::utimensat(AT_FDCWD, (dir / "c/other.txt").c_str(), nullptr, 0), 0);  // touch
  AgeFiles();
  const RunResult touched = Scan(dir);
  EXPECT_FALSE(GivenAgain(touched)) << touched.err;
  EXPECT_EQ(touched.out, first.out);
  EXPECT_TRUE(GivenAgain(Scan(dir)));

  auto plain = [&dir] {
    return RunNeardup({"scan", "-q", "-f", "tsv", "c"}, dir.path(), testing::RunOptions().In(dir.path())).out;
  };
  const std::vector<std::pair<std::string, std::function<void()>>> changes = {
      {"an edit", [&dir] { WriteFile(dir / "c/b.txt", Text(3)); }},
      {"a file added", [&dir] { WriteFile(dir / "c/new.txt", Edited(2, "n")); }},
      {"a file removed", [&dir] { std::filesystem::remove(dir / "c/copy.txt"); }},
  };
  std::string before = first.out;
  for (const auto& [what, change] : changes) {
    change();
    AgeFiles();
    const RunResult after = Scan(dir);
    EXPECT_FALSE(GivenAgain(after)) << what << ": " << after.err;
    EXPECT_EQ(after.out, plain()) << what;
    EXPECT_NE(after.out, before) << what;
    before = after.out;
    const RunResult again = Scan(dir);
    EXPECT_TRUE(GivenAgain(again)) << what << ": " << again.err;
    EXPECT_EQ(again.out, after.out) << what;
  }
}

// Files younger than the keeping run's start less 2 s may have changed in the
// same timestamp (git's racily clean entries): their output is not given
// again. Nor is one whose output is more than its files, nor one of other
// options.
TEST(KeptResultTest, NotGivenForYoungFilesOtherOptionsOrOutputsOfMoreThanTheFiles) {
  TempDir dir;
  WriteCorpus(dir);
  const RunResult young = Scan(dir);
  ASSERT_EQ(young.exit_code, 0) << young.err;
  const RunResult young_again = Scan(dir);
  EXPECT_FALSE(GivenAgain(young_again)) << young_again.err;
  EXPECT_EQ(young_again.out, young.out);

  AgeFiles();
  ASSERT_FALSE(GivenAgain(Scan(dir)));  // kept now, the files old enough
  ASSERT_TRUE(GivenAgain(Scan(dir)));
  for (const Args& extra : {Args{"-t", "0.7"}, Args{"--verify", "signature"}, Args{"-f", "jsonl"}}) {
    EXPECT_FALSE(GivenAgain(Scan(dir, extra))) << Join(extra);
  }
  for (const Args& extra : {Args{"--new"}, Args{"-f", "json"}}) {
    Scan(dir, extra);
    const RunResult again = Scan(dir, extra);
    EXPECT_FALSE(GivenAgain(again)) << Join(extra) << ": " << again.err;
  }
}

// An index of an older schema version is migrated by the next run, which
// fills what that version lacked (the distinct-shingle counts of
// --relation): the outputs kept before are computed again, then kept anew.
TEST(KeptResultTest, AnIndexOfAnOlderSchemaComputesAgain) {
  TempDir dir;
  WriteCorpus(dir);
  AgeFiles();
  const Args both = {"--relation", "both"};
  const RunResult first = Scan(dir, both);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_TRUE(GivenAgain(Scan(dir, both)));
  const std::string ix = dir / "ix.db";
  ASSERT_EQ(testing::RunProcess({"/usr/bin/sqlite3", ix, "PRAGMA user_version = 4;"}, dir.path()).exit_code, 0);
  const RunResult migrated = Scan(dir, both);
  EXPECT_FALSE(GivenAgain(migrated)) << migrated.err;
  EXPECT_EQ(migrated.out, first.out);
  EXPECT_EQ(testing::RunProcess({"/usr/bin/sqlite3", ix, "PRAGMA user_version;"}, dir.path()).out,
            std::to_string(kIndexSchemaVersion) + "\n");
  const RunResult again = Scan(dir, both);
  EXPECT_TRUE(GivenAgain(again)) << again.err;
  EXPECT_EQ(again.out, first.out);
}

}  // namespace
}  // namespace neardup
