// The layout of the tree is the architecture (README, "Where things are"), and
// these tests keep it so:
// - A wing includes its own headers and those of the wings below it, never a
//   wing above it. The order, bottom to top, is kWings; a folder of src/ that
//   is not in it is an error, so a new wing must be given its place. A
//   subfolder belongs to its wing (src/distributed/format/ is distributed).
// - Each public header ("neardup/...") has a home wing, the wing whose code
//   implements it (kHomes), and the order holds for it as for the wing's own
//   headers: a wing includes a public header only if its home is at or below
//   the wing, and so does a public header.
// - index/, write/ and distributed/ know none of one another (kApart): none
//   includes a header of another, nor a public header homed in another.
// - A folder holds at most 15 concepts (a .h/.cc pair counts once), and the
//   front door, include/neardup/, at most 16 headers.
// - A public header includes only public headers, so that include/ alone is
//   enough to use them.
// Every violation is printed, one per line: "src/sign/sign.h: scan/run.h".
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
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
// The wings that must not know each other.
constexpr std::string_view kApart[] = {"index", "write", "distributed"};
constexpr size_t kMaxConceptsPerWing = 15;
constexpr size_t kMaxPublicHeaders = 16;

const fs::path kSource = fs::path(::neardup::testing::SourceDir());

// Each public header and its home wing, the wing whose code implements it.
struct Home {
  std::string_view header;
  std::string_view wing;
};
constexpr Home kHomes[] = {
    {"doc_id.h", "base"},   {"option_table.h", "base"}, {"options.h", "base"},        {"quote.h", "base"},
    {"status.h", "base"},   {"version.h", "base"},      {"output_target.h", "walk"},  {"word_diff.h", "text"},
    {"report.h", "report"}, {"review.h", "report"},     {"sorted_pairs.h", "report"}, {"index.h", "index"},
    {"explain.h", "scan"},  {"scan.h", "scan"},         {"stages.h", "distributed"},  {"writers.h", "write"},
};

// An include the order forbids that stays, with the reason.
struct Exception {
  std::string_view file;    // "include/neardup/report.h"
  std::string_view header;  // as included: "neardup/index.h"
  std::string_view reason;
};
constexpr Exception kExceptions[] = {
    {"include/neardup/report.h", "neardup/index.h",
     "a Report carries the --new job it ran for (NewJob), a value the index defines"},
};

// The wing's place in kWings, or -1.
int Rank(std::string_view wing) {
  const auto* at = std::find(std::begin(kWings), std::end(kWings), wing);
  return at == std::end(kWings) ? -1 : static_cast<int>(at - std::begin(kWings));
}

// The home wing of the public header `name` ("scan.h"), or "".
std::string_view HomeOf(std::string_view name) {
  for (const Home& home : kHomes) {
    if (home.header == name) return home.wing;
  }
  return {};
}

// The wing of an included header: its first folder ("sign/sign.h": sign), or
// the home of a public header ("neardup/scan.h": scan); "" when neither.
std::string_view WingOf(std::string_view header) {
  constexpr std::string_view kPublic = "neardup/";
  if (header.starts_with(kPublic)) return HomeOf(header.substr(kPublic.size()));
  const size_t slash = header.find('/');
  return slash == std::string_view::npos ? std::string_view() : header.substr(0, slash);
}

bool Apart(std::string_view wing) { return std::find(std::begin(kApart), std::end(kApart), wing) != std::end(kApart); }

bool Excepted(std::string_view file, std::string_view header) {
  for (const Exception& e : kExceptions) {
    if (e.file == file && e.header == header) return true;
  }
  return false;
}

// Why `file` of wing `wing` may not include `header`, or "" when it may.
std::string Against(std::string_view file, std::string_view wing, const std::string& header) {
  if (Excepted(file, header)) return {};
  const std::string_view theirs = WingOf(header);
  if (Rank(theirs) < 0) return header.starts_with("neardup/") ? "a public header with no home wing" : "not in a wing";
  if (Rank(theirs) > Rank(wing)) return "of " + std::string(theirs) + ", a wing above " + std::string(wing);
  if (theirs != wing && Apart(theirs) && Apart(wing)) {
    return "of " + std::string(theirs) + ", which " + std::string(wing) + " must not know";
  }
  return {};
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

// The sources in `dir` and its subfolders, sorted.
std::vector<fs::path> SortedFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && IsSource(entry.path())) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The path of `file` from the top of the source tree ("src/sign/sign.h").
std::string FromTop(const fs::path& file) { return file.lexically_relative(kSource).generic_string(); }

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
    for (const fs::path& file : SortedFiles(kSource / "src" / wing)) {
      const std::string where = FromTop(file);
      for (const std::string& header : QuotedIncludes(file)) {
        ++checked;
        const std::string why = Against(where, wing, header);
        if (!why.empty()) violations.push_back(where + ": " + header + " (" + why + ")");
      }
    }
  }
  EXPECT_GE(checked, 100u);  // the sources were found and read
  EXPECT_TRUE(violations.empty()) << violations.size() << " include(s) against the wing order:" << Print(violations);
}

TEST(LayoutTest, EveryPublicHeaderHasAHomeWing) {
  std::vector<std::string> homeless;
  std::set<std::string> present;
  for (const fs::path& file : SortedFiles(kSource / "include" / "neardup")) {
    const std::string name = file.filename().string();
    present.insert(name);
    if (Rank(HomeOf(name)) < 0) homeless.push_back("include/neardup/" + name + " (not in kHomes)");
  }
  for (const Home& home : kHomes) {
    if (present.count(std::string(home.header)) == 0)
      homeless.push_back(std::string(home.header) + " (no such header)");
  }
  EXPECT_TRUE(homeless.empty()) << "kHomes of tests/base/layout_test.cc:" << Print(homeless);
}

TEST(LayoutTest, NoWingHoldsMoreThanFifteenConcepts) {
  std::map<std::string, std::set<std::string>> concepts;  // "src/walk": "walk" for walk.h and walk.cc
  for (const std::string_view wing : kWings) {
    for (const fs::path& file : SortedFiles(kSource / "src" / wing)) {
      concepts[FromTop(file.parent_path())].insert(file.stem().string());
    }
  }
  std::vector<std::string> crowded;
  for (const auto& [folder, stems] : concepts) {
    if (stems.size() > kMaxConceptsPerWing)
      crowded.push_back(folder + ": " + std::to_string(stems.size()) + " concepts");
  }
  EXPECT_GE(concepts.size(), std::size(kWings));
  EXPECT_TRUE(crowded.empty()) << "at most " << kMaxConceptsPerWing << " a folder:" << Print(crowded);
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

TEST(LayoutTest, PublicHeadersKeepTheWingOrderOfTheirHomes) {
  std::vector<std::string> violations;
  for (const fs::path& file : SortedFiles(kSource / "include" / "neardup")) {
    const std::string where = FromTop(file);
    const std::string_view home = HomeOf(file.filename().string());
    if (home.empty()) continue;  // EveryPublicHeaderHasAHomeWing says so
    for (const std::string& header : QuotedIncludes(file)) {
      const std::string why = Against(where, home, header);
      if (!why.empty()) violations.push_back(where + " (home " + std::string(home) + "): " + header + " (" + why + ")");
    }
  }
  EXPECT_TRUE(violations.empty()) << violations.size() << " include(s) against the wing order:" << Print(violations);
}

}  // namespace
}  // namespace neardup
