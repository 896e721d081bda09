// The shard bitmaps file (format/shard_bitmaps.h): what is written is read
// back by id, in any order and across blocks of offsets, and every kind of
// damage is refused with an error naming the file and what is wrong.
#include "distributed/format/shard_bitmaps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "base/coding.h"
#include "base/hash.h"
#include "sign/set_bitmap_codec.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

constexpr uint64_t kFingerprint = 0x5eed5eed;

// Document k's bitmap: none for every seventh, else one of about 20 + k % 300
// shingles.
SetBitmap BitmapOf(uint64_t k) {
  if (k % 7 == 3) return SetBitmap();
  std::vector<uint64_t> hashes;
  for (uint64_t i = 0; i < 20 + k % 300; ++i) hashes.push_back(Mix64(k * 1000003 + i));
  SetBitmapBuilder b;
  b.Begin(hashes.size() * 6);
  b.Add(hashes);
  return b.Finish(hashes.size() * 6);
}

void ExpectSame(const SetBitmap& got, const SetBitmap& want, uint64_t k) {
  EXPECT_EQ(got.words, want.words) << "document " << k;
  EXPECT_EQ(got.level, want.level) << "document " << k;
  EXPECT_EQ(got.most, want.most) << "document " << k;
  EXPECT_EQ(got.least, want.least) << "document " << k;
  EXPECT_EQ(got.bits, want.bits) << "document " << k;
}

// Two blocks of offsets and a part of a third.
constexpr uint64_t kDocs = 2 * kBitmapOffsetsPerBlock + 100;

class ShardBitmapsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_ / "0.bitmaps";
    ShardBitmapsWriter w;
    ASSERT_TRUE(w.Open(path_, kFingerprint).ok());
    for (uint64_t k = 0; k < kDocs; ++k) w.Add(BitmapOf(k));
    EXPECT_EQ(w.documents(), kDocs);
    ASSERT_TRUE(w.Finish().ok());
  }

  // Overwrites the file's byte at `at` with its complement.
  void Flip(uint64_t at) {
    std::string bytes = ReadFile(path_);
    ASSERT_LT(at, bytes.size());
    bytes[at] = static_cast<char>(~bytes[at]);
    WriteFile(path_, bytes);
  }
  uint64_t HeaderField(size_t at) const { return DecodeFixed64(ReadFile(path_).data() + at); }
  // Where record k starts (the offset table's entry k, read raw).
  uint64_t RecordAt(uint64_t k) const { return DecodeFixed64(ReadFile(path_).data() + HeaderField(32) + 8 * k); }

  // Expects `status` to be a failure naming the file and `what`.
  void ExpectRefused(const Status& status, const std::string& what) const {
    EXPECT_FALSE(status.ok());
    EXPECT_NE(status.message().find(path_), std::string::npos) << status.message();
    EXPECT_NE(status.message().find(what), std::string::npos) << status.message();
    EXPECT_EQ(status.message().find('\n'), std::string::npos) << status.message();
  }

  TempDir dir_;
  std::string path_;
};

TEST_F(ShardBitmapsTest, RoundTripByIdInAnyOrder) {
  Result<ShardBitmapsReader> r = ShardBitmapsReader::Open(path_, kFingerprint, kDocs);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // Backwards, then across each block boundary, then the last document.
  std::vector<uint64_t> order;
  for (uint64_t k = kDocs; k-- > 0;) order.push_back(k);
  for (uint64_t k :
       {kBitmapOffsetsPerBlock - 1, kBitmapOffsetsPerBlock, 2 * kBitmapOffsetsPerBlock - 1, uint64_t{0}, kDocs - 1}) {
    order.push_back(k);
  }
  for (uint64_t k : order) {
    Result<SetBitmap> got = r->Read(k);
    ASSERT_TRUE(got.ok()) << got.status().message();
    ExpectSame(*got, BitmapOf(k), k);
  }
  EXPECT_TRUE(r->Read(3)->empty());
  EXPECT_FALSE(r->Read(4)->empty());
}

TEST_F(ShardBitmapsTest, TheFileIsItsHeaderRecordsOffsetsAndBlockSums) {
  uint64_t records = 0;
  for (uint64_t k = 0; k < kDocs; ++k) records += SetBitmapBytes(BitmapOf(k)) + 8;
  const uint64_t table = kBitmapsHeaderSize + records;
  EXPECT_EQ(HeaderField(32), table);
  EXPECT_EQ(std::filesystem::file_size(path_), table + 8 * (kDocs + 1) + 8 * 3);
  EXPECT_EQ(BitmapsFileSize(kDocs, table), table + 8 * (kDocs + 1) + 8 * 3);
  EXPECT_EQ(BitmapsFileSize(uint64_t{1} << 62, table), 0u);
}

TEST_F(ShardBitmapsTest, AnEmptyShardHasOnlyItsHeaderAndOneOffset) {
  const std::string path = dir_ / "1.bitmaps";
  ShardBitmapsWriter w;
  ASSERT_TRUE(w.Open(path, kFingerprint).ok());
  ASSERT_TRUE(w.Finish().ok());
  EXPECT_EQ(std::filesystem::file_size(path), kBitmapsHeaderSize + 8 + 8);
  EXPECT_TRUE(ShardBitmapsReader::Open(path, kFingerprint, 0).ok());
}

