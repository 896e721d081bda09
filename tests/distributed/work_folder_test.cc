// The work folder (work_folder.h): its markers, the tasks finished and
// missing, its temporaries.
#include "distributed/work_folder.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "test_util.h"

namespace neardup {
namespace {

using testing::TempDir;

TEST(MarkerTest, OnlyTheExactTextOfATaskIsAMarker) {
  const std::string text = WorkFolder::MarkerText(StageKind::kBucket, {.task = 3, .tasks = 7}, 0xabcdef);
  Result<Marker> m = ParseMarker(text, StageKind::kBucket);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->task.task, 3u);
  EXPECT_EQ(m->task.tasks, 7u);
  EXPECT_EQ(m->fingerprint, 0xabcdefu);
  EXPECT_FALSE(ParseMarker(text, StageKind::kSign).ok());
  for (size_t i = 0; i < text.size(); ++i) {
    std::string bad = text;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    EXPECT_FALSE(ParseMarker(bad, StageKind::kBucket).ok()) << i;
  }
  for (size_t n = 0; n < text.size(); ++n) EXPECT_FALSE(ParseMarker(text.substr(0, n), StageKind::kBucket).ok());
  EXPECT_FALSE(ParseMarker(text + "x", StageKind::kBucket).ok());
  // Well-formed texts of impossible tasks.
  EXPECT_TRUE(
      ParseMarker(WorkFolder::MarkerText(StageKind::kSign, {.task = 0, .tasks = 1u << 24}, 1), StageKind::kSign).ok());
  for (const StageTask t : {StageTask{.task = 0, .tasks = (1u << 24) + 1}, StageTask{.task = 2, .tasks = 2},
                            StageTask{.task = 0, .tasks = 0}}) {
    EXPECT_FALSE(ParseMarker(WorkFolder::MarkerText(StageKind::kSign, t, 1), StageKind::kSign).ok()) << t.tasks;
  }
}

TEST(WorkFolderTest, MissingTasksOfAHugeRunAreListedInShort) {
  TempDir dir;
  const WorkFolder folder(dir / "work");
  ASSERT_TRUE(folder.Create().ok());
  ASSERT_TRUE(WriteAtomically(folder.File(StageKind::kSign, 5, "done"),
                              WorkFolder::MarkerText(StageKind::kSign, {.task = 5, .tasks = 1u << 24}, 42))
                  .ok());
  Result<uint32_t> n = folder.FinishedTasks(StageKind::kSign, 42);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().message(), dir / "work/sign" +
                                      ": 16777215 of 16777216 sign tasks missing: 0, 1, 2, 3, 4, 6, 7, 8, 9, 10, "
                                      "... and 16777205 more");
  EXPECT_EQ(folder.Marked(StageKind::kSign), std::vector<uint32_t>{5});
}

TEST(WorkFolderTest, FinishedTasksListsTheMissingByNumber) {
  TempDir dir;
  const WorkFolder folder(dir / "work");
  ASSERT_TRUE(folder.Create().ok());
  EXPECT_FALSE(folder.FinishedTasks(StageKind::kSign, 42).ok());
  for (uint32_t t : {0u, 3u}) {
    ASSERT_TRUE(WriteAtomically(folder.File(StageKind::kSign, t, "done"),
                                WorkFolder::MarkerText(StageKind::kSign, {.task = t, .tasks = 5}, 42))
                    .ok());
  }
  Result<uint32_t> n = folder.FinishedTasks(StageKind::kSign, 42);
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("3 of 5 sign tasks missing: 1, 2, 4"), std::string::npos) << n.status().message();
  for (uint32_t t : {1u, 2u, 4u}) {
    ASSERT_TRUE(WriteAtomically(folder.File(StageKind::kSign, t, "done"),
                                WorkFolder::MarkerText(StageKind::kSign, {.task = t, .tasks = 5}, 42))
                    .ok());
  }
  n = folder.FinishedTasks(StageKind::kSign, 42);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(*n, 5u);
  EXPECT_FALSE(folder.FinishedTasks(StageKind::kSign, 43).ok());  // other parameters
}

TEST(WorkFolderTest, DoneIsTrueOnlyForThisRunsMarker) {
  TempDir dir;
  const WorkFolder folder(dir / "work");
  ASSERT_TRUE(folder.Create().ok());
  const StageTask t{.task = 1, .tasks = 2};
  Result<bool> done = folder.Done(StageKind::kBucket, t, 7);
  ASSERT_TRUE(done.ok());
  EXPECT_FALSE(*done);
  ASSERT_TRUE(
      WriteAtomically(folder.File(StageKind::kBucket, 1, "done"), WorkFolder::MarkerText(StageKind::kBucket, t, 7))
          .ok());
  done = folder.Done(StageKind::kBucket, t, 7);
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(*done);
  EXPECT_FALSE(folder.Done(StageKind::kBucket, {.task = 1, .tasks = 3}, 7).ok());
  EXPECT_FALSE(folder.Done(StageKind::kBucket, t, 8).ok());
}

TEST(WorkFolderTest, RemoveTemporariesLeavesOtherTasksAlone) {
  TempDir dir;
  const WorkFolder folder(dir / "work");
  ASSERT_TRUE(folder.Create().ok());
  testing::WriteFile(folder.Dir(StageKind::kSign) + "/.1.table.tmp-99", "x");
  testing::WriteFile(folder.Dir(StageKind::kSign) + "/.10.table.tmp-99", "x");
  folder.RemoveTemporaries(StageKind::kSign, 1);
  EXPECT_FALSE(std::filesystem::exists(folder.Dir(StageKind::kSign) + "/.1.table.tmp-99"));
  EXPECT_TRUE(std::filesystem::exists(folder.Dir(StageKind::kSign) + "/.10.table.tmp-99"));
}

// Every byte, whatever the size: around the 64 KiB a read is grown by, and
// empty; a missing file is an IoError naming it.
TEST(ReadWholeFileTest, ReadsEveryByteOfAnySize) {
  TempDir dir;
  for (const size_t n : {size_t{0}, size_t{1}, size_t{65535}, size_t{65536}, size_t{65537}, size_t{1} << 20}) {
    std::string bytes(n, '\0');
    for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>((i * 131) ^ (i >> 8));
    const std::string path = dir / (std::to_string(n) + ".bytes");
    testing::WriteFile(path, bytes);
    Result<std::string> back = ReadWholeFile(path);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(*back, bytes) << n;
  }
  Result<std::string> missing = ReadWholeFile(dir / "none");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Status::Code::kIoError);
  EXPECT_NE(missing.status().message().find("none"), std::string::npos);
}

}  // namespace
}  // namespace neardup
