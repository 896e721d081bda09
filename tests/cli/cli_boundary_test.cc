// The front end (src/cli/) sees the core library only through its public
// headers: every quoted #include in src/cli/ names "cli/..." (the front end's
// own headers) or "neardup/..." (include/neardup/), never a core internal such
// as "hash.h" or "ascii.h". (The build enforces the rest: neardup_cli has no
// public include of src/, and CLI11 and spdlog are private to it.)
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

TEST(CliBoundaryTest, FrontEndIncludesOnlyItsOwnAndPublicHeaders) {
  const std::filesystem::path cli = std::filesystem::path(::neardup::testing::SourceDir()) / "src" / "cli";
  std::vector<std::string> bad;
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(cli)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".h") && !name.ends_with(".cc")) continue;
    ++files;
    for (const std::string& line : testing::Lines(testing::ReadFile(entry.path().string()))) {
      const size_t at = line.find("#include \"");
      if (at == std::string::npos) continue;
      const std::string header = line.substr(at + 10, line.find('"', at + 10) - (at + 10));
      if (!header.starts_with("cli/") && !header.starts_with("neardup/")) bad.push_back(name + ": " + header);
    }
  }
  EXPECT_GE(files, 10u);  // the directory was found and read
  EXPECT_TRUE(bad.empty()) << ::testing::PrintToString(bad);
}

}  // namespace
}  // namespace neardup
