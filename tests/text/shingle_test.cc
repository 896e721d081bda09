#include "text/shingle.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace neardup {
namespace {

std::vector<uint64_t> Words(std::string_view text, int k) { return ShingleSet(text, ShingleUnit::kWord, k, 1); }
std::vector<uint64_t> Chars(std::string_view text, int k) { return ShingleSet(text, ShingleUnit::kChar, k, 1); }

std::vector<uint64_t> Union(std::vector<std::vector<uint64_t>> sets) {
  std::vector<uint64_t> all;
  for (auto& s : sets) all.insert(all.end(), s.begin(), s.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

TEST(ShingleTest, MmdsCharExampleAbcabGivesThreeShingles) {
  // MMDS example 3.3: the 2-shingles of "abcab" are {ab, bc, ca}.
  const auto set = Chars("abcab", 2);
  ASSERT_EQ(set.size(), 3u);
  EXPECT_EQ(set, Union({Chars("ab", 2), Chars("bc", 2), Chars("ca", 2)}));
}

TEST(ShingleTest, WordShinglesAreConsecutiveWordRuns) {
  const auto set = Words("the quick brown fox jumps", 2);
  ASSERT_EQ(set.size(), 4u);
  EXPECT_EQ(set, Union({Words("the quick", 2), Words("quick brown", 2), Words("brown fox", 2), Words("fox jumps", 2)}));
}

TEST(ShingleTest, RepeatedShinglesCountOnce) {
  EXPECT_EQ(Words("a b a b a b", 2).size(), 2u);  // {a b, b a}
}

TEST(ShingleTest, WordOrderMatters) { EXPECT_NE(Words("one two three", 2), Words("three two one", 2)); }

TEST(ShingleTest, TextIsLowercasedAndPunctuationSeparates) {
  EXPECT_EQ(Words("The QUICK, brown-fox!", 2), Words("the quick brown fox", 2));
  EXPECT_EQ(Words("ÉCOLE Straße", 1), Words("école strasse", 1));
}

TEST(ShingleTest, ShortDocumentHasExactlyOneShingleOfAllItsWords) {
  const auto set = Words("hello world", 5);
  ASSERT_EQ(set.size(), 1u);
  EXPECT_NE(set, Words("hello", 5));
  EXPECT_NE(set, Words("world hello", 5));
  EXPECT_EQ(Chars("abc", 9).size(), 1u);
}

TEST(ShingleTest, DocumentWithoutWordsIsEmpty) {
  EXPECT_TRUE(Words("", 5).empty());
  EXPECT_TRUE(Words("  ... !!! ---\n\t", 5).empty());
  EXPECT_TRUE(Chars("  ... !!! ---", 3).empty());
}

TEST(ShingleTest, UnicodeLettersDigitsAndMarksMakeWords) {
  Shingler sh(ShingleUnit::kWord, 1, 1);
  sh.Feed("naïve café 42 Ελλάδα добрый_день");
  sh.Finish();
  EXPECT_EQ(sh.words(), 5u);
}

TEST(ShingleTest, HanAndKanaCharactersAreWordsOfTheirOwn) {
  Shingler sh(ShingleUnit::kWord, 2, 1);
  sh.Feed("東京都に行きます。");  // 東 京 都 に 行 き ま す, the full stop separates
  sh.Finish();
  EXPECT_EQ(sh.words(), 8u);
  EXPECT_EQ(sh.shingles().size(), 7u);
}

TEST(ShingleTest, ThaiCharactersAreWordsOfTheirOwn) {
  Shingler sh(ShingleUnit::kWord, 1, 1);
  sh.Feed("สวัสดี");  // six code points, marks included
  sh.Finish();
  EXPECT_EQ(sh.words(), 6u);
}

TEST(ShingleTest, InvalidUtf8BytesSeparateWords) {
  EXPECT_EQ(Words("abc\xff"
                  "def",
                  1),
            Words("abc def", 1));
  EXPECT_EQ(Words("abc\xe2\x82"
                  "def",
                  1),
            Words("abc def", 1));  // truncated sequence
}

TEST(ShingleTest, CharModeCollapsesWhiteSpaceRunsAndTrims) {
  EXPECT_EQ(Chars("  a  b\n\t c  ", 3), Chars("a b c", 3));
  EXPECT_NE(Chars("a b c", 3), Chars("abc", 3));
}

TEST(ShingleTest, FeedingInPiecesGivesTheSameShingles) {
  const std::string text = "Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu";
  Shingler whole(ShingleUnit::kWord, 3, 7);
  whole.Feed(text);
  whole.Finish();
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    Shingler pieces(ShingleUnit::kWord, 3, 7);
    pieces.Feed(std::string_view(text).substr(0, cut));
    std::vector<uint64_t> got = pieces.shingles();
    pieces.shingles().clear();
    pieces.Feed(std::string_view(text).substr(cut));
    pieces.Finish();
    got.insert(got.end(), pieces.shingles().begin(), pieces.shingles().end());
    EXPECT_EQ(got, whole.shingles()) << "cut at " << cut;
    EXPECT_EQ(pieces.content_hash(), whole.content_hash());
  }
}

TEST(ShingleTest, ContentHashIgnoresCaseAndPunctuationButNotWords) {
  auto hash = [](std::string_view text) {
    Shingler sh(ShingleUnit::kWord, 5, 1);
    sh.Feed(text);
    sh.Finish();
    return sh.content_hash();
  };
  EXPECT_EQ(hash("Hello, World!"), hash("hello world"));
  EXPECT_FALSE(hash("hello world") == hash("hello worlds"));
  EXPECT_FALSE(hash("hello world") == hash("world hello"));
}

TEST(ShingleTest, SeedChangesEveryHash) {
  const auto a = ShingleSet("one two three four five six", ShingleUnit::kWord, 2, 1);
  const auto b = ShingleSet("one two three four five six", ShingleUnit::kWord, 2, 2);
  ASSERT_EQ(a.size(), b.size());
  std::vector<uint64_t> common;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
  EXPECT_TRUE(common.empty());
}

// Words longer than the shingler's buffer are hashed as they stream in: the
// hashes must be those of the whole word, however the text is cut.
TEST(ShingleTest, VeryLongWordsHashAsIfHeldWhole) {
  std::string text = "short " + std::string(200000, 'a') + "B" + std::string(70000, 'c') + " tail ";
  // A long word of combining marks and non-ASCII letters too.
  for (int i = 0; i < 40000; ++i) text += "e\xcc\x81";
  text += " end";
  auto shingles = [&](size_t step, std::vector<uint64_t>* out) {
    Shingler sh(ShingleUnit::kWord, 2, 3);
    for (size_t pos = 0; pos < text.size();) {
      // Cut at code point boundaries, as the Normalizer does.
      size_t end = std::min(text.size(), pos + step);
      while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
      sh.Feed(std::string_view(text).substr(pos, end - pos));
      pos = end;
      out->insert(out->end(), sh.shingles().begin(), sh.shingles().end());
      sh.shingles().clear();
    }
    sh.Finish();
    out->insert(out->end(), sh.shingles().begin(), sh.shingles().end());
    EXPECT_EQ(sh.words(), 5u);
    return sh.content_hash();
  };
  std::vector<uint64_t> whole;
  const ContentHash whole_hash = shingles(text.size(), &whole);
  // The reference: the same words, short enough never to be spilled, give
  // different hashes; the long text's hashes must equal a whole-word hash,
  // which ShingleSet over the full text computes in one Feed as well.
  for (size_t step : {size_t{1} << 10, size_t{4093}, size_t{65536}, size_t{100000}}) {
    std::vector<uint64_t> cut;
    EXPECT_TRUE(shingles(step, &cut) == whole_hash) << "step " << step;
    EXPECT_EQ(cut, whole) << "step " << step;
  }
  EXPECT_EQ(whole.size(), 4u);
}

// The long-word path gives exactly HashBytes of the word: a two-word document
// made of one long word and one short word has the same shingle whether the
// long word arrives at once or byte by byte.
TEST(ShingleTest, LongWordFedByteByByteMatchesOneFeed) {
  const std::string text = std::string(70000, 'q') + " x";
  Shingler once(ShingleUnit::kWord, 2, 1);
  once.Feed(text);
  once.Finish();
  Shingler bytes(ShingleUnit::kWord, 2, 1);
  for (char c : text) bytes.Feed(std::string_view(&c, 1));
  bytes.Finish();
  EXPECT_EQ(once.shingles(), bytes.shingles());
  ASSERT_EQ(once.shingles().size(), 1u);
}

}  // namespace
}  // namespace neardup
