// The verify output encoding (format/verify_output.h): pairs with their
// relation, large buckets, left-out documents and sets round-trip; a kind
// no relation has, and any damage, are refused.
#include "distributed/format/verify_output.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/coding.h"
#include "distributed/format/shard_meta.h"

namespace neardup {
namespace {

VerifyOutput Sample() {
  VerifyOutput o;
  o.reread = true;
  o.visited = 7;
  o.pairs = {{.a = 1, .b = 2, .estimate = 0.9, .jaccard = 0.85, .kind = PairKind::kSimilar},
             {.a = 1, .b = GlobalId(1, 3), .estimate = 0.2, .jaccard = 0.25, .kind = PairKind::kAInB},
             {.a = GlobalId(1, 0), .b = GlobalId(2, 9), .estimate = 0.3, .jaccard = 0.31, .kind = PairKind::kBInA}};
  o.left_out = {{.id = 5, .why = Status::Changed("a.txt: changed during the run")}};
  o.sets = {{1, {3, 4, 5}}, {2, {4, 5}}};
  return o;
}

TEST(VerifyOutputTest, RoundTripsPairsWithTheirRelation) {
  const VerifyOutput o = Sample();
  Result<VerifyOutput> back = DecodeVerifyOutput(EncodeVerifyOutput(o));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back->reread);
  EXPECT_EQ(back->visited, 7u);
  ASSERT_EQ(back->pairs.size(), o.pairs.size());
  for (size_t k = 0; k < o.pairs.size(); ++k) {
    EXPECT_EQ(back->pairs[k].a, o.pairs[k].a);
    EXPECT_EQ(back->pairs[k].b, o.pairs[k].b);
    EXPECT_EQ(back->pairs[k].estimate, o.pairs[k].estimate);
    EXPECT_EQ(back->pairs[k].jaccard, o.pairs[k].jaccard);
    EXPECT_EQ(back->pairs[k].kind, o.pairs[k].kind);
  }
  ASSERT_EQ(back->left_out.size(), 1u);
  EXPECT_EQ(back->left_out[0].why.message(), "a.txt: changed during the run");
  EXPECT_EQ(back->sets, o.sets);
}

TEST(VerifyOutputTest, AKindNoRelationHasIsRefused) {
  VerifyOutput o = Sample();
  o.pairs.resize(1);
  o.left_out.clear();
  o.sets.clear();
  std::string bytes = EncodeVerifyOutput(o);
  // The kind is the pair's last byte: 8 magic, 4 version, 1 reread, 8 + 8 + 8
  // counts, then a, b, estimate, Jaccard (32 bytes).
  const size_t kind_at = 8 + 4 + 1 + 8 + 8 + 8 + 32;
  ASSERT_EQ(bytes[kind_at], 0);
  bytes[kind_at] = 3;
  bytes.resize(bytes.size() - 8);
  PutChecksum(&bytes);
  Result<VerifyOutput> back = DecodeVerifyOutput(bytes);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), Status::Code::kCorrupt);
  bytes[kind_at] = 2;
  bytes.resize(bytes.size() - 8);
  PutChecksum(&bytes);
  ASSERT_TRUE(DecodeVerifyOutput(bytes).ok());
  EXPECT_EQ(DecodeVerifyOutput(bytes)->pairs[0].kind, PairKind::kBInA);
}

TEST(VerifyOutputTest, AnyFlippedBitOrTruncationIsRefused) {
  const std::string bytes = EncodeVerifyOutput(Sample());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    EXPECT_FALSE(DecodeVerifyOutput(bad).ok()) << i;
  }
  for (size_t n = 0; n < bytes.size(); ++n) EXPECT_FALSE(DecodeVerifyOutput(bytes.substr(0, n)).ok()) << n;
}

// A verify task writes its output piece by piece (EncodeVerifyOutputTo),
// large sets straight from their vectors: the pieces, whatever their sizes,
// are the bytes of the whole encoding, and its checksum covers every byte of
// every set, large or small.
TEST(VerifyOutputTest, PiecesAreTheWholeEncodingLargeSetsIncluded) {
  VerifyOutput o = Sample();
  o.sets.clear();
  for (uint64_t id = 1; id <= 40; ++id) {
    std::vector<uint64_t> set(id % 3 == 0 ? 700 + id : id);  // some above a piece's share, some not
    for (size_t k = 0; k < set.size(); ++k) set[k] = id * 1000003 + k;
    o.sets.emplace_back(id, std::move(set));
  }
  for (uint64_t k = 0; k < 3000; ++k) o.pairs.push_back({.a = 100 + k, .b = 200000 + k, .estimate = 0.5});
  std::string joined;
  size_t pieces = 0;
  EncodeVerifyOutputTo(o, [&](std::string_view piece) {
    joined.append(piece);
    ++pieces;
  });
  const std::string whole = EncodeVerifyOutput(o);
  EXPECT_EQ(joined, whole);
  EXPECT_GT(pieces, 10u);
  Result<VerifyOutput> back = DecodeVerifyOutput(whole);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->sets, o.sets);
  EXPECT_EQ(back->pairs.size(), o.pairs.size());
  // A hash of a large set changed: refused.
  const std::string needle(reinterpret_cast<const char*>(&o.sets[2].second[500]), 8);
  const size_t at = whole.find(needle);
  ASSERT_NE(at, std::string::npos);
  std::string bad = whole;
  bad[at] = static_cast<char>(bad[at] ^ 1);
  EXPECT_FALSE(DecodeVerifyOutput(bad).ok());
}

}  // namespace
}  // namespace neardup
