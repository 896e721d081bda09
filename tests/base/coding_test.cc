#include "base/coding.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace neardup {
namespace {

using testing::TempDir;
using testing::WriteFile;

// A little record: u8, u32, u64, a double, a text, then the checksum.
std::string Record() {
  std::string out;
  PutFixed8(&out, 0xAB);
  PutFixed32(&out, 0x01020304);
  PutFixed64(&out, 0x1122334455667788ULL);
  PutDouble(&out, 0.625);
  PutText(&out, "hello");
  PutChecksum(&out);
  return out;
}
constexpr size_t kRecordBody = 1 + 4 + 8 + 8 + 8 + 5;

TEST(CodingTest, FixedWidthValuesAreLittleEndian) {
  std::string out;
  PutFixed16(&out, 0x0102);
  PutFixed32(&out, 0x03040506);
  PutFixed64(&out, 0x0708090A0B0C0D0EULL);
  EXPECT_EQ(out, std::string("\x02\x01\x06\x05\x04\x03\x0E\x0D\x0C\x0B\x0A\x09\x08\x07", 14));
  EXPECT_EQ(DecodeFixed16(out.data()), 0x0102);
  EXPECT_EQ(DecodeFixed32(out.data() + 2), 0x03040506u);
  EXPECT_EQ(DecodeFixed64(out.data() + 6), 0x0708090A0B0C0D0EULL);
}

TEST(CodingTest, RecordRoundTrips) {
  const std::string bytes = Record();
  ASSERT_EQ(bytes.size(), kRecordBody + 8);
  EXPECT_TRUE(ChecksumMatches(bytes));
  Decoder r(std::string_view(bytes).substr(0, kRecordBody));
  EXPECT_EQ(r.U8("a"), 0xAB);
  EXPECT_EQ(r.U32("b"), 0x01020304u);
  EXPECT_EQ(r.U64("c"), 0x1122334455667788ULL);
  EXPECT_EQ(r.Double("d"), 0.625);
  EXPECT_EQ(r.Text("e"), "hello");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.left(), 0u);
}

TEST(CodingTest, ChecksumIsXxh3OfWhatPrecedesIt) {
  const std::string bytes = Record();
  EXPECT_EQ(DecodeFixed64(bytes.data() + kRecordBody), Checksum64(std::string_view(bytes).substr(0, kRecordBody)));
  EXPECT_EQ(Checksum64("abc"), HashBytes("abc", 3, 0));
}

TEST(CodingTest, ChecksumMismatchAtEveryBitIsSeen) {
  const std::string bytes = Record();
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(damaged[i] ^ (1 << bit));
      EXPECT_FALSE(ChecksumMatches(damaged)) << "byte " << i << " bit " << bit;
    }
  }
  EXPECT_FALSE(ChecksumMatches(std::string_view(bytes).substr(0, 7)));
  EXPECT_FALSE(ChecksumMatches(std::string_view(bytes).substr(1)));
}

// Reads the record's fields from `in`; the reader's status at the end.
Status ReadRecord(Decoder& r) {
  r.U8("the kind");
  r.U32("the count");
  r.U64("the band count");
  r.Double("the estimate");
  r.Text("the name");
  return r.status();
}

TEST(CodingTest, TruncationAtEachFieldNamesTheFieldAndOffset) {
  const std::string bytes = Record();
  struct Case {
    size_t size;
    const char* message;
  };
  const Case cases[] = {
      {0, "truncated at offset 100 reading the kind: need 1 bytes, 0 left"},
      {3, "truncated at offset 101 reading the count: need 4 bytes, 2 left"},
      {5, "truncated at offset 105 reading the band count: need 8 bytes, 0 left"},
      {20, "truncated at offset 113 reading the estimate: need 8 bytes, 7 left"},
      {24, "truncated at offset 121 reading the name: need 8 bytes, 3 left"},
      {33, "truncated at offset 129 reading the name: need 5 bytes, 4 left"},
  };
  for (const Case& c : cases) {
    Decoder r(std::string_view(bytes).substr(0, c.size), 100);
    const Status s = ReadRecord(r);
    EXPECT_EQ(s.code(), Status::Code::kCorrupt) << c.size;
    EXPECT_EQ(s.message(), c.message) << c.size;
  }
  Decoder whole(std::string_view(bytes).substr(0, kRecordBody), 100);
  EXPECT_TRUE(ReadRecord(whole).ok());
}

