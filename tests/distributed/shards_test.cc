// The shards (shards.h): a shard meta checked against its shard's files and
// documents, and the byte ranges that continue across shards.
#include "distributed/shards.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "distributed/shard_meta_fixture.h"

namespace neardup {
namespace {

using testing::SampleMeta;

TEST(ShardMetaTest, CheckedAgainstItsShard) {
  ShardMeta m = SampleMeta();      // task 2 of 5, problems of files 4 and 1, 3 documents
  m.first_begin = m.last_end = 0;  // whole files (of no bytes)
  m.roots.assign(5, 0);
  m.kept_paths.assign(5, "x");
  m.seen.assign(5, {});
  EXPECT_TRUE(CheckShardMeta(m, 2, 5, EndsOf(std::vector<InputFile>(5)), 3).ok());
  EXPECT_EQ(CheckShardMeta(m, 1, 5, EndsOf(std::vector<InputFile>(5)), 3).message(), "another task's meta");
  EXPECT_EQ(CheckShardMeta(m, 2, 4, EndsOf(std::vector<InputFile>(5)), 3).message(), "another task's meta");
  EXPECT_EQ(CheckShardMeta(m, 2, 5, EndsOf(std::vector<InputFile>(6)), 3).message(),
            "its roots do not match the shard's files");
  EXPECT_EQ(CheckShardMeta(m, 2, 5, EndsOf(std::vector<InputFile>(5)), 4).message(),
            "its line hashes do not match the shard's documents");
  m.kept_paths.assign(4, "x");
  m.seen.assign(4, {});
  EXPECT_EQ(CheckShardMeta(m, 2, 5, EndsOf(std::vector<InputFile>(5)), 3).message(),
            "its roots do not match the shard's files");
  m.roots.assign(4, 0);
  EXPECT_EQ(CheckShardMeta(m, 2, 5, EndsOf(std::vector<InputFile>(4)), 3).message(),
            "a problem of a file out of range");
}

TEST(ShardMetaTest, ByteRangeCheckedAgainstItsFiles) {
  ShardMeta m = SampleMeta();
  m.problems.clear();
  m.roots.assign(2, 0);
  m.kept_paths.assign(2, "x");
  m.seen.assign(2, {});
  std::vector<InputFile> files(2);
  files[0].size = 100;
  files[1].size = 50;
  m.first_begin = 40;  // continues an earlier shard's range of files[0]
  m.last_end = 20;     // a later shard continues files[1]
  EXPECT_TRUE(CheckShardMeta(m, 2, 5, EndsOf(files), 3).ok());
  EXPECT_TRUE(ContinuesFirst(m, EndsOf(files)));
  EXPECT_TRUE(ContinuedLast(m, EndsOf(files)));
  m.last_end = 50;
  EXPECT_FALSE(ContinuedLast(m, EndsOf(files)));
  for (const auto& [begin, end] : {std::pair<uint64_t, uint64_t>{100, 50}, {0, 51}}) {
    m.first_begin = begin;
    m.last_end = end;
    EXPECT_EQ(CheckShardMeta(m, 2, 5, EndsOf(files), 3).message(), "its byte range does not fit its files") << begin;
  }
  // One file: a range of no bytes is damage.
  m.roots.assign(1, 0);
  m.kept_paths.assign(1, "x");
  m.seen.assign(1, {});
  files.pop_back();
  m.first_begin = 30;
  m.last_end = 30;
  EXPECT_EQ(CheckShardMeta(m, 2, 5, EndsOf(files), 3).message(), "its byte range does not fit its files");
  m.last_end = 31;
  EXPECT_TRUE(CheckShardMeta(m, 2, 5, EndsOf(files), 3).ok());
}

}  // namespace
}  // namespace neardup
