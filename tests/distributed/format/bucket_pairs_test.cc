// The bucket output encoding (format/bucket_pairs.h): pairs and large
// buckets round-trip, any damage is refused.
#include "distributed/format/bucket_pairs.h"

#include <gtest/gtest.h>

#include <string>

#include "distributed/format/shard_meta.h"

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

TEST(BucketOutputTest, AnyFlippedBitOrTruncationIsCorrupt) {
  BucketOutput o;
  o.large_bucket = 256;
  o.pairs = {{.a = 1, .b = 2, .band = 0}, {.a = GlobalId(1, 5), .b = GlobalId(3, 0), .band = 7}};
  o.large = {{1, 2, 3}};
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
