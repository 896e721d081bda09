// SetBitmap as bytes: what is stored is read back equal, an empty bitmap is
// one byte, and bytes that no bitmap gives are refused with the field named
// (a wrong bitmap could rule out a pair that reaches the threshold).
#include "sign/set_bitmap_codec.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace neardup {
namespace {

SetBitmap Built(size_t hashes, uint64_t bytes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> h(hashes);
  for (auto& x : h) x = rng();
  h.push_back(h[0]);  // a repeat
  SetBitmapBuilder b;
  b.Begin(bytes);
  b.Add(h);
  return b.Finish(bytes);
}

void ExpectSame(const SetBitmap& a, const SetBitmap& b) {
  EXPECT_EQ(a.words, b.words);
  EXPECT_EQ(a.most, b.most);
  EXPECT_EQ(a.least, b.least);
  EXPECT_EQ(a.bits, b.bits);
  EXPECT_EQ(a.level, b.level);
}

TEST(SetBitmapCodecTest, RoundTripsBitmapsOfEverySizeOneAfterAnother) {
  std::vector<SetBitmap> in = {Built(3, 20, 1), SetBitmap(), Built(500, 3000, 2), Built(40000, 300000, 3)};
  std::string bytes;
  size_t expected = 0;
  for (const SetBitmap& b : in) {
    PutSetBitmap(&bytes, b);
    expected += SetBitmapBytes(b);
  }
  ASSERT_EQ(bytes.size(), expected);
  Decoder d(bytes);
  for (const SetBitmap& b : in) ExpectSame(GetSetBitmap(d), b);
  EXPECT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d.left(), 0u);
  // The bound is that of the bitmaps before the trip.
  std::vector<uint64_t> scratch;
  Decoder again(bytes);
  const SetBitmap a = GetSetBitmap(again);
  GetSetBitmap(again);
  const SetBitmap c = GetSetBitmap(again);
  EXPECT_EQ(JaccardBound(a, c, &scratch), JaccardBound(in[0], in[2], &scratch));
}

TEST(SetBitmapCodecTest, AnEmptyBitmapIsOneZeroByte) {
  std::string bytes;
  PutSetBitmap(&bytes, SetBitmap());
  EXPECT_EQ(bytes, std::string(1, '\0'));
  Decoder d(bytes);
  EXPECT_TRUE(GetSetBitmap(d).empty());
  EXPECT_TRUE(d.ok());
}

// Each damage, and the field the error names.
TEST(SetBitmapCodecTest, RefusesBytesNoBitmapGives) {
  std::string good;
  PutSetBitmap(&good, Built(500, 3000, 4));
  struct Case {
    std::string bytes;
    const char* field;
  };
  std::string bad_level = good, truncated = good.substr(0, good.size() - 3), bad_bits = good, bad_least = good;
  bad_level[0] = 40;
  bad_bits[17] ^= 1;     // the low byte of `bits`
  bad_least[16] = 0x7f;  // the high byte of `least`: far above `most`
  for (const Case& c : {Case{bad_level, "level"}, Case{truncated, "words"}, Case{bad_bits, "counts"},
                        Case{bad_least, "counts"}, Case{std::string(), "level"}}) {
    Decoder d(c.bytes);
    const SetBitmap b = GetSetBitmap(d);
    EXPECT_FALSE(d.ok()) << c.field;
    EXPECT_TRUE(b.empty()) << c.field;
    EXPECT_NE(d.status().message().find(c.field), std::string::npos) << d.status().message();
  }
}

}  // namespace
}  // namespace neardup
