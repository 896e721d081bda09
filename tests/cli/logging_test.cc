// CapLine (cli/logging.h): the cap on every line neardup writes on stderr.
#include "cli/logging.h"

#include <gtest/gtest.h>

#include <string>

namespace neardup::cli {
namespace {

TEST(CapLineTest, ShortLinesAreKept) {
  EXPECT_EQ(CapLine("neardup: a: b", 400), "neardup: a: b");
  EXPECT_EQ(CapLine(std::string(400, 'x'), 400), std::string(400, 'x'));
}

TEST(CapLineTest, LongLinesKeepTheirStartAndEnd) {
  const std::string line = "neardup: " + std::string(100000, 'x') + ": run again in an empty work folder";
  const std::string capped = CapLine(line, 400);
  EXPECT_EQ(capped.size(), 400u);
  EXPECT_TRUE(capped.starts_with("neardup: xxx")) << capped;
  EXPECT_TRUE(capped.ends_with("xx: run again in an empty work folder")) << capped;
  EXPECT_NE(capped.find("x ... x"), std::string::npos);
}

TEST(CapLineTest, CutsBetweenUtf8Sequences) {
  std::string line;
  for (int i = 0; i < 300; ++i) line += "\xC3\xA9";  // é
  const std::string capped = CapLine(line, 101);
  EXPECT_LE(capped.size(), 101u);
  const size_t cut = capped.find(" ... ");
  ASSERT_NE(cut, std::string::npos);
  EXPECT_EQ(cut % 2, 0u);
  EXPECT_EQ((capped.size() - cut - 5) % 2, 0u);
}

}  // namespace
}  // namespace neardup::cli
