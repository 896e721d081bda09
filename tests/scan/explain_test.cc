// ExplainPair and WordDiff: the facts of a pair agree with the scan's own
// computation, and the word diff spells both texts.
#include "neardup/explain.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "lsh/banding.h"
#include "lsh/similarity.h"
#include "neardup/scan.h"
#include "neardup/word_diff.h"
#include "sign/minhash.h"
#include "test_util.h"
#include "text/shingle.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::TempDir;
using testing::WriteFile;

// The words of `runs` of the given kinds, joined by spaces.
std::string Spell(const std::vector<DiffRun>& runs, DiffRun::Kind other) {
  std::string out;
  for (const DiffRun& r : runs) {
    if (r.kind != DiffRun::Kind::kSame && r.kind != other) continue;
    if (!out.empty()) out += ' ';
    out += r.text;
  }
  return out;
}

TEST(WordDiffTest, MarksRemovedAndAddedWords) {
  const std::vector<DiffRun> runs = WordDiff("the quick brown fox jumps", "the slow brown fox jumps high");
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_EQ(runs[0].kind, DiffRun::Kind::kSame);
  EXPECT_EQ(runs[0].text, "the");
  EXPECT_EQ(runs[1].kind, DiffRun::Kind::kRemoved);
  EXPECT_EQ(runs[1].text, "quick");
  EXPECT_EQ(runs[2].kind, DiffRun::Kind::kAdded);
  EXPECT_EQ(runs[2].text, "slow");
  EXPECT_EQ(runs[3].kind, DiffRun::Kind::kSame);
  EXPECT_EQ(runs[3].text, "brown fox jumps");
  EXPECT_EQ(runs[3].words, 3u);
  EXPECT_EQ(runs[4].kind, DiffRun::Kind::kAdded);
  EXPECT_EQ(runs[4].text, "high");
}

TEST(WordDiffTest, RunsSpellBothTextsAndAlternateKinds) {
  const std::string a = Join(RandomWords(3000, 1, 50));
  std::vector<std::string> wb = RandomWords(3000, 1, 50);
  for (size_t i = 0; i < wb.size(); i += 97) wb[i] = "changed";
  wb.insert(wb.begin() + 500, "inserted");
  const std::string b = Join(wb);
  const std::vector<DiffRun> runs = WordDiff(a, b);
  EXPECT_EQ(Spell(runs, DiffRun::Kind::kRemoved), a);
  EXPECT_EQ(Spell(runs, DiffRun::Kind::kAdded), b);
  for (size_t i = 1; i < runs.size(); ++i) EXPECT_NE(runs[i].kind, runs[i - 1].kind);
}

TEST(WordDiffTest, EqualTextsAreOneRunAndEmptyTextsNone) {
  const std::vector<DiffRun> runs = WordDiff("a  b\nc ", "a b c");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].kind, DiffRun::Kind::kSame);
  EXPECT_EQ(runs[0].text, "a b c");
  EXPECT_TRUE(WordDiff("", "").empty());
}

// Two texts of 400 words with `edits` words replaced in the second.
void WritePair(const TempDir& dir, int edits) {
  std::vector<std::string> w = RandomWords(400, 7);
  WriteFile(dir / "a.txt", Join(w));
  for (int i = 0; i < edits; ++i) w[static_cast<size_t>(i) * 37 + 5] = testing::Numbered("edit", i);
  WriteFile(dir / "b.txt", Join(w));
}

