// The band file format (format/band_file.h): its size.
#include "distributed/format/band_file.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

namespace neardup {
namespace {

TEST(BandsFileTest, SizeIsNothingPast64Bits) {
  // 12 bytes an entry, 16 a document: 16 + 12*bands bytes a document;
  // 16 bytes a band a run (its count and checksum).
  EXPECT_EQ(BandsFileSize(16, 10, 12, 3),
            std::optional<uint64_t>(kBandsHeaderSize + 16 * 10 * 12 + 12 * 16 + 3 * 16 * 16 + 16));
  EXPECT_EQ(BandsFileSize(0, 10, 10, 1), std::nullopt);
  EXPECT_EQ(BandsFileSize(16, 10, 10, 0), std::nullopt);
  EXPECT_EQ(BandsFileSize(16, uint64_t{1} << 60, 1, 1), std::nullopt);
  EXPECT_EQ(BandsFileSize(uint64_t{1} << 40, 1, 1, 1), std::nullopt);
  EXPECT_EQ(BandsFileSize(16, 1, uint64_t{1} << 60, 1), std::nullopt);
  EXPECT_EQ(BandsFileSize(16, 1, 1, uint64_t{1} << 40), std::nullopt);
}

}  // namespace
}  // namespace neardup
