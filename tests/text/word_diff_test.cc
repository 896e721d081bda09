// FoldDiff: long unchanged stretches are shortened to their context, the
// rest of a diff is kept as it is. WordDiff of prepared words (DiffWords):
// the very script dtl gives, whatever the inputs, and FoldedWordDiff its
// fold.
#include "neardup/word_diff.h"

#include <gtest/gtest.h>

#include <dtl/dtl.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "test_util.h"
#include "text/word_diff.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;

DiffRun Same(uint64_t words) { return {DiffRun::Kind::kSame, Join(RandomWords(words, 3)), words}; }

TEST(FoldDiffTest, ShortRunsAndChangesAreKeptAsTheyAre) {
  const std::vector<DiffRun> runs = {Same(5),
                                     {DiffRun::Kind::kRemoved, "x y", 2},
                                     {DiffRun::Kind::kAdded, "z", 1},
                                     Same(12 + 12 + kMinSkipped - 1),
                                     {DiffRun::Kind::kAdded, "w", 1}};
  const std::vector<FoldedRun> folded = FoldDiff(runs);
  ASSERT_EQ(folded.size(), runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(folded[i].text, runs[i].text);
    EXPECT_EQ(folded[i].words, runs[i].words);
    EXPECT_EQ(static_cast<int>(folded[i].kind), static_cast<int>(runs[i].kind));
  }
}

TEST(FoldDiffTest, LongUnchangedStretchKeepsItsContextAroundTheCount) {
  const DiffRun middle = Same(100);
  const std::vector<DiffRun> runs = {{DiffRun::Kind::kRemoved, "a", 1}, middle, {DiffRun::Kind::kAdded, "b", 1}};
  const std::vector<FoldedRun> folded = FoldDiff(runs);
  ASSERT_EQ(folded.size(), 5u);
  const std::vector<std::string> words = RandomWords(100, 3);
  EXPECT_EQ(folded[1].kind, FoldedRun::Kind::kSame);
  EXPECT_EQ(folded[1].text, Join({words.begin(), words.begin() + kContextWords}));
  EXPECT_EQ(folded[2].kind, FoldedRun::Kind::kSkipped);
  EXPECT_EQ(folded[2].words, 100 - 2 * kContextWords);
  EXPECT_TRUE(folded[2].text.empty());
  EXPECT_EQ(folded[3].kind, FoldedRun::Kind::kSame);
  EXPECT_EQ(folded[3].text, Join({words.end() - kContextWords, words.end()}));
}

TEST(FoldDiffTest, StretchesAtTheEndsKeepContextOnTheChangedSideOnly) {
  const std::vector<DiffRun> runs = {Same(50), {DiffRun::Kind::kAdded, "b", 1}, Same(50)};
  const std::vector<FoldedRun> folded = FoldDiff(runs);
  ASSERT_EQ(folded.size(), 5u);
  EXPECT_EQ(folded[0].kind, FoldedRun::Kind::kSkipped);
  EXPECT_EQ(folded[0].words, 50 - kContextWords);
  EXPECT_EQ(folded[1].words, kContextWords);
  EXPECT_EQ(folded[2].kind, FoldedRun::Kind::kAdded);
  EXPECT_EQ(folded[3].words, kContextWords);
  EXPECT_EQ(folded[4].kind, FoldedRun::Kind::kSkipped);
  EXPECT_EQ(folded[4].words, 50 - kContextWords);
  EXPECT_TRUE(FoldDiff({}).empty());
}

// MarkSpan: a document inside a longer one, one word edited, shows the
// container's words before and after it folded and grey, its span marked
// with the edit inside it, and the contained document's own word.
TEST(MarkSpanTest, TheContainedDocumentsSpanIsMarkedInsideTheContainer) {
  const std::vector<std::string> host = RandomWords(200, 7, 100000);
  std::vector<std::string> quote(host.begin() + 80, host.begin() + 120);
  quote[20] = "edited";
  const std::vector<SpanRun> span = MarkSpan(WordDiff(Join(host), Join(quote)));
  ASSERT_EQ(span.size(), 8u);
  EXPECT_EQ(span[0].kind, SpanRun::Kind::kOutsideSkipped);
  EXPECT_EQ(span[0].words, 80 - kContextWords);
  EXPECT_EQ(span[1].kind, SpanRun::Kind::kOutside);
  EXPECT_EQ(span[1].text, Join(std::vector<std::string>(host.begin() + 80 - kContextWords, host.begin() + 80)));
  EXPECT_EQ(span[2].kind, SpanRun::Kind::kMatched);
  EXPECT_EQ(span[2].text, Join(std::vector<std::string>(quote.begin(), quote.begin() + 20)));
  EXPECT_EQ(span[3].kind, SpanRun::Kind::kContainerOnly);
  EXPECT_EQ(span[3].text, host[100]);
  EXPECT_EQ(span[4].kind, SpanRun::Kind::kContainedOnly);
  EXPECT_EQ(span[4].text, "edited");
  EXPECT_EQ(span[5].kind, SpanRun::Kind::kMatched);
  EXPECT_EQ(span[5].words, 19u);
  EXPECT_EQ(span[6].kind, SpanRun::Kind::kOutside);
  EXPECT_EQ(span[6].words, kContextWords);
  EXPECT_EQ(span[7].kind, SpanRun::Kind::kOutsideSkipped);
  EXPECT_EQ(span[7].words, 80 - kContextWords);
}

