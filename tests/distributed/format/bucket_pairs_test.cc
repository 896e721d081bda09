// The bucket output encoding (format/bucket_pairs.h): pairs and large
// buckets round-trip, any damage is refused.
#include "distributed/format/bucket_pairs.h"

#include <gtest/gtest.h>

#include <string>

#include "distributed/format/shard_meta.h"
#include "test_util.h"

namespace neardup {
namespace {

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

TEST(BucketOutputTest, RoundTripsContainmentCandidates) {
  BucketOutput o;
  o.pairs = {{.a = 1, .b = 2, .band = 0}};
  o.contained_visited = 9;
  o.contained = {{.a = 0, .b = GlobalId(2, 4)}, {.a = GlobalId(1, 5), .b = GlobalId(1, 6)}};
  const std::string bytes = EncodeBucketOutput(o);
  Result<BucketOutput> back = DecodeBucketOutput(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->pairs, o.pairs);
  EXPECT_EQ(back->contained_visited, 9u);
  EXPECT_EQ(back->contained, o.contained);
  // Streamed, field by field, as a verify task reads it.
  const testing::TempDir dir;
  const std::string path = dir / "pairs";
  testing::WriteFile(path, bytes);
  FileSource in(path, 64);
  ASSERT_TRUE(in.Open().ok());
  uint64_t visited = 0;
  std::vector<ContainedPair> streamed;
  const BucketPairsVisitor visit{.header = [](uint64_t) { return Status::Ok(); },
                                 .pair = [](uint64_t, const BucketPair&) { return Status::Ok(); },
                                 .list = [](std::vector<uint64_t>) { return Status::Ok(); },
                                 .contained_visited =
                                     [&](uint64_t v) {
                                       visited = v;
                                       return Status::Ok();
                                     },
                                 .contained =
                                     [&](uint64_t, const ContainedPair& p) {
                                       streamed.push_back(p);
                                       return Status::Ok();
                                     }};
  ASSERT_TRUE(StreamBucketPairs(in, visit).ok());
  EXPECT_EQ(visited, 9u);
  EXPECT_EQ(streamed, o.contained);
}

TEST(BucketOutputTest, AnyFlippedBitOrTruncationIsCorrupt) {
  BucketOutput o;
  o.large_bucket = 256;
  o.pairs = {{.a = 1, .b = 2, .band = 0}, {.a = GlobalId(1, 5), .b = GlobalId(3, 0), .band = 7}};
  o.large = {{1, 2, 3}};
  o.contained_visited = 3;
  o.contained = {{.a = 4, .b = 5}};
  const std::string bytes = EncodeBucketOutput(o);
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x40);
    EXPECT_EQ(DecodeBucketOutput(bad).status().code(), Status::Code::kCorrupt) << i;
  }
  for (size_t n = 0; n < bytes.size(); ++n) EXPECT_FALSE(DecodeBucketOutput(bytes.substr(0, n)).ok()) << n;
}

}  // namespace
}  // namespace neardup
