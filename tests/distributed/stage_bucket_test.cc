// The bucket stage (stage_bucket.h): a bucket task's output checked against
// the run, and the pairs of band files bucketed.
#include "distributed/stage_bucket.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/hash.h"
#include "distributed/format/band_file.h"
#include "distributed/format/shard_meta.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::TempDir;

// Each value of a bucket task's output against the shards, the task's bands
// and the mode.
TEST(BucketOutputTest, EveryValueIsCheckedAgainstTheRun) {
  const PairsLimits limits{.shard_docs = {3, 5}, .bands = {.first = 4, .last = 8}, .large_bucket = 2};
  const BucketPair good{.a = GlobalId(0, 2), .b = GlobalId(1, 4), .band = 4};
  BucketOutput o;
  o.large_bucket = 2;
  o.pairs = {good};
  o.large = {{GlobalId(0, 0), GlobalId(0, 1), GlobalId(1, 0)}};
  ASSERT_TRUE(CheckBucketOutput(o, limits).ok());
  auto message = [&](const BucketOutput& bad) { return CheckBucketOutput(bad, limits).message(); };
  const std::pair<BucketPair, std::string> pairs[] = {
      {{.a = GlobalId(0, 3), .b = GlobalId(1, 0), .band = 4}, "a document id out of range"},
      {{.a = GlobalId(0, 0), .b = GlobalId(1, 5), .band = 4}, "a document id out of range"},
      {{.a = GlobalId(0, 0), .b = GlobalId(2, 0), .band = 4}, "a document id out of range"},
      {{.a = GlobalId(0, 0), .b = GlobalId(0, 0), .band = 4}, "a pair out of order"},
      {{.a = GlobalId(1, 0), .b = GlobalId(0, 0), .band = 4}, "a pair out of order"},
      {{.a = GlobalId(0, 0), .b = GlobalId(0, 1), .band = 3}, "a band out of range"},
      {{.a = GlobalId(0, 0), .b = GlobalId(0, 1), .band = 8}, "a band out of range"},
      {{.a = GlobalId(0, 0), .b = GlobalId(0, 1), .band = ~uint64_t{0}}, "a band out of range"},
  };
  for (const auto& [pair, what] : pairs) {
    BucketOutput bad = o;
    bad.pairs = {pair};
    EXPECT_EQ(message(bad), what) << pair.a << " " << pair.b << " " << pair.band;
  }
  BucketOutput bad = o;
  bad.pairs = {good, good};
  EXPECT_EQ(message(bad), "its pairs are out of order");
  bad = o;
  bad.large[0].push_back(GlobalId(5, 0));
  EXPECT_EQ(message(bad), "a document id out of range");
  bad = o;
  bad.large[0].pop_back();
  EXPECT_EQ(message(bad), "a large bucket that is not large");
  bad = o;
  std::swap(bad.large[0][0], bad.large[0][1]);
  EXPECT_EQ(message(bad), "a large bucket out of order");
  bad = o;
  bad.large_bucket = 0;
  EXPECT_EQ(CheckBucketOutput(bad, limits).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(CheckBucketOutput(bad, {.shard_docs = {3, 5}, .bands = {4, 8}, .large_bucket = 0}).message(),
            "a large bucket in pairs mode");
}

using BandRunEntries = std::vector<std::pair<uint64_t, uint64_t>>;  // (hash, local id)

// A band file of one band in `runs` runs of entries over `contents` (per
// document, the low half of its content hash), checksums right; the runs'
// counts in the trailer are `counts` when given.
std::string BandFileOfRuns(const std::vector<BandRunEntries>& runs, const std::vector<uint64_t>& contents,
                           const std::vector<uint64_t>& counts_said = {}) {
  uint64_t entries = 0;
  for (const BandRunEntries& r : runs) entries += r.size();
  std::string header("NDUPBAND", 8);
  const uint32_t fields[] = {kBandsVersion, 1, 4, static_cast<uint32_t>(runs.size())};
  header.append(reinterpret_cast<const char*>(fields), sizeof fields);
  const uint64_t numbers[] = {7, entries, contents.size()};  // fingerprint, K, D
  header.append(reinterpret_cast<const char*>(numbers), sizeof numbers);
  std::string body;
  std::vector<uint64_t> counts, sums;
  for (const BandRunEntries& r : runs) {
    std::string run;
    for (const auto& [hash, id] : r) {
      run.append(reinterpret_cast<const char*>(&hash), 8).append(reinterpret_cast<const char*>(&id), kBandIdBytes);
    }
    counts.push_back(r.size());
    sums.push_back(HashBytes(run.data(), run.size(), 0));
    body += run;
  }
  std::string copies;
  for (const uint64_t low : contents) {
    const uint64_t content[] = {low, 0};
    copies.append(reinterpret_cast<const char*>(content), sizeof content);
  }
  std::vector<uint64_t> trailer = counts_said.empty() ? counts : counts_said;
  trailer.insert(trailer.end(), sums.begin(), sums.end());
  trailer.push_back(HashBytes(copies.data(), copies.size(), 0));
  const std::string fields_bytes(reinterpret_cast<const char*>(trailer.data()), trailer.size() * 8);
  const uint64_t index = BandsIndexChecksum(header, fields_bytes);
  return header + body + copies + fields_bytes + std::string(reinterpret_cast<const char*>(&index), 8);
}

// A band file of one band of one run of `entries`.
std::string BandFile(const BandRunEntries& entries, const std::vector<uint64_t>& contents) {
  return BandFileOfRuns({entries}, contents);
}

TEST(BucketBandsTest, PairsOfABucketAndEntriesPastTheShardsDocuments) {
  TempDir dir;
  const std::string path = dir / "0.bands";
  const Banding banding{.bands = 1, .rows = 4};
  testing::WriteFile(path, BandFile({{5, 0}, {5, 1}, {9, 2}}, {10, 11, 12}));
  Result<BucketOutput> out = BucketBands({{.path = path, .shard = 0, .docs = 3}}, banding, 7, {0, 1}, 0);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->pairs, (std::vector<BucketPair>{{.a = 0, .b = 1, .band = 0}}));
  EXPECT_EQ(BucketBands({{.path = path, .shard = 0, .docs = 3}}, banding, 8, {0, 1}, 0).status().code(),
            Status::Code::kInvalidArgument);  // another fingerprint
  // A file of another document count than its shard's table.
  EXPECT_EQ(BucketBands({{.path = path, .shard = 0, .docs = 4}}, banding, 7, {0, 1}, 0).status().message(),
            path + ": its document count is not its shard table's: run again in an empty work folder");
  // One id twice, under two hashes: more entries than documents.
  testing::WriteFile(path, BandFile({{5, 0}, {6, 0}}, {10}));
  out = BucketBands({{.path = path, .shard = 0, .docs = 1}}, banding, 7, {0, 1}, 0);
  EXPECT_EQ(out.status().message(),
            path + ": more entries a band than its shard has documents: run again in an empty work folder");
}