// A long matched stretch is folded as an unchanged one is; a common word met
// by chance outside the span does not stretch it; nothing matched, no span.
TEST(MarkSpanTest, LongMatchesFoldAndStrayWordsStayOutside) {
  const std::vector<DiffRun> runs = {{DiffRun::Kind::kRemoved, "a b c", 3},
                                     {DiffRun::Kind::kSame, "the", 1},
                                     {DiffRun::Kind::kRemoved, "d e", 2},
                                     Same(100),
                                     {DiffRun::Kind::kRemoved, "f", 1}};
  const std::vector<SpanRun> span = MarkSpan(runs);
  ASSERT_EQ(span.size(), 5u);
  EXPECT_EQ(span[0].kind, SpanRun::Kind::kOutside);
  EXPECT_EQ(span[0].text, "a b c the d e");
  EXPECT_EQ(span[1].kind, SpanRun::Kind::kMatched);
  EXPECT_EQ(span[1].words, kContextWords);
  EXPECT_EQ(span[2].kind, SpanRun::Kind::kMatchedSkipped);
  EXPECT_EQ(span[2].words, 100 - 2 * kContextWords);
  EXPECT_EQ(span[3].kind, SpanRun::Kind::kMatched);
  EXPECT_EQ(span[4].kind, SpanRun::Kind::kOutside);
  EXPECT_EQ(span[4].text, "f");
  // Only short matches: the span runs from the first to the last of them.
  const std::vector<SpanRun> stray = MarkSpan({{DiffRun::Kind::kRemoved, "a", 1},
                                               {DiffRun::Kind::kSame, "b", 1},
                                               {DiffRun::Kind::kRemoved, "c", 1},
                                               {DiffRun::Kind::kSame, "d", 1}});
  ASSERT_EQ(stray.size(), 4u);
  EXPECT_EQ(stray[1].kind, SpanRun::Kind::kMatched);
  EXPECT_EQ(stray[2].kind, SpanRun::Kind::kContainerOnly);
  EXPECT_TRUE(MarkSpan({{DiffRun::Kind::kRemoved, "a", 1}, {DiffRun::Kind::kAdded, "b", 1}}).empty());
  EXPECT_TRUE(MarkSpan({}).empty());
}

// The word diff as neardup made it with dtl before DiffWords: the reference.
std::vector<DiffRun> DtlWordDiff(const std::vector<std::string>& wa, const std::vector<std::string>& wb) {
  std::unordered_map<std::string_view, int> ids;
  std::vector<std::string_view> words_by_id;
  auto number = [&](const std::vector<std::string>& words) {
    std::vector<int> seq;
    for (const std::string& w : words) {
      const auto [it, added] = ids.emplace(w, static_cast<int>(words_by_id.size()));
      if (added) words_by_id.push_back(w);
      seq.push_back(it->second);
    }
    return seq;
  };
  const std::vector<int> sa = number(wa);
  const std::vector<int> sb = number(wb);
  dtl::Diff<int> diff(sa, sb, /*deletesFirst=*/true);
  diff.compose();
  std::vector<DiffRun> runs;
  for (const auto& [elem, info] : diff.getSes().getSequence()) {
    const DiffRun::Kind kind = info.type == dtl::SES_ADD      ? DiffRun::Kind::kAdded
                               : info.type == dtl::SES_DELETE ? DiffRun::Kind::kRemoved
                                                              : DiffRun::Kind::kSame;
    const std::string_view word = words_by_id[static_cast<size_t>(elem)];
    if (runs.empty() || runs.back().kind != kind) {
      runs.push_back({kind, std::string(word), 1});
    } else {
      runs.back().text.push_back(' ');
      runs.back().text.append(word);
      ++runs.back().words;
    }
  }
  return runs;
}

