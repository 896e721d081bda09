// The layout of the tree is the architecture (README, "Where things are"), and
// these tests keep it so:
// - A wing includes its own headers, those of the wings below it and the
//   public headers ("neardup/..."), never a wing above it. The order, bottom
//   to top, is kWings; a folder of src/ that is not in it is an error, so a
//   new wing must be given its place.
// - A wing holds at most 15 concepts (a .h/.cc pair counts once), and the
//   front door, include/neardup/, at most 16 headers.
// - A public header includes only public headers (one exception, named
//   below), so that include/ alone is enough to use them.
// Every violation is printed, one per line: "src/sign/sign.h: scan/run.h".
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

namespace fs = std::filesystem;

// Bottom to top.
constexpr std::string_view kWings[] = {"base",   "walk",  "text", "sign",        "lsh",   "verify",
                                       "report", "index", "scan", "distributed", "write", "cli"};
constexpr size_t kMaxConceptsPerWing = 15;
constexpr size_t kMaxPublicHeaders = 16;

const fs::path kSource = fs::path(::neardup::testing::SourceDir());

// The wing's place in kWings, or -1.
int Rank(std::string_view wing) {
  const auto* at = std::find(std::begin(kWings), std::end(kWings), wing);
  return at == std::end(kWings) ? -1 : static_cast<int>(at - std::begin(kWings));
}

bool IsSource(const fs::path& path) { return path.extension() == ".h" || path.extension() == ".cc"; }

// The names in every `#include "..."` of the file.
std::vector<std::string> QuotedIncludes(const fs::path& path) {
  std::vector<std::string> names;
  for (const std::string& line : testing::Lines(testing::ReadFile(path.string()))) {
    const size_t at = line.find("#include \"");
    if (at == std::string::npos || line.find_first_not_of(' ') != at) continue;
    const size_t start = at + 10;
    names.push_back(line.substr(start, line.find('"', start) - start));
  }
  return names;
}

std::vector<fs::path> SortedFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && IsSource(entry.path())) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string Print(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text.append("\n  ").append(line);
  return text;
}

TEST(LayoutTest, EveryFolderOfSrcIsAWing) {
  std::vector<std::string> unknown;
  for (const auto& entry : fs::directory_iterator(kSource / "src")) {
    if (entry.is_directory() && Rank(entry.path().filename().string()) < 0) {
      unknown.push_back("src/" + entry.path().filename().string());
    }
  }
  EXPECT_TRUE(unknown.empty()) << "not in the wing order of tests/base/layout_test.cc:" << Print(unknown);
}

TEST(LayoutTest, AWingIncludesOnlyItselfTheWingsBelowAndPublicHeaders) {
  std::vector<std::string> violations;
  size_t checked = 0;
  for (const std::string_view wing : kWings) {
    const int rank = Rank(wing);
    for (const fs::path& file : SortedFiles(kSource / "src" / wing)) {
      const std::string where = "src/" + std::string(wing) + "/" + file.filename().string();
      for (const std::string& header : QuotedIncludes(file)) {
        ++checked;
        if (header.starts_with("neardup/")) continue;
        const size_t slash = header.find('/');
        const int theirs = slash == std::string::npos ? -1 : Rank(std::string_view(header).substr(0, slash));
        if (theirs < 0) {
          violations.push_back(where + ": " + header + " (not in a wing)");
        } else if (theirs > rank) {
          violations.push_back(where + ": " + header + " (a wing above " + std::string(wing) + ")");
        }
      }
    }
  }
  EXPECT_GE(checked, 100u);  // the sources were found and read
  EXPECT_TRUE(violations.empty()) << violations.size() << " include(s) against the wing order:" << Print(violations);
}

TEST(LayoutTest, NoWingHoldsMoreThanFifteenConcepts) {
  std::vector<std::string> crowded;
  for (const std::string_view wing : kWings) {
    std::set<std::string> concepts;  // "walk" for walk.h and walk.cc
    for (const fs::path& file : SortedFiles(kSource / "src" / wing)) concepts.insert(file.stem().string());
    if (concepts.size() > kMaxConceptsPerWing) {
      crowded.push_back("src/" + std::string(wing) + ": " + std::to_string(concepts.size()) + " concepts");
    }
  }
  EXPECT_TRUE(crowded.empty()) << "at most " << kMaxConceptsPerWing << " a wing:" << Print(crowded);
}

TEST(LayoutTest, TheFrontDoorHoldsAtMostSixteenHeaders) {
  std::vector<std::string> headers;
  for (const fs::path& file : SortedFiles(kSource / "include" / "neardup")) headers.push_back(file.filename().string());
  EXPECT_GE(headers.size(), 1u);
  EXPECT_LE(headers.size(), kMaxPublicHeaders) << Print(headers);
}

TEST(LayoutTest, PublicHeadersIncludeOnlyPublicHeaders) {
  std::vector<std::string> violations;
  for (const fs::path& file : SortedFiles(kSource / "include" / "neardup")) {
    const std::string name = file.filename().string();
    for (const std::string& header : QuotedIncludes(file)) {
      if (!header.starts_with("neardup/")) violations.push_back("include/neardup/" + name + ": " + header);
    }
  }
  EXPECT_TRUE(violations.empty()) << "a core internal in a public header:" << Print(violations);
}

}  // namespace
}  // namespace neardup