// Arrays of u64 are the bytes of their values one by one, and read back
// whole; a short array fails the reader naming the field.
TEST(CodingTest, U64ArraysAreTheirValuesOneByOne) {
  const std::vector<uint64_t> values = {0x0708090A0B0C0D0EULL, 0, UINT64_MAX, 42};
  std::string whole;
  PutFixed64s(&whole, values);
  std::string one_by_one;
  for (uint64_t v : values) PutFixed64(&one_by_one, v);
  EXPECT_EQ(whole, one_by_one);
  PutFixed64s(&whole, {});
  EXPECT_EQ(whole.size(), 32u);
  std::vector<uint64_t> none;  // data() null: nothing is read, nothing fails
  Decoder empty(whole);
  empty.U64s(none, "no hashes");
  EXPECT_TRUE(empty.ok());
  EXPECT_EQ(empty.left(), 32u);
  std::vector<uint64_t> back(4);
  Decoder r(whole);
  r.U64s(back, "the hashes");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(back, values);
  std::vector<uint64_t> more(5, 7);
  Decoder past(whole);
  past.U64s(more, "the hashes");
  EXPECT_FALSE(past.ok());
  EXPECT_NE(past.status().message().find("the hashes"), std::string::npos);
}

TEST(CodingTest, ReadsAfterAFailureGiveZerosAndKeepTheFirstError) {
  const std::string bytes = Record();
  Decoder r(std::string_view(bytes).substr(0, 3));
  EXPECT_EQ(r.U32("first"), 0u);
  EXPECT_EQ(r.U8("second"), 0);  // a byte is left, but the reader has failed
  EXPECT_NE(r.status().message().find("first"), std::string::npos);
  EXPECT_EQ(r.status().message().find("second"), std::string::npos);
}

TEST(CodingTest, CountRefusesMoreItemsThanTheBytesHold) {
  std::string bytes;
  PutFixed64(&bytes, 3);
  bytes.append(23, 'x');
  Decoder short_reader(bytes);
  EXPECT_EQ(short_reader.Count("the pair count", 8), 0u);
  EXPECT_EQ(short_reader.status().message(), "the pair count 3 at offset 0 cannot fit in the 23 bytes left");
  bytes.push_back('x');
  Decoder enough(bytes);
  EXPECT_EQ(enough.Count("the pair count", 8), 3u);
  EXPECT_TRUE(enough.ok());
}

TEST(CodingTest, FileSourceReadsFieldsAcrossBufferEdgesAndChecksTheSum) {
  TempDir dir;
  const std::string path = dir.path() + "/record";
  const std::string bytes = Record();
  WriteFile(path, bytes);
  for (size_t buffer : {size_t{1}, size_t{3}, size_t{7}, size_t{1} << 20}) {
    FileSource in(path, buffer);
    ASSERT_TRUE(in.Open().ok());
    EXPECT_EQ(in.size(), bytes.size());
    EXPECT_EQ(in.U8("a"), 0xAB);
    EXPECT_EQ(in.U32("b"), 0x01020304u);
    EXPECT_EQ(in.U64("c"), 0x1122334455667788ULL);
    EXPECT_EQ(in.Double("d"), 0.625);
    EXPECT_EQ(in.U64("e"), 5u);
    EXPECT_EQ(in.left(), 5u);
    EXPECT_TRUE(in.ok());
    EXPECT_TRUE(in.ChecksumMatches()) << buffer;
  }
}

TEST(CodingTest, FileSourceFailsPastTheChecksumAndSeesDamage) {
  TempDir dir;
  const std::string path = dir.path() + "/record";
  std::string bytes = Record();
  WriteFile(path, bytes);
  FileSource in(path, 4);
  ASSERT_TRUE(in.Open().ok());
  char body[kRecordBody];
  in.Raw(body, sizeof body, "the body");
  EXPECT_TRUE(in.ok());
  EXPECT_EQ(in.U8("one more"), 0);
  EXPECT_EQ(in.status().message(), "truncated at offset 34 reading one more: need 1 bytes, 0 left");
  EXPECT_TRUE(in.ChecksumMatches());  // the fields' failure is not the checksum's

  bytes[10] = static_cast<char>(bytes[10] ^ 0x20);
  WriteFile(path, bytes);
  FileSource damaged(path, 4);
  ASSERT_TRUE(damaged.Open().ok());
  EXPECT_FALSE(damaged.ChecksumMatches());

  FileSource missing(dir.path() + "/none");
  EXPECT_EQ(missing.Open().code(), Status::Code::kIoError);
}

}  // namespace
}  // namespace neardup
