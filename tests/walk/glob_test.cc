#include "walk/glob.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace neardup {
namespace {

struct Case {
  const char* pattern;
  const char* text;
  bool match;
};

void ExpectCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    EXPECT_EQ(GlobMatch(c.pattern, c.text), c.match) << "pattern '" << c.pattern << "' text '" << c.text << "'";
  }
}

GlobSet MustCompile(const std::vector<std::string>& globs) {
  Result<GlobSet> set = GlobSet::Compile(globs);
  EXPECT_TRUE(set.ok()) << set.status().message();
  return set.ok() ? std::move(set).value() : GlobSet();
}

TEST(GlobMatchTest, LiteralsMatchExactly) {
  ExpectCases({
      {"a.txt", "a.txt", true},
      {"a.txt", "a.tx", false},
      {"a.txt", "a.txtx", false},
      {"a.txt", "b.txt", false},
      {"a/b.txt", "a/b.txt", true},
      {"a/b.txt", "a/c.txt", false},
      {"", "", true},
      {"", "a", false},
      {"A.TXT", "a.txt", false},  // case-sensitive
  });
}

TEST(GlobMatchTest, StarMatchesWithinOneComponent) {
  ExpectCases({
      {"*", "abc", true},
      {"*", "", true},
      {"*", "a/b", false},
      {"*.txt", "a.txt", true},
      {"*.txt", ".txt", true},
      {"*.txt", "a.txt.gz", false},
      {"*.txt", "dir/a.txt", false},
      {"a*", "a", true},
      {"a*c", "abc", true},
      {"a*c", "ac", true},
      {"a*c", "abcd", false},
      {"a*b*c", "aXbYc", true},
      {"a*b*c", "abcbc", true},
      {"a*b*c", "acb", false},
      {"*ab", "aab", true},  // the star has to give back one 'a'
      {"*a*a", "aaa", true},
      {"*a*a", "ba", false},
      {"a/*", "a/b", true},
      {"a/*", "a/b/c", false},
      {"a/*/c", "a/b/c", true},
      {"a/*/c", "a/c", false},
      {"*/*", "a/b", true},
      {"a***b", "aXYb", true},  // a run of stars is one star
      {"a**b", "aXb", true},    // `**` inside a component is `*`
      {"a**b", "a/b", false},
  });
}

TEST(GlobMatchTest, QuestionMarkMatchesOneCharacter) {
  ExpectCases({
      {"?", "a", true},
      {"?", "", false},
      {"?", "ab", false},
      {"?", "/", false},
      {"a?c", "abc", true},
      {"a?c", "a/c", false},
      {"a?c", "ac", false},
      {"??", "ab", true},
      {"?", "\xC3\xA9", true},  // é is one character
      {"??", "\xC3\xA9", false},
      {"?x", "\xE2\x82\xACx", true},  // € then x
      {"?", "\xFF", true},            // a stray byte counts as one character
      {"*?", "\xC3\xA9", true},
  });
}

TEST(GlobMatchTest, DoubleStarSpansComponents) {
  ExpectCases({
      {"**", "a", true},
      {"**", "a/b/c", true},
      {"**/x", "x", true},
      {"**/x", "a/x", true},
      {"**/x", "a/b/x", true},
      {"**/x", "a/xx", false},
      {"**/x", "x/a", false},
      {"a/**", "a/b", true},
      {"a/**", "a/b/c", true},
      {"a/**", "a", false},  // the contents of a, not a itself
      {"a/**", "b/a/c", false},
      {"a/**/b", "a/b", true},
      {"a/**/b", "a/x/b", true},
      {"a/**/b", "a/x/y/b", true},
      {"a/**/b", "a/x/y/c", false},
      {"a/**/b", "a/b/c", false},
      {"**/*.txt", "a.txt", true},
      {"**/*.txt", "d/e/a.txt", true},
      {"**/*.txt", "d/e/a.md", false},
      {"**/d/*.txt", "x/d/a.txt", true},
      {"**/d/*.txt", "x/d/e/a.txt", false},
      {"a/**/b/**/c", "a/b/c", true},
      {"a/**/b/**/c", "a/x/b/y/z/c", true},
      {"a/**/b/**/c", "a/x/c/y/b", false},
      {"**/**/x", "x", true},
      {"**/b/**", "a/b/c", true},
      {"**/b/**", "a/b", false},
  });
}