void ExpectDtlsScript(const std::vector<std::string>& wa, const std::vector<std::string>& wb) {
  const std::vector<DiffRun> want = DtlWordDiff(wa, wb);
  const std::vector<DiffRun> got = WordDiff(DiffWords(Join(wa)), DiffWords(Join(wb)));
  ASSERT_EQ(got.size(), want.size()) << wa.size() << " against " << wb.size() << " words";
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(static_cast<int>(got[i].kind), static_cast<int>(want[i].kind)) << "run " << i;
    EXPECT_EQ(got[i].text, want[i].text) << "run " << i;
    EXPECT_EQ(got[i].words, want[i].words) << "run " << i;
  }
  EXPECT_EQ(WordDiff(Join(wa), Join(wb)).size(), want.size());
  // The review's folded diff: the fold of the same script, run for run.
  const std::vector<FoldedRun> fold = FoldDiff(want);
  const std::vector<FoldedRun> folded = FoldedWordDiff(DiffWords(Join(wa)), DiffWords(Join(wb)));
  ASSERT_EQ(folded.size(), fold.size()) << wa.size() << " against " << wb.size() << " words";
  for (size_t i = 0; i < folded.size(); ++i) {
    EXPECT_EQ(static_cast<int>(folded[i].kind), static_cast<int>(fold[i].kind)) << "folded run " << i;
    EXPECT_EQ(folded[i].text, fold[i].text) << "folded run " << i;
    EXPECT_EQ(folded[i].words, fold[i].words) << "folded run " << i;
  }
}

// `words` with every `every`-th word replaced, one in three dropped and one
// in five doubled, from `seed`.
std::vector<std::string> Edited(const std::vector<std::string>& words, size_t every, uint64_t seed) {
  const std::vector<std::string> other = RandomWords(words.size(), seed, 50);
  std::vector<std::string> out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i % every != 0) {
      out.push_back(words[i]);
    } else if (i % (3 * every) == 0) {
      continue;
    } else {
      out.push_back(other[i]);
      if (i % (5 * every) == 0) out.push_back(other[i]);
    }
  }
  return out;
}

TEST(DiffWordsTest, SmallAndEmptyTextsGiveDtlsScript) {
  ExpectDtlsScript({}, {});
  ExpectDtlsScript({}, {"a", "b"});
  ExpectDtlsScript({"a", "b"}, {});
  ExpectDtlsScript({"a", "b", "c"}, {"a", "x", "c"});
  ExpectDtlsScript({"a", "b", "a", "b"}, {"b", "a", "b", "a"});  // as long: dtl swaps them
  ExpectDtlsScript({"x", "a"}, {"a", "x", "a"});
}

TEST(DiffWordsTest, RandomTextsOfFewWordsGiveDtlsScript) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const size_t n = seed % 37, m = (seed * 7) % 41;
    ExpectDtlsScript(RandomWords(n, seed, 1 + seed % 4), RandomWords(m, seed + 1000, 1 + seed % 4));
  }
}

TEST(DiffWordsTest, NearCopiesGiveDtlsScript) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const std::vector<std::string> words = RandomWords(500 + 97 * seed, seed, 300);
    ExpectDtlsScript(words, Edited(words, 3 + seed % 17, seed));
    ExpectDtlsScript(Edited(words, 5 + seed % 7, seed + 50), words);
    ExpectDtlsScript(words, Edited(words, 30 + seed * 3, seed + 90));  // long unchanged stretches, folded
  }
}

// Texts far apart fill dtl's path table (2,000,000 points) several times:
// the script is recorded in parts, as dtl records it.
TEST(DiffWordsTest, TextsPastThePathTableGiveDtlsScript) {
  ExpectDtlsScript(RandomWords(5000, 7, 20), RandomWords(4000, 8, 20));
  ExpectDtlsScript(RandomWords(4500, 9, 20), RandomWords(4500, 10, 20));
}

// WordCap keeps the first N words however the text arrives in pieces, and
// says capped only when a word follows them.
TEST(WordCapTest, TheFirstWordsWhateverThePieces) {
  const std::string text = "alpha beta gamma delta ";
  auto cap = [&](uint64_t max_words, size_t piece) {
    std::string kept;
    bool capped = false;
    WordCap first(max_words, &kept, &capped);
    for (size_t at = 0; at < text.size(); at += piece) first.Add(std::string_view(text).substr(at, piece));
    return std::make_pair(kept, capped);
  };
  for (const size_t piece : {size_t{1}, size_t{3}, size_t{6}, text.size()}) {
    EXPECT_EQ(cap(2, piece), std::make_pair(std::string("alpha beta "), true)) << piece;
    EXPECT_EQ(cap(3, piece), std::make_pair(std::string("alpha beta gamma "), true)) << piece;
    EXPECT_EQ(cap(4, piece), std::make_pair(text, false)) << piece;
    EXPECT_EQ(cap(9, piece), std::make_pair(text, false)) << piece;
  }
  std::string kept;
  bool capped = false;
  WordCap first(1, &kept, &capped);
  first.Add("one ");
  first.Add("   ");  // spaces only: nothing more
  EXPECT_FALSE(capped);
  first.Add(" two ");
  EXPECT_TRUE(capped);
  EXPECT_EQ(kept, "one ");
}

}  // namespace
}  // namespace neardup