// A band in several runs (as a sign task spills them) is merged: a bucket
// whose members are in different runs of one shard is one bucket; runs whose
// counts do not add up to the band's are refused.
TEST(BucketBandsTest, RunsOfOneShardAreMergedIntoOneBand) {
  TempDir dir;
  const std::string path = dir / "0.bands";
  const Banding banding{.bands = 1, .rows = 4};
  testing::WriteFile(path, BandFileOfRuns({{{5, 0}, {9, 2}}, {{5, 1}, {7, 3}, {9, 4}}, {}}, {10, 11, 12, 13, 14}));
  Result<BucketOutput> out = BucketBands({{.path = path, .shard = 0, .docs = 5}}, banding, 7, {0, 1}, 0);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->pairs, (std::vector<BucketPair>{{.a = 0, .b = 1, .band = 0}, {.a = 2, .b = 4, .band = 0}}));
  // 5 entries, the runs' counts say 2 and 4, or 2 and 2.
  for (const std::vector<uint64_t>& said : {std::vector<uint64_t>{2, 4}, std::vector<uint64_t>{2, 2}}) {
    testing::WriteFile(path, BandFileOfRuns({{{5, 0}, {9, 2}}, {{5, 1}, {7, 3}, {9, 4}}}, {10, 11, 12, 13, 14}, said));
    out = BucketBands({{.path = path, .shard = 0, .docs = 5}}, banding, 7, {0, 1}, 0);
    EXPECT_EQ(out.status().message(),
              path + ": its runs do not add up to its bands: run again in an empty work folder");
  }
}

// The copies section decides a bucket's representatives, across shards:
// the smallest id of each content hash.
TEST(BucketBandsTest, CopiesAreTheSameContentHashInTheCopiesSection) {
  TempDir dir;
  const std::string first = dir / "0.bands", second = dir / "1.bands";
  const Banding banding{.bands = 1, .rows = 4};
  // Documents 0 and 2 of shard 0 and document 1 of shard 1 are copies (content 10).
  testing::WriteFile(first, BandFile({{5, 0}, {5, 1}, {5, 2}}, {10, 11, 10}));
  testing::WriteFile(second, BandFile({{5, 0}, {5, 1}}, {12, 10}));
  Result<BucketOutput> out = BucketBands(
      {{.path = first, .shard = 0, .docs = 3}, {.path = second, .shard = 1, .docs = 2}}, banding, 7, {0, 1}, 0);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const uint64_t b0 = uint64_t{1} << 40;  // shard 1's document 0
  EXPECT_EQ(out->pairs, (std::vector<BucketPair>{
                            {.a = 0, .b = 1, .band = 0}, {.a = 0, .b = b0, .band = 0}, {.a = 1, .b = b0, .band = 0}}));
}

}  // namespace
}  // namespace neardup