TEST(GlobMatchTest, CharacterClasses) {
  ExpectCases({
      {"[abc]", "a", true},
      {"[abc]", "c", true},
      {"[abc]", "d", false},
      {"[abc]", "", false},
      {"[a-z]", "m", true},
      {"[a-z]", "M", false},
      {"[a-z0-9]", "7", true},
      {"[!a]", "b", true},
      {"[!a]", "a", false},
      {"[^a]", "b", true},
      {"[!a-c]", "d", true},
      {"[!a-c]", "b", false},
      {"[!a]", "/", false},  // never '/'
      {"[]]", "]", true},    // ']' first is literal
      {"[!]]", "]", false},
      {"[!]]", "a", true},
      {"[a-]", "-", true},  // '-' last is literal
      {"[-a]", "-", true},
      {"[\\]a]", "]", true},
      {"[\\-]", "-", true},
      {"file[0-9].txt", "file3.txt", true},
      {"file[0-9].txt", "file33.txt", false},
      {"[\xC3\xA0-\xC3\xBF]", "\xC3\xA9", true},  // à-ÿ contains é
      {"[\xC3\xA0-\xC3\xBF]", "e", false},
      {"*[0-9]", "abc5", true},
  });
}

TEST(GlobMatchTest, BackslashEscapes) {
  ExpectCases({
      {"\\*", "*", true},
      {"\\*", "a", false},
      {"\\?", "?", true},
      {"\\?", "a", false},
      {"\\[a]", "[a]", true},
      {"\\[a]", "a", false},
      {"a\\\\b", "a\\b", true},
      {"\\a", "a", true},
      {"*\\*", "abc*", true},
      {"*\\*", "abc", false},
  });
}