TEST(ExplainTest, FactsAgreeWithShinglesSignaturesAndScan) {
  TempDir dir;
  WritePair(dir, 4);
  Options o;
  ExplainInputs in;
  in.a = dir / "a.txt";
  in.b = dir / "b.txt";
  Result<PairExplanation> e = ExplainPair(o, in);
  ASSERT_TRUE(e.ok()) << e.status().message();

  const std::string ta = testing::ReadFile(in.a), tb = testing::ReadFile(in.b);
  const std::vector<uint64_t> sa = ShingleSet(ta, ShingleUnit::kWord, 5, o.seed);
  const std::vector<uint64_t> sb = ShingleSet(tb, ShingleUnit::kWord, 5, o.seed);
  EXPECT_EQ(e->a.shingles, sa.size());
  EXPECT_EQ(e->b.shingles, sb.size());
  EXPECT_EQ(e->a.words, 400u);
  EXPECT_EQ(e->a.tokens, 400u);
  EXPECT_EQ(e->a.bytes, ta.size());
  EXPECT_DOUBLE_EQ(e->jaccard, ExactJaccard(sa, sb));
  // 4 edits 37 words apart change 20 shingles: 376 shared of 416.
  EXPECT_EQ(e->shared_shingles, 376u);
  EXPECT_EQ(e->union_shingles, 416u);
  const MinHasher mh(o.num_perm, o.seed);
  EXPECT_DOUBLE_EQ(e->estimate, SignatureAgreement(mh.Sign(sa).data(), mh.Sign(sb).data(), o.num_perm));
  EXPECT_NEAR(e->standard_error, std::sqrt(e->jaccard * (1 - e->jaccard) / 128), 1e-12);
  const Banding banding = ChooseBanding(o.threshold, o.num_perm);
  EXPECT_EQ(e->banding.bands, banding.bands);
  EXPECT_EQ(e->banding.rows, banding.rows);
  EXPECT_DOUBLE_EQ(e->candidate_probability, CandidateProbability(e->jaccard, banding.bands, banding.rows));
  EXPECT_EQ(e->candidate, !e->agreeing_bands.empty());
  EXPECT_FALSE(e->same_tokens);
  // The token text is the normalized words, one space after each.
  EXPECT_EQ(e->a.token_text, Join(RandomWords(400, 7)) + " ");

  // What scan does with the two files, under each verify setting.
  for (const VerifyMode v : {VerifyMode::kSignature, VerifyMode::kExact, VerifyMode::kNone}) {
    Options scan = o;
    scan.paths = {dir.path()};
    scan.verify = v;
    Result<Report> r = FindDuplicates(scan);
    ASSERT_TRUE(r.ok());
    const bool reported = !r->pairs.empty();
    const bool said = v == VerifyMode::kSignature ? e->reported_signature
                      : v == VerifyMode::kExact   ? e->reported_exact
                                                  : e->reported_none;
    EXPECT_EQ(said, reported) << ToString(v);
    if (reported) {
      EXPECT_NEAR(r->pairs.ToVector()[0].estimate, e->estimate, 1e-12);
    }
  }
}

TEST(ExplainTest, ThresholdDecidesReportingOfACandidate) {
  TempDir dir;
  WritePair(dir, 4);  // J = 376/416 = 0.904
  ExplainInputs in;
  in.a = dir / "a.txt";
  in.b = dir / "b.txt";
  Options o;
  o.threshold = 0.95;
  o.bands = 32;
  o.rows = 2;  // almost surely a candidate
  Result<PairExplanation> e = ExplainPair(o, in);
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->candidate);
  EXPECT_FALSE(e->reported_exact);
  EXPECT_TRUE(e->reported_none);
  o.threshold = 0.85;
  e = ExplainPair(o, in);
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->reported_exact);
}

TEST(ExplainTest, UnrelatedDocumentsAreNotCandidates) {
  TempDir dir;
  WriteFile(dir / "a.txt", Join(RandomWords(300, 1)));
  WriteFile(dir / "b.txt", Join(RandomWords(300, 2)));
  ExplainInputs in;
  in.a = dir / "a.txt";
  in.b = dir / "b.txt";
  Result<PairExplanation> e = ExplainPair(Options{}, in);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->shared_shingles, 0u);
  EXPECT_EQ(e->jaccard, 0);
  EXPECT_TRUE(e->agreeing_bands.empty());
  EXPECT_FALSE(e->candidate);
  EXPECT_FALSE(e->reported_signature || e->reported_exact || e->reported_none);
  EXPECT_LT(e->candidate_probability, 1e-9);
}

