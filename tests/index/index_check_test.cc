// `index info` and `index check` (index_check.h): a file that is no index
// is an error, not an empty report.
#include "index/index_check.h"

#include <gtest/gtest.h>

#include <string>

#include "test_util.h"

namespace neardup {
namespace {

using testing::TempDir;
using testing::WriteFile;

TEST(IndexCheckTest, InfoAndCheckOfAFileThatIsNoIndexFail) {
  TempDir dir;
  WriteFile(dir / "t", "hello");
  EXPECT_FALSE(ReadIndexInfo(dir / "t", 3).ok());
  EXPECT_FALSE(CheckIndex(dir / "t").ok());
  EXPECT_FALSE(CheckIndex(dir / "missing").ok());
}

}  // namespace
}  // namespace neardup
