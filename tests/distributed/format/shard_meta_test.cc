// The shard meta encoding (format/shard_meta.h): every field round-trips,
// any damage is refused; global document ids.
#include "distributed/format/shard_meta.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>

#include "base/hash.h"
#include "distributed/shard_meta_fixture.h"

namespace neardup {
namespace {

using testing::SampleMeta;

TEST(ShardMetaTest, RoundTripsEveryField) {
  const ShardMeta m = SampleMeta();
  const std::string bytes = EncodeShardMeta(m);
  Result<ShardMeta> back = DecodeShardMeta(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->task.task, 2u);
  EXPECT_EQ(back->task.tasks, 5u);
  EXPECT_EQ(back->first_file, 17u);
  EXPECT_EQ(back->first_begin, 123u);
  EXPECT_EQ(back->last_end, 456u);
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
  EXPECT_EQ(back->kept_paths, m.kept_paths);
  EXPECT_EQ(back->line_hashes, m.line_hashes);
  EXPECT_EQ(back->inputs, m.inputs);
  ASSERT_EQ(back->seen.size(), 2u);
  EXPECT_EQ(back->seen[0].size, 900u);
  EXPECT_EQ(back->seen[0].mtime_ns, -3);
  EXPECT_EQ(back->seen[0].raw_hash, 4u);
  EXPECT_EQ(back->seen[1].ino, 6u);
  EXPECT_EQ(EncodeShardMeta(*back), bytes);
}

TEST(ShardMetaTest, AnyFlippedBitOrTruncationIsCorrupt) {
  const std::string bytes = EncodeShardMeta(SampleMeta());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    EXPECT_FALSE(DecodeShardMeta(bad).ok()) << i;
    EXPECT_FALSE(DecodeShardMetaRoots(bad).ok()) << i;  // the checksum covers what follows the roots
  }
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeShardMeta(bytes.substr(0, n)).ok()) << n;
    EXPECT_FALSE(DecodeShardMetaRoots(bytes.substr(0, n)).ok()) << n;
  }
}

// The roots alone, as the report reads them again: those of the whole
// decode; another version is named as such.
TEST(ShardMetaTest, TheRootsAloneAreTheWholeMetasRoots) {
  ShardMeta m = SampleMeta();
  m.roots = {0, 3, 3, 1, 0xFFFFFFFFu};
  const std::string bytes = EncodeShardMeta(m);
  Result<std::vector<uint32_t>> roots = DecodeShardMetaRoots(bytes);
  ASSERT_TRUE(roots.ok()) << roots.status().message();
  EXPECT_EQ(*roots, m.roots);
  EXPECT_EQ(*roots, DecodeShardMeta(bytes)->roots);
  std::string version = bytes;
  version[8] = static_cast<char>(kMetaVersion + 1);
  const uint64_t sum = HashBytes(version.data(), version.size() - 8, 0);
  std::memcpy(version.data() + version.size() - 8, &sum, 8);
  EXPECT_EQ(DecodeShardMetaRoots(version).status().code(), Status::Code::kInvalidArgument);
}

TEST(ShardMetaTest, TheHeadAloneGivesTheListing) {
  ShardMeta m = SampleMeta();
  m.listing = 0x0123456789abcdefULL;
  const std::string bytes = EncodeShardMeta(m);
  EXPECT_EQ(ListingOfMetaHead(bytes.substr(0, kMetaHeadSize)), m.listing);
  EXPECT_EQ(ListingOfMetaHead(bytes), m.listing);  // what follows the head is not read
  // Too short, another magic, another version: no listing.
  EXPECT_EQ(ListingOfMetaHead(bytes.substr(0, kMetaHeadSize - 1)), std::nullopt);
  std::string magic = bytes;
  magic[0] = 'X';
  EXPECT_EQ(ListingOfMetaHead(magic), std::nullopt);
  std::string version = bytes;
  version[8] = static_cast<char>(kMetaVersion + 1);
  EXPECT_EQ(ListingOfMetaHead(version), std::nullopt);
  // The listing is the head's last 8 bytes: a change there is a change of
  // listing (which CheckShardListings() then reads whole, as damage).
  std::string listing = bytes;
  listing[kMetaHeadSize - 1] = static_cast<char>(listing[kMetaHeadSize - 1] ^ 1);
  EXPECT_NE(ListingOfMetaHead(listing), m.listing);
}

// Values behind a matching checksum: a problem's kind and status code.
TEST(ShardMetaTest, KindsAndCodesOutOfRangeAreCorrupt) {
  ShardMeta m = SampleMeta();
  m.problems = {{.file = 0, .line = 0, .status = Status::IoError("zz"), .kind = InputProblem::Kind::kCounted}};
  const std::string bytes = EncodeShardMeta(m);
  ASSERT_TRUE(DecodeShardMeta(bytes).ok());
  const size_t at = bytes.find(std::string("\x02\0\0\0\0\0\0\0zz", 10)) - 2;  // u8 kind, u8 code, length, text
  ASSERT_EQ(bytes[at], static_cast<char>(InputProblem::Kind::kCounted));
  for (const auto& [offset, value] : {std::pair<size_t, char>{0, 4}, {0, -1}, {1, 0}, {1, 8}}) {
    std::string bad = bytes;
    bad[at + offset] = value;
    const uint64_t sum = HashBytes(bad.data(), bad.size() - 8, 0);
    std::memcpy(bad.data() + bad.size() - 8, &sum, 8);
    EXPECT_EQ(DecodeShardMeta(bad).status().code(), Status::Code::kCorrupt) << offset << " " << int{value};
  }
}

TEST(GlobalIdTest, KeepsShardOrderAndSplitsBack) {
  EXPECT_LT(GlobalId(0, (uint64_t{1} << 40) - 1), GlobalId(1, 0));
  EXPECT_EQ(ShardOf(GlobalId(12345, 678)), 12345u);
  EXPECT_EQ(LocalOf(GlobalId(12345, 678)), 678u);
}

}  // namespace
}  // namespace neardup