TEST(GlobMatchTest, PathologicalPatternsAreFast) {
  const auto start = std::chrono::steady_clock::now();
  const std::string long_a(20'000, 'a');
  EXPECT_FALSE(GlobMatch("*a*a*a*a*a*a*a*a*b", long_a));
  EXPECT_TRUE(GlobMatch("*a*a*a*a*a*a*a*a*a", long_a));
  std::string deep;
  for (int i = 0; i < 2'000; ++i) deep += "a/";
  deep += "c";
  EXPECT_FALSE(GlobMatch("**/a/**/a/**/a/**/a/**/b", deep));
  EXPECT_TRUE(GlobMatch("**/a/**/a/**/a/**/a/**/c", deep));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  // Exponential backtracking would take far longer than this.
  EXPECT_LT(elapsed, std::chrono::seconds(2));
}

TEST(GlobSetTest, EmptySetMatchesEverything) {
  const GlobSet set;
  EXPECT_TRUE(set.empty());
  EXPECT_TRUE(set.Matches("a.txt"));
  EXPECT_TRUE(set.Matches("d/e/f"));
  EXPECT_FALSE(set.ExcludesDirectory("d"));
}

TEST(GlobSetTest, IncludeGlobsExcludeEverythingElse) {
  const GlobSet set = MustCompile({"*.txt", "*.md"});
  EXPECT_FALSE(set.empty());
  EXPECT_TRUE(set.Matches("a.txt"));
  EXPECT_TRUE(set.Matches("doc/readme.md"));
  EXPECT_FALSE(set.Matches("a.csv"));
  EXPECT_FALSE(set.ExcludesDirectory("doc"));  // include globs never prune
}

TEST(GlobSetTest, ExcludeGlobsAloneKeepEverythingElse) {
  const GlobSet set = MustCompile({"!*.log"});
  EXPECT_TRUE(set.Matches("a.txt"));
  EXPECT_FALSE(set.Matches("a.log"));
  EXPECT_FALSE(set.Matches("x/y/a.log"));
}

TEST(GlobSetTest, LastMatchingGlobWins) {
  const GlobSet set = MustCompile({"*.txt", "!secret*", "secret-ok.txt"});
  EXPECT_TRUE(set.Matches("a.txt"));
  EXPECT_FALSE(set.Matches("secret.txt"));
  EXPECT_TRUE(set.Matches("secret-ok.txt"));
  EXPECT_TRUE(set.Matches("d/secret-ok.txt"));
  // Matches no glob; some glob includes, so it is out.
  EXPECT_FALSE(set.Matches("a.md"));

  const GlobSet reversed = MustCompile({"!*.txt", "*.txt"});
  EXPECT_TRUE(reversed.Matches("a.txt"));
}

TEST(GlobSetTest, BasenameGlobsMatchAtAnyDepthPathGlobsDoNot) {
  const GlobSet basename = MustCompile({"a.txt"});
  EXPECT_TRUE(basename.Matches("a.txt"));
  EXPECT_TRUE(basename.Matches("x/y/a.txt"));
  EXPECT_FALSE(basename.Matches("x/a.txt/b"));

  const GlobSet path = MustCompile({"x/*.txt"});
  EXPECT_TRUE(path.Matches("x/a.txt"));
  EXPECT_FALSE(path.Matches("y/x/a.txt"));  // a glob with '/' is anchored
  EXPECT_FALSE(path.Matches("a.txt"));

  const GlobSet anywhere = MustCompile({"**/x/*.txt"});
  EXPECT_TRUE(anywhere.Matches("x/a.txt"));
  EXPECT_TRUE(anywhere.Matches("y/x/a.txt"));
}

TEST(GlobSetTest, LeadingSlashAnchorsAtTheTop) {
  const GlobSet set = MustCompile({"/a.txt"});
  EXPECT_TRUE(set.Matches("a.txt"));
  EXPECT_FALSE(set.Matches("d/a.txt"));
}

TEST(GlobSetTest, ExcludedDirectoriesArePruned) {
  const GlobSet set = MustCompile({"!node_modules", "!build/tmp", "keep/**"});
  EXPECT_TRUE(set.ExcludesDirectory("node_modules"));
  EXPECT_TRUE(set.ExcludesDirectory("a/b/node_modules"));
  EXPECT_TRUE(set.ExcludesDirectory("build/tmp"));
  EXPECT_FALSE(set.ExcludesDirectory("build"));
  EXPECT_FALSE(set.ExcludesDirectory("x/build/tmp"));
  EXPECT_FALSE(set.ExcludesDirectory("src"));
  EXPECT_FALSE(set.ExcludesDirectory("keep"));

  // A later include undoes the exclude.
  const GlobSet undone = MustCompile({"!vendor", "vendor"});
  EXPECT_FALSE(undone.ExcludesDirectory("vendor"));
}

TEST(GlobSetTest, MalformedGlobsAreRejected) {
  for (const char* bad : {"[abc", "a/[b", "[!", "[]", "abc\\", "[z-a]", "!", "", "[a-\\"}) {
    Result<GlobSet> set = GlobSet::Compile({"*.txt", bad});
    ASSERT_FALSE(set.ok()) << "glob '" << bad << "'";
    EXPECT_EQ(set.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(set.status().message().find(std::string("'") + bad + "'"), std::string::npos) << set.status().message();
  }
}

TEST(GlobSetTest, WellFormedOddGlobsCompile) {
  for (const char* good : {"[]]", "[a-]", "\\[", "a**b", "**", "!**/x", "[\\]]", "/a"}) {
    Result<GlobSet> set = GlobSet::Compile({good});
    EXPECT_TRUE(set.ok()) << "glob '" << good << "': " << set.status().message();
  }
}

}  // namespace
}  // namespace neardup
