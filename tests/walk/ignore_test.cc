#include "walk/ignore.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <vector>

namespace neardup {
namespace {

TEST(IgnoreFileTest, CommentsBlanksAndTrailingSpacesAreSkipped) {
  const IgnoreFile f = IgnoreFile::Parse("# a comment\n\n   \n*.log   \r\n\\#hash\n", "");
  EXPECT_EQ(f.Match("a.log", false), std::optional<bool>(true));
  EXPECT_EQ(f.Match("#hash", false), std::optional<bool>(true));
  EXPECT_EQ(f.Match("# a comment", false), std::nullopt);
  EXPECT_TRUE(IgnoreFile::Parse("# only\n\n", "").empty());
}

TEST(IgnoreFileTest, TheLastMatchingPatternDecidesAndBangReincludes) {
  const IgnoreFile f = IgnoreFile::Parse("*.txt\n!keep*.txt\n\\!bang\n", "");
  EXPECT_EQ(f.Match("a.txt", false), std::optional<bool>(true));
  EXPECT_EQ(f.Match("d/keep1.txt", false), std::optional<bool>(false));
  EXPECT_EQ(f.Match("!bang", false), std::optional<bool>(true));
  EXPECT_EQ(f.Match("a.md", false), std::nullopt);
}

TEST(IgnoreFileTest, SlashesAnchorAndATrailingSlashMeansADirectory) {
  const IgnoreFile f = IgnoreFile::Parse("/top\nbuild/\ndoc/*.md\n**/gen\na/**\n", "");
  EXPECT_EQ(f.Match("top", false), std::optional<bool>(true));
  EXPECT_EQ(f.Match("sub/top", false), std::nullopt);
  EXPECT_EQ(f.Match("x/build", true), std::optional<bool>(true));
  EXPECT_EQ(f.Match("x/build", false), std::nullopt);
  EXPECT_EQ(f.Match("doc/a.md", false), std::optional<bool>(true));
  EXPECT_EQ(f.Match("x/doc/a.md", false), std::nullopt);
  EXPECT_EQ(f.Match("doc/x/a.md", false), std::nullopt);
  EXPECT_EQ(f.Match("gen", true), std::optional<bool>(true));
  EXPECT_EQ(f.Match("p/q/gen", false), std::optional<bool>(true));
  EXPECT_EQ(f.Match("a/b/c", false), std::optional<bool>(true));
  EXPECT_EQ(f.Match("a", true), std::nullopt);
}

TEST(IgnoreFileTest, PatternsAreRelativeToTheFolderHoldingTheFile) {
  const IgnoreFile f = IgnoreFile::Parse("/x.txt\n*.log\n", "sub/dir");
  EXPECT_EQ(f.Match("sub/dir/x.txt", false), std::optional<bool>(true));
  EXPECT_EQ(f.Match("sub/dir/deep/x.txt", false), std::nullopt);
  EXPECT_EQ(f.Match("sub/dir/deep/a.log", false), std::optional<bool>(true));
  EXPECT_EQ(f.Match("sub/a.log", false), std::nullopt);
  EXPECT_EQ(f.Match("sub/dirt/a.log", false), std::nullopt);
}

TEST(IgnoreRulesTest, DotIgnoreDecidesBeforeGitignoreAndDeeperBeforeShallower) {
  auto root = std::make_shared<const IgnoreRules>(nullptr, IgnoreFile::Parse("!*.md\n", ""),
                                                  IgnoreFile::Parse("*.md\n*.txt\n", ""));
  const IgnoreRules sub(root, IgnoreFile(), IgnoreFile::Parse("!*.txt\n", "s"));
  const std::vector<IgnoreFile> none;
  EXPECT_FALSE(root->Ignored("a.md", false, none));
  EXPECT_TRUE(root->Ignored("a.txt", false, none));
  EXPECT_FALSE(sub.Ignored("s/a.txt", false, none));
  const std::vector<IgnoreFile> given = {IgnoreFile::Parse("*.csv\n", ""), IgnoreFile::Parse("!b.csv\n", "")};
  EXPECT_TRUE(sub.Ignored("s/a.csv", false, given));
  EXPECT_FALSE(sub.Ignored("s/b.csv", false, given));  // the last file given first
}

}  // namespace
}  // namespace neardup
