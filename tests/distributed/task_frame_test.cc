// The task frame of the stage tasks (task_frame.cc): the task index, the
// marker that says a task is done, joining a stage, outputs and marker.
#include "distributed/task_frame.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "distributed/work_folder.h"
#include "test_util.h"

namespace neardup {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

bool Exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

TEST(TaskFrameTest, ATaskIndexOutOfRangeIsRefusedBeforeTheFolderIsMade) {
  TempDir dir;
  const WorkFolder folder(dir / "work");
  for (const StageTask t : {StageTask{.task = 2, .tasks = 2}, StageTask{.task = 0, .tasks = 0}}) {
    Result<TaskFrame> frame = TaskFrame::Begin(folder, StageKind::kBucket, t, 7);
    ASSERT_FALSE(frame.ok());
    EXPECT_EQ(frame.status().code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(frame.status().message(), "--task must be below --tasks");
    EXPECT_EQ(CheckTaskIndex(t).message(), "--task must be below --tasks");
  }
  EXPECT_FALSE(Exists(dir / "work"));
  EXPECT_TRUE(CheckTaskIndex({.task = 1, .tasks = 2}).ok());
}

TEST(TaskFrameTest, AFinishedTaskIsDoneAndItsMarkerIsWrittenLast) {
  TempDir dir;
  const WorkFolder folder(dir / "work");
  const StageTask t{.task = 1, .tasks = 3};
  Result<TaskFrame> frame = TaskFrame::Begin(folder, StageKind::kBucket, t, 7);
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  EXPECT_FALSE(frame->done());
  EXPECT_EQ(frame->Path("pairs"), dir / "work/bucket/1.pairs");
  ASSERT_TRUE(frame->Join().ok());
  ASSERT_TRUE(frame->Place("pairs", "the pairs").ok());
  EXPECT_EQ(testing::ReadFile(dir / "work/bucket/1.pairs"), "the pairs");
  EXPECT_FALSE(Exists(dir / "work/bucket/1.done"));  // placed, not finished
  Result<TaskRun> ran = frame->Finish();
  ASSERT_TRUE(ran.ok()) << ran.status().message();
  EXPECT_EQ(*ran, TaskRun::kRan);
  EXPECT_EQ(testing::ReadFile(dir / "work/bucket/1.done"), WorkFolder::MarkerText(StageKind::kBucket, t, 7));

  Result<TaskFrame> again = TaskFrame::Begin(folder, StageKind::kBucket, t, 7);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_TRUE(again->done());
  // The same task of another run: refused, not done.
  Result<TaskFrame> other = TaskFrame::Begin(folder, StageKind::kBucket, t, 8);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(other.status().message().find("made with other options"), std::string::npos) << other.status().message();
  other = TaskFrame::Begin(folder, StageKind::kBucket, {.task = 1, .tasks = 4}, 7);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().message(),
            dir / "work/bucket/1.done" + ": made by a run of 3 bucket tasks, not 4: use an empty work folder");
  // A marker of another stage's task says nothing of this one.
  Result<TaskFrame> verify = TaskFrame::Begin(folder, StageKind::kVerify, t, 7);
  ASSERT_TRUE(verify.ok()) << verify.status().message();
  EXPECT_FALSE(verify->done());
}

TEST(TaskFrameTest, ATaskThatFailsLeavesNoMarkerAndNoOutput) {
  TempDir dir;
  const WorkFolder folder(dir / "work");
  const StageTask t{.task = 0, .tasks = 2};
  Result<TaskFrame> frame = TaskFrame::Begin(folder, StageKind::kVerify, t, 7);
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  // An output that cannot be renamed into place (a folder holds its name).
  fs::create_directories(dir / "work/verify/0.pairs/x");
  const Status placed = frame->Place("pairs", "the pairs");
  EXPECT_EQ(placed.code(), Status::Code::kIoError);
  EXPECT_NE(placed.message().find("cannot rename into place"), std::string::npos) << placed.message();
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir / "work/verify")) {
    names.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(names, std::vector<std::string>{"0.pairs"});  // no temporary, no marker
  Result<TaskFrame> again = TaskFrame::Begin(folder, StageKind::kVerify, t, 7);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_FALSE(again->done());  // run again, it does the work again
}

TEST(TaskFrameTest, JoiningRefusesAnotherRunsMarkersThenRemovesOnlyItsOwnTemporaries) {
  TempDir dir;
  const WorkFolder folder(dir / "work");
  ASSERT_TRUE(folder.Create().ok());
  const std::string mine = dir / "work/sign/.0.table.tmp-999", theirs = dir / "work/sign/.1.table.tmp-999";
  testing::WriteFile(mine, "killed");
  testing::WriteFile(theirs, "running");
  // Task 2 of a run of 3 finished; task 0 of 2 tasks must not join it.
  ASSERT_TRUE(
      WriteAtomically(dir / "work/sign/2.done", WorkFolder::MarkerText(StageKind::kSign, {.task = 2, .tasks = 3}, 7))
          .ok());
  Result<TaskFrame> frame = TaskFrame::Begin(folder, StageKind::kSign, {.task = 0, .tasks = 2}, 7);
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  EXPECT_FALSE(frame->done());
  const Status joined = frame->Join();
  EXPECT_EQ(joined.message(), dir / "work/sign/2.done" + ": made by a run of 3 tasks, not 2: use an empty work folder");
  EXPECT_TRUE(Exists(mine));  // refused before anything is removed

  ASSERT_TRUE(fs::remove(dir / "work/sign/2.done"));
  ASSERT_TRUE(frame->Join().ok());
  EXPECT_FALSE(Exists(mine));
  EXPECT_TRUE(Exists(theirs));
}

}  // namespace
}  // namespace neardup
