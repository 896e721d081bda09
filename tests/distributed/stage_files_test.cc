// The stage files: shard meta and bucket output encodings, and the work
// folder's markers (work_folder.cc, stage_sign.cc, stage_bucket.cc).
#include <gtest/gtest.h>

#include <filesystem>

#include "distributed/stage_bucket.h"
#include "distributed/stage_sign.h"
#include "distributed/work_folder.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::TempDir;

ShardMeta SampleMeta() {
  ShardMeta m;
  m.task = {.task = 2, .tasks = 5};
  m.first_file = 17;
  m.counts = {.bytes = 1000, .invalid_utf8 = 3, .transcoded = 1, .duplicate_ids = 0};
  m.problems.push_back({.file = 4, .line = 9, .status = Status::Corrupt("a.jsonl:9: bad"),
                        .kind = InputProblem::Kind::kMalformed});
  m.problems.push_back({.file = 1, .line = 0, .status = Status::IoError("b.txt: denied"),
                        .kind = InputProblem::Kind::kUnreadable});
  m.walk.hidden = 2;
  m.walk.special = 1;
  m.walk_errors.push_back(Status::NotFound("missing: No such file"));
  return m;
}

TEST(ShardMetaTest, RoundTripsEveryField) {
  const ShardMeta m = SampleMeta();
  const std::string bytes = EncodeShardMeta(m);
  Result<ShardMeta> back = DecodeShardMeta(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->task.task, 2u);
  EXPECT_EQ(back->task.tasks, 5u);
  EXPECT_EQ(back->first_file, 17u);
  EXPECT_EQ(back->counts.invalid_utf8, 3u);
  ASSERT_EQ(back->problems.size(), 2u);
  EXPECT_EQ(back->problems[0].line, 9u);
  EXPECT_EQ(back->problems[0].kind, InputProblem::Kind::kMalformed);
  EXPECT_EQ(back->problems[0].status.code(), Status::Code::kCorrupt);
  EXPECT_EQ(back->problems[1].status.message(), "b.txt: denied");
  EXPECT_EQ(back->walk.hidden, 2u);
  EXPECT_EQ(back->walk.special, 1u);
  ASSERT_EQ(back->walk_errors.size(), 1u);
  EXPECT_EQ(back->walk_errors[0].code(), Status::Code::kNotFound);
  EXPECT_EQ(EncodeShardMeta(*back), bytes);
}

TEST(ShardMetaTest, AnyFlippedBitOrTruncationIsCorrupt) {
  const std::string bytes = EncodeShardMeta(SampleMeta());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    EXPECT_FALSE(DecodeShardMeta(bad).ok()) << i;
  }
  for (size_t n = 0; n < bytes.size(); ++n) EXPECT_FALSE(DecodeShardMeta(bytes.substr(0, n)).ok()) << n;
}

TEST(BucketOutputTest, RoundTripsPairsAndLargeBuckets) {
  BucketOutput o;
  o.large_bucket = 256;
  o.pairs = {{.a = 1, .b = 2, .band = 0}, {.a = GlobalId(1, 5), .b = GlobalId(3, 0), .band = 7}};
  o.large = {{1, 2, 3}, {GlobalId(2, 1), GlobalId(2, 2)}};
  const std::string bytes = EncodeBucketOutput(o);
  Result<BucketOutput> back = DecodeBucketOutput(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->large_bucket, 256u);
  EXPECT_EQ(back->pairs, o.pairs);
  EXPECT_EQ(back->large, o.large);
  std::string bad = bytes;
  bad[20] = static_cast<char>(bad[20] ^ 1);
  EXPECT_EQ(DecodeBucketOutput(bad).status().code(), Status::Code::kCorrupt);
}

TEST(GlobalIdTest, KeepsShardOrderAndSplitsBack) {
  EXPECT_LT(GlobalId(0, (uint64_t{1} << 40) - 1), GlobalId(1, 0));
  EXPECT_EQ(ShardOf(GlobalId(12345, 678)), 12345u);
  EXPECT_EQ(LocalOf(GlobalId(12345, 678)), 678u);
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
  EXPECT_NE(n.status().message().find("3 of 5 sign tasks missing: 1, 2, 4"), std::string::npos)
      << n.status().message();
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
  ASSERT_TRUE(WriteAtomically(folder.File(StageKind::kBucket, 1, "done"),
                              WorkFolder::MarkerText(StageKind::kBucket, t, 7))
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

}  // namespace
}  // namespace neardup