TEST(ExplainTest, ExactCopiesAreReportedUnderEverySetting) {
  TempDir dir;
  WriteFile(dir / "a.txt", "Hello, World! " + Join(RandomWords(50, 3)));
  WriteFile(dir / "b.txt", "hello world " + Join(RandomWords(50, 3)));
  ExplainInputs in;
  in.a = dir / "a.txt";
  in.b = dir / "b.txt";
  Result<PairExplanation> e = ExplainPair(Options{}, in);
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->same_tokens);
  EXPECT_EQ(e->jaccard, 1);
  EXPECT_EQ(e->estimate, 1);
  EXPECT_TRUE(e->reported_signature && e->reported_exact && e->reported_none);
}

TEST(ExplainTest, JsonlDocumentsByIdAndByFileLine) {
  TempDir dir;
  const std::string text = Join(RandomWords(100, 5));
  const std::string file = dir / "c.jsonl";
  WriteFile(file, "{\"id\":\"one\",\"text\":\"" + text + "\"}\n" + "not json\n" + "{\"text\":\"" + text +
                      " extra words here\"}\n");
  Options o;
  o.input = InputFormat::kJsonl;
  ExplainInputs in;
  in.jsonl_file = file;
  in.a = "one";
  in.b = file + ":3";
  Result<PairExplanation> e = ExplainPair(o, in);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->a.name, "one");
  EXPECT_EQ(e->b.name, file + ":3");
  EXPECT_EQ(e->a.words, 100u);
  EXPECT_EQ(e->b.words, 103u);
  EXPECT_EQ(e->shared_shingles, 96u);

  in.b = "two";
  e = ExplainPair(o, in);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), Status::Code::kNotFound);
  EXPECT_NE(e.status().message().find("two"), std::string::npos);
  in.b = file + ":2";  // the malformed line
  e = ExplainPair(o, in);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find(":2"), std::string::npos);
}

TEST(ExplainTest, TokenTextIsCappedAtMaxWords) {
  TempDir dir;
  WriteFile(dir / "a.txt", Join(RandomWords(1000, 1)));
  WriteFile(dir / "b.txt", Join(RandomWords(10, 1)));
  ExplainInputs in;
  in.a = dir / "a.txt";
  in.b = dir / "b.txt";
  in.max_words = 10;
  Result<PairExplanation> e = ExplainPair(Options{}, in);
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->a.token_text_capped);
  EXPECT_FALSE(e->b.token_text_capped);
  EXPECT_EQ(e->a.token_text, e->b.token_text);
  EXPECT_EQ(e->a.words, 1000u);  // counts are of the whole document
}

TEST(ExplainTest, MissingFileIsAnError) {
  ExplainInputs in;
  in.a = "/nonexistent/a";
  in.b = "/nonexistent/b";
  Result<PairExplanation> e = ExplainPair(Options{}, in);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("/nonexistent/a"), std::string::npos);
}

TEST(ExplainParamsTest, BandingAndSCurveAreTheScans) {
  Options o;
  o.threshold = 0.7;
  const ParamsExplanation p = ExplainParams(o);
  const Banding b = ChooseBanding(0.7, o.num_perm);
  EXPECT_EQ(p.banding.bands, b.bands);
  EXPECT_EQ(p.banding.rows, b.rows);
  EXPECT_EQ(p.num_perm, 128);
  EXPECT_DOUBLE_EQ(p.threshold, 0.7);
  EXPECT_DOUBLE_EQ(p.approximate_threshold, ApproximateThreshold(b.bands, b.rows));
  ASSERT_EQ(p.curve.size(), 10u);
  EXPECT_DOUBLE_EQ(p.curve[0].similarity, 0.1);
  EXPECT_DOUBLE_EQ(p.curve[9].similarity, 1.0);
  EXPECT_DOUBLE_EQ(p.curve[9].probability, 1.0);
  for (size_t i = 1; i < p.curve.size(); ++i) EXPECT_GE(p.curve[i].probability, p.curve[i - 1].probability);
  EXPECT_GE(p.threshold_probability, kTargetRecall);

  o.bands = 16;
  o.rows = 8;
  const ParamsExplanation given = ExplainParams(o);
  EXPECT_EQ(given.banding.bands, 16);
  EXPECT_EQ(given.banding.rows, 8);
  EXPECT_DOUBLE_EQ(given.threshold_probability, CandidateProbability(0.7, 16, 8));
}

}  // namespace
}  // namespace neardup
