#include "base/ascii.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

namespace neardup {
namespace {

// Against std::count, at every length around the 16-byte blocks and the
// 255 rounds a sum of bytes holds (4,080 bytes), at every offset of a block.
TEST(AsciiTest, CountByteCountsAsStdCountDoes) {
  std::mt19937_64 rng(11);
  std::string text(9000, 'a');
  for (char& c : text) c = "ab\n\n\xff"[rng() % 5];
  for (size_t from = 0; from < 17; ++from) {
    for (const size_t n : {0, 1, 15, 16, 17, 31, 255, 4079, 4080, 4081, 4096, 8160, 8161, 8900}) {
      const char* p = text.data() + from;
      EXPECT_EQ(CountByte(p, n, '\n'), static_cast<uint64_t>(std::count(p, p + n, '\n'))) << from << " " << n;
      EXPECT_EQ(CountByte(p, n, '\xff'), static_cast<uint64_t>(std::count(p, p + n, '\xff'))) << from << " " << n;
    }
  }
}

// Every byte a match, past the rounds one byte lane can count.
TEST(AsciiTest, CountByteOfAllMatches) {
  const std::string lines(100000, '\n');
  EXPECT_EQ(CountByte(lines.data(), lines.size(), '\n'), 100000u);
  EXPECT_EQ(CountByte(lines.data(), lines.size(), 'x'), 0u);
}

TEST(AsciiTest, AsciiPrefixStopsAtTheFirstHighByte) {
  std::string text(100, 'x');
  for (const size_t at : {0, 7, 15, 16, 17, 63, 99}) {
    std::string t = text;
    t[at] = '\xc3';
    EXPECT_EQ(AsciiPrefix(reinterpret_cast<const unsigned char*>(t.data()), t.size()), at);
  }
  EXPECT_EQ(AsciiPrefix(reinterpret_cast<const unsigned char*>(text.data()), text.size()), 100u);
}

}  // namespace
}  // namespace neardup