TEST_F(ShardBitmapsTest, ADamagedHeaderIsRefused) {
  Flip(20);  // the fingerprint
  ExpectRefused(ShardBitmapsReader::Open(path_, kFingerprint, kDocs).status(), "the header's checksum");
}

TEST_F(ShardBitmapsTest, AnotherMagicOrVersionIsRefused) {
  Flip(0);
  ExpectRefused(ShardBitmapsReader::Open(path_, kFingerprint, kDocs).status(), "magic");
  Flip(0);
  Flip(8);
  ExpectRefused(ShardBitmapsReader::Open(path_, kFingerprint, kDocs).status(), "version");
}

TEST_F(ShardBitmapsTest, ATruncatedFileIsRefused) {
  std::filesystem::resize_file(path_, std::filesystem::file_size(path_) - 8);
  ExpectRefused(ShardBitmapsReader::Open(path_, kFingerprint, kDocs).status(), "its size does not match");
  std::filesystem::resize_file(path_, 20);
  ExpectRefused(ShardBitmapsReader::Open(path_, kFingerprint, kDocs).status(), "truncated");
}

TEST_F(ShardBitmapsTest, AnotherShardOrRunIsRefused) {
  ExpectRefused(ShardBitmapsReader::Open(path_, kFingerprint, kDocs + 1).status(), "another document count");
  ExpectRefused(ShardBitmapsReader::Open(path_, kFingerprint + 1, kDocs).status(), "another run");
}

TEST_F(ShardBitmapsTest, ADamagedRecordIsRefusedAndTheOthersStillRead) {
  Flip(RecordAt(11) + 5);  // a byte of document 11's `most`
  Result<ShardBitmapsReader> r = ShardBitmapsReader::Open(path_, kFingerprint, kDocs);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectRefused(r->Read(11).status(), "the checksum of document 11's record");
  ASSERT_TRUE(r->Read(12).ok());
  ExpectSame(*r->Read(12), BitmapOf(12), 12);
}

TEST_F(ShardBitmapsTest, ADamagedOffsetIsRefused) {
  Flip(HeaderField(32) + 8 * (kBitmapOffsetsPerBlock + 5));  // in the second block
  Result<ShardBitmapsReader> r = ShardBitmapsReader::Open(path_, kFingerprint, kDocs);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->Read(5).ok());
  ExpectRefused(r->Read(kBitmapOffsetsPerBlock + 70).status(), "the checksum of offset block 1");
  EXPECT_TRUE(r->Read(2 * kBitmapOffsetsPerBlock + 1).ok());
}

TEST_F(ShardBitmapsTest, ADamagedBlockChecksumIsRefused) {
  Flip(std::filesystem::file_size(path_) - 1);  // the last block's checksum
  Result<ShardBitmapsReader> r = ShardBitmapsReader::Open(path_, kFingerprint, kDocs);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectRefused(r->Read(kDocs - 1).status(), "the checksum of offset block 2");
}

// Offsets that each block's checksum vouches for, but that point at another
// record: its checksum covers its id, so the record is refused.
TEST_F(ShardBitmapsTest, AnOffsetToAnotherRecordIsRefused) {
  std::string bytes = ReadFile(path_);
  const uint64_t table = HeaderField(32);
  // Entries 1 and 2 moved on by one: document 1 reads document 2's record,
  // document 0 its own and document 1's.
  std::string entries;
  PutFixed64(&entries, DecodeFixed64(bytes.data() + table + 16));
  PutFixed64(&entries, DecodeFixed64(bytes.data() + table + 24));
  bytes.replace(table + 8, 16, entries);
  const uint64_t sums = table + 8 * (kDocs + 1);
  std::string sum;
  PutFixed64(&sum, Checksum64(std::string_view(bytes).substr(table, 8 * kBitmapOffsetsPerBlock)));
  bytes.replace(sums, 8, sum);
  WriteFile(path_, bytes);
  Result<ShardBitmapsReader> r = ShardBitmapsReader::Open(path_, kFingerprint, kDocs);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectRefused(r->Read(1).status(), "the checksum of document 1's record");
  ExpectRefused(r->Read(0).status(), "the checksum of document 0's record");
}

// A record whose checksum is right but whose fields no bitmap gives: its
// field is named.
TEST(ShardBitmapsRecordTest, FieldsThatNoBitmapGivesAreRefused) {
  std::string record;
  PutBitmapRecord(&record, 4, BitmapOf(4));
  ASSERT_TRUE(DecodeBitmapRecord(record, 4).ok());
  EXPECT_NE(DecodeBitmapRecord(record, 5).status().message().find("checksum"), std::string::npos);
  std::string bad;
  PutFixed8(&bad, 3);  // a level below the least
  Hasher64 h;
  h.Reset(0);
  std::string id;
  PutFixed64(&id, 4);
  h.Update(id.data(), id.size());
  h.Update(bad.data(), bad.size());
  PutFixed64(&bad, h.Digest());
  const Status s = DecodeBitmapRecord(bad, 4).status();
  EXPECT_EQ(s.code(), Status::Code::kCorrupt);
  EXPECT_NE(s.message().find("a bitmap's level"), std::string::npos) << s.message();
  EXPECT_FALSE(DecodeBitmapRecord("12345678", 4).ok());
}

}  // namespace
}  // namespace neardup
