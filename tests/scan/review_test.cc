// BuildReview and ReviewWithoutTexts: the groups follow the report, and each
// member has a diff against its kept document or a note saying why not.
#include "scan/review.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "neardup/scan.h"
#include "neardup/writers.h"
#include "test_util.h"
#include "verify/kept_texts.h"

namespace neardup {
namespace {

using testing::Join;
using testing::Numbered;
using testing::RandomWords;
using testing::TempDir;
using testing::WriteFile;

// a.txt, b.txt (two words replaced), c.txt (a copy of a): one cluster of three.
void WriteTrio(const TempDir& dir) {
  std::vector<std::string> w = RandomWords(300, 21);
  WriteFile(dir / "a.txt", Join(w));
  WriteFile(dir / "c.txt", Join(w));
  w[100] = "alpha";
  w[200] = "omega";
  WriteFile(dir / "b.txt", Join(w));
}

Report Scan(const Options& o) {
  Result<Report> r = FindDuplicates(o, RunContext{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(*r) : Report{};
}

class FailingFs : public FileSystem {
 public:
  explicit FailingFs(std::string bad) : bad_(std::move(bad)) {}
  Result<std::unique_ptr<ByteReader>> Open(const std::string& path) override {
    if (path == bad_) return Status::IoError(path + ": Permission denied");
    return FileSystem::Default().Open(path);
  }
  Result<FileStat> Stat(const std::string& path) override { return FileSystem::Default().Stat(path); }

 private:
  std::string bad_;
};

TEST(ReviewTest, PairsHaveTheirSimilarityAndAFoldedDiff) {
  TempDir dir;
  WriteTrio(dir);
  Options o;
  o.paths = {dir.path()};
  o.verify = VerifyMode::kExact;
  const Report report = Scan(o);
  ASSERT_EQ(report.pairs.size(), 3u);
  const Review review = BuildReview(report, o, 20000);
  EXPECT_TRUE(review.texts_read);
  ASSERT_EQ(review.groups.size(), 3u);
  size_t i = 0;
  for (const ReportedPair& pair : report.pairs) {
    const ReviewGroup& g = review.groups[i];
    EXPECT_EQ(g.id, i++);
    EXPECT_EQ(g.keep, pair.a);
    ASSERT_EQ(g.members.size(), 1u);
    EXPECT_EQ(g.members[0].doc, pair.b);
    EXPECT_DOUBLE_EQ(g.members[0].similarity, pair.jaccard);
    EXPECT_FALSE(g.members[0].capped);
    if (pair.jaccard == 1.0) {  // a.txt and c.txt, copies: nothing to show
      EXPECT_FALSE(g.members[0].diff.has_value());
      EXPECT_EQ(g.members[0].note, "no diff: the same words (a copy)");
    } else {
      ASSERT_TRUE(g.members[0].diff.has_value());
      EXPECT_TRUE(g.members[0].note.empty());
    }
  }
  // a.txt and b.txt: two replaced words between folded unchanged stretches.
  const std::vector<FoldedRun>& diff = *review.groups[0].members[0].diff;
  int changes = 0, skipped = 0;
  for (const FoldedRun& run : diff) {
    changes += run.kind == FoldedRun::Kind::kRemoved || run.kind == FoldedRun::Kind::kAdded ? 1 : 0;
    skipped += run.kind == FoldedRun::Kind::kSkipped ? 1 : 0;
  }
  EXPECT_EQ(changes, 4);
  EXPECT_EQ(skipped, 3);
}

// Pairs mode: a pair the scan proved (its exact Jaccard reported) is judged
// by that Jaccard; a pair passed on its estimate alone (--verify signature)
// is judged by the exact Jaccard of its texts read again.
TEST(ReviewTest, APairIsUnlikeTheKeptOneWhenItsExactJaccardIsUnderTheThreshold) {
  TempDir dir;
  std::vector<std::string> w = RandomWords(400, 29);
  WriteFile(dir / "a.txt", Join(w));
  for (size_t i = 5; i < w.size(); i += 25) w[i] = "changed" + std::to_string(i);
  WriteFile(dir / "b.txt", Join(w));
  Options o;
  o.paths = {dir.path()};
  o.threshold = 0.5;
  o.verify = VerifyMode::kExact;
  Report report = Scan(o);
  ASSERT_EQ(report.pairs.size(), 1u);
  ReportedPair pair = report.pairs.ToVector()[0];
  const double jaccard = pair.jaccard;
  ASSERT_GT(jaccard, 0.5);
  ASSERT_LT(jaccard, 0.7);
  Review review = BuildReview(report, o, 20000);
  EXPECT_DOUBLE_EQ(review.groups[0].members[0].similarity, jaccard);
  EXPECT_FALSE(review.groups[0].members[0].unlike_kept);
  ASSERT_TRUE(review.groups[0].members[0].diff.has_value());
  pair.jaccard = 0.45;  // as if the texts had been proved under it
  report.pairs = SortedPairs{pair};
  review = BuildReview(report, o, 20000);
  EXPECT_DOUBLE_EQ(review.groups[0].members[0].similarity, 0.45);
  EXPECT_TRUE(review.groups[0].members[0].unlike_kept);

  o.verify = VerifyMode::kSignature;
  report = Scan(o);
  ASSERT_EQ(report.pairs.size(), 1u);
  pair = report.pairs.ToVector()[0];
  ASSERT_LT(pair.jaccard, 0);
  review = BuildReview(report, o, 20000);
  EXPECT_FALSE(review.groups[0].members[0].unlike_kept);
  // Judged at 0.7 (as an estimate over 0.7 would have passed it), the texts
  // read again are under it.
  o.threshold = 0.7;
  review = BuildReview(report, o, 20000);
  EXPECT_DOUBLE_EQ(review.groups[0].members[0].similarity, pair.estimate);
  EXPECT_TRUE(review.groups[0].members[0].unlike_kept);
}

TEST(ReviewTest, ClusterMemberThatCannotBeReadAgainHasANoteAndNoSimilarity) {
  TempDir dir;
  WriteTrio(dir);
  Options o;
  o.paths = {dir.path()};
  o.mode = Mode::kClusters;
  const Report report = Scan(o);
  ASSERT_EQ(report.clusters.size(), 1u);
  FailingFs fs(dir / "b.txt");
  const Review review = BuildReview(report, o, 20000, fs);
  ASSERT_EQ(review.groups.size(), 1u);
  const ReviewGroup& g = review.groups[0];
  EXPECT_EQ(g.keep, report.clusters[0].keep);
  ASSERT_EQ(g.members.size(), 2u);
  for (const ReviewMember& m : g.members) {
    if (report.docs[m.doc].name == dir / "b.txt") {
      EXPECT_FALSE(m.diff.has_value());
      EXPECT_LT(m.similarity, 0);
      EXPECT_EQ(m.note, "no diff: " + (dir / "b.txt") + ": Permission denied");
    } else {
      EXPECT_FALSE(m.diff.has_value());
      EXPECT_EQ(m.note, "no diff: the same words (a copy)");
      EXPECT_DOUBLE_EQ(m.similarity, 1.0);  // a copy
    }
  }
  // Most similar first, an unknown similarity last.
  EXPECT_EQ(report.docs[g.members.back().doc].name, dir / "b.txt");
}

TEST(ReviewTest, ClusterMembersComeMostSimilarToTheKeptFirst) {
  TempDir dir;
  std::vector<std::string> w = RandomWords(300, 5);
  WriteFile(dir / "a.txt", Join(w));
  for (const char* name : {"b.txt", "c.txt", "d.txt"}) {
    // b: 3 words changed, c: 1, d: 2; by name b, c, d, by similarity c, d, b.
    const int changes = name[0] == 'b' ? 3 : name[0] == 'c' ? 1 : 2;
    std::vector<std::string> v = w;
    for (int k = 0; k < changes; ++k) v[static_cast<size_t>(50 + 80 * k)] = "changed" + std::to_string(k);
    WriteFile(dir / name, Join(v));
  }
  Options o;
  o.paths = {dir.path()};
  o.mode = Mode::kClusters;
  const Report report = Scan(o);
  ASSERT_EQ(report.clusters.size(), 1u);
  const Review review = BuildReview(report, o, 20000);
  ASSERT_EQ(review.groups.size(), 1u);
  const ReviewGroup& g = review.groups[0];
  EXPECT_EQ(report.docs[g.keep].name, dir / "a.txt");
  ASSERT_EQ(g.members.size(), 3u);
  std::vector<std::string> names;
  for (const ReviewMember& m : g.members) names.push_back(report.docs[m.doc].name);
  EXPECT_EQ(names, (std::vector<std::string>{dir / "c.txt", dir / "d.txt", dir / "b.txt"}));
  EXPECT_GT(g.members[0].similarity, g.members[1].similarity);
  EXPECT_GT(g.members[1].similarity, g.members[2].similarity);
  for (const ReviewMember& m : g.members) EXPECT_TRUE(m.diff.has_value());
}

TEST(ReviewTest, ClustersComeLargestFirstAndAReportWithoutPlacesReadsNothing) {
  Report report;
  report.params.mode = Mode::kClusters;
  for (const char* name : {"d0", "d1", "d2", "d3", "d4"}) report.docs.push_back({name, 1, 0, false});
  report.clusters = {{0, 0, {0, 1}}, {1, 2, {2, 3, 4}}};
  Options o;
  o.input = InputFormat::kJsonl;
  const Review review = BuildReview(report, o);
  EXPECT_FALSE(review.texts_read);
  ASSERT_EQ(review.groups.size(), 2u);
  EXPECT_EQ(review.groups[0].id, 1u);
  EXPECT_EQ(review.groups[0].keep, 2u);
  ASSERT_EQ(review.groups[0].members.size(), 2u);
  EXPECT_EQ(review.groups[0].members[0].doc, 3u);
  EXPECT_EQ(review.groups[1].id, 0u);
  for (const ReviewGroup& g : review.groups) {
    for (const ReviewMember& m : g.members) {
      EXPECT_FALSE(m.diff.has_value());
      EXPECT_EQ(m.note, "no diff: the documents were not read again");
    }
  }
}

// --relation contains|both, texts not read: a removable document contained
// in the kept one is not marked unlike it for its low Jaccard; one that is
// not contained and under the threshold is.
TEST(ReviewTest, AContainedMemberIsNotUnlikeTheKeptOneForItsLowJaccard) {
  Report report;
  report.params.mode = Mode::kClusters;
  report.params.relation = Relation::kBoth;
  report.params.threshold = 0.8;
  for (const char* name : {"host", "quote", "other"}) report.docs.push_back({name, 1, 0, false});
  report.docs[1].contained = true;
  report.clusters = {{0, 0, {0, 1, 2}}};
  report.removable = {{.doc = 1, .kept = 0, .estimate = 0.3, .jaccard = 0.3},
                      {.doc = 2, .kept = 0, .estimate = 0.3, .jaccard = 0.3}};
  const Review review = ReviewWithoutTexts(report);
  ASSERT_EQ(review.groups.size(), 1u);
  ASSERT_EQ(review.groups[0].members.size(), 2u);
  EXPECT_FALSE(review.groups[0].members[0].unlike_kept);
  EXPECT_TRUE(review.groups[0].members[1].unlike_kept);
}

// JSONL: a.jsonl holds a and b (two words replaced); reviewed in clusters mode.
Options JsonlOptions(const TempDir& dir) {
  std::vector<std::string> w = RandomWords(300, 23);
  const std::string a = "{\"id\":\"a\",\"text\":\"" + Join(w) + "\"}\n";
  w[100] = "alpha";
  w[200] = "omega";
  const std::string b = "{\"id\":\"b\",\"text\":\"" + Join(w) + "\"}\n";
  WriteFile(dir / "d.jsonl", a + b);
  Options o;
  o.paths = {dir / "d.jsonl"};
  o.input = InputFormat::kJsonl;
  o.mode = Mode::kClusters;
  o.doc_places = true;
  return o;
}

// The page's moving counter: told after each batch of groups, text and
// JSONL alike (one batch here; many below).
TEST(ReviewTest, ProgressIsToldAfterEachBatch) {
  TempDir dir;
  WriteTrio(dir);
  Options o;
  o.paths = {dir.path()};
  const Report report = Scan(o);
  ASSERT_EQ(report.pairs.size(), 3u);
  std::vector<std::pair<uint64_t, uint64_t>> told;
  const Review review =
      BuildReview(report, o, 20000, [&told](uint64_t done, uint64_t total) { told.emplace_back(done, total); });
  ASSERT_EQ(review.groups.size(), 3u);
  EXPECT_EQ(told, (std::vector<std::pair<uint64_t, uint64_t>>{{3, 3}}));

  TempDir jdir;
  Options j = JsonlOptions(jdir);
  const Report jreport = Scan(j);
  told.clear();
  BuildReview(jreport, j, 20000, [&told](uint64_t done, uint64_t total) { told.emplace_back(done, total); });
  EXPECT_EQ(told, (std::vector<std::pair<uint64_t, uint64_t>>{{1, 1}}));
}

// `pairs` pairs of files in `dir`, one word apart (reported at -t 0.5): the
// options that scan them at that threshold.
Options EditedPairs(const TempDir& dir, int pairs, uint32_t seed) {
  for (int k = 0; k < pairs; ++k) {
    std::vector<std::string> words = RandomWords(40, seed + static_cast<uint32_t>(k));
    WriteFile(dir / Numbered("a", k), Join(words));
    words[k % 40] = "edited";
    WriteFile(dir / Numbered("b", k), Join(words));
  }
  Options o;
  o.paths = {dir.path()};
  o.threshold = 0.5;
  return o;
}

// 700 pairs of files, 1,400 documents (one word apart: reported at -t 0.5):
// more than one batch. The batches, in
// order, are the review BuildReview gives (the same groups, members,
// similarities, diffs and notes), whatever the threads; progress is told
// once a batch, growing to the total.
TEST(ReviewTest, TheReviewInBatchesIsTheWholeReview) {
  TempDir dir;
  Options o = EditedPairs(dir, 700, 7000);
  const Report report = Scan(o);
  ASSERT_GE(report.pairs.size(), 600u);  // more than a batch's 512 documents
  const Review whole = BuildReview(report, o, 20000);
  for (const int threads : {1, 3}) {
    o.threads = threads;
    std::vector<ReviewGroup> groups;
    size_t batches = 0;
    std::vector<uint64_t> told;
    const Review facts = BuildReviewInBatches(
        report, o, 20000,
        [&](std::vector<ReviewGroup>& batch) {
          ++batches;
          for (ReviewGroup& g : batch) groups.push_back(std::move(g));
        },
        [&told, &report](uint64_t done, uint64_t total) {
          EXPECT_EQ(total, report.pairs.size());
          told.push_back(done);
        });
    EXPECT_TRUE(facts.groups.empty());
    EXPECT_TRUE(facts.texts_read);
    EXPECT_GE(batches, 2u) << threads;
    ASSERT_EQ(told.size(), batches);
    EXPECT_TRUE(std::is_sorted(told.begin(), told.end()));
    EXPECT_EQ(told.back(), report.pairs.size());
    ASSERT_EQ(groups.size(), whole.groups.size());
    for (size_t i = 0; i < groups.size(); ++i) {
      ASSERT_EQ(groups[i].keep, whole.groups[i].keep);
      ASSERT_EQ(groups[i].members.size(), 1u);
      const ReviewMember& m = groups[i].members[0];
      const ReviewMember& w = whole.groups[i].members[0];
      EXPECT_EQ(m.doc, w.doc);
      EXPECT_EQ(m.similarity, w.similarity);
      EXPECT_EQ(m.note, w.note);
      ASSERT_TRUE(m.diff.has_value()) << m.note;
      ASSERT_EQ(m.diff->size(), w.diff->size());
      for (size_t r = 0; r < m.diff->size(); ++r) EXPECT_EQ((*m.diff)[r].text, (*w.diff)[r].text);
    }
  }
}

// The page's data past what is held goes to a temporary file: the page is
// the same, byte for byte, whether all, some or none of it is held.
TEST(ReviewTest, ThePageIsTheSameWhateverItHolds) {
  TempDir dir;
  const Options o = EditedPairs(dir, 600, 9000);
  const Report report = Scan(o);
  ASSERT_GE(report.pairs.size(), 550u);  // more than one batch
  auto page = [&](uint64_t held_bytes) {
    HtmlReview html(report, 2, held_bytes);
    Status added = Status::Ok();
    const Review facts = BuildReviewInBatches(report, o, 20000, [&](std::vector<ReviewGroup>& batch) {
      if (added.ok()) added = html.Add(batch);
    });
    EXPECT_TRUE(added.ok()) << added.message();
    std::ostringstream out;
    const Status written = html.Write(facts, out);
    EXPECT_TRUE(written.ok()) << written.message();
    return out.str();
  };
  const std::string whole = page(UINT64_MAX);
  EXPECT_GT(whole.size(), 100000u);
  EXPECT_NE(whole.find("\"groups\":[{"), std::string::npos);
  EXPECT_EQ(page(0), whole);
  EXPECT_EQ(page(whole.size() / 3), whole);
  std::ostringstream direct;
  WriteHtml(report, BuildReview(report, o, 20000), direct);
  EXPECT_EQ(direct.str(), whole);
  // A temporary file that cannot be made: Add() says so, naming the folder.
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string saved = tmpdir != nullptr ? tmpdir : "";
  ::setenv("TMPDIR", (dir / "missing").c_str(), 1);
  HtmlReview html(report, 1, 0);
  const Status added = html.Add(ReviewWithoutTexts(report).groups);
  if (tmpdir != nullptr) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  EXPECT_EQ(added.code(), Status::Code::kIoError);
  EXPECT_NE(added.message().find("missing"), std::string::npos) << added.message();
}

// Only a run for the page keeps the places (32 bytes a document).
TEST(ReviewTest, JsonlPlacesAreKeptOnlyWhenAsked) {
  TempDir dir;
  Options o = JsonlOptions(dir);
  EXPECT_EQ(Scan(o).places.size(), 2u);
  o.doc_places = false;
  const Report report = Scan(o);
  EXPECT_TRUE(report.places.empty());
  EXPECT_FALSE(BuildReview(report, o, 20000).texts_read);
}

TEST(ReviewTest, JsonlDocumentsAreReadAgainByTheirPlace) {
  TempDir dir;
  const Options o = JsonlOptions(dir);
  const Report report = Scan(o);
  ASSERT_EQ(report.clusters.size(), 1u);
  const Review review = BuildReview(report, o, 20000);
  EXPECT_TRUE(review.texts_read);
  ASSERT_EQ(review.groups.size(), 1u);
  ASSERT_EQ(review.groups[0].members.size(), 1u);
  const ReviewMember& m = review.groups[0].members[0];
  EXPECT_EQ(report.docs[m.doc].name, "b");
  EXPECT_GT(m.similarity, 0.9);
  ASSERT_TRUE(m.diff.has_value()) << m.note;
}

TEST(ReviewTest, AJsonlLineNotAsSignedIsNotShown) {
  TempDir dir;
  const Options o = JsonlOptions(dir);
  Report report = Scan(o);
  ASSERT_EQ(report.clusters.size(), 1u);
  // The file keeps its stat key, but b's line no longer hashes as signed.
  const DocId b = report.docs[0].name == "b" ? 0 : 1;
  report.places[b].content_low ^= 1;
  Review review = BuildReview(report, o, 20000);
  ASSERT_EQ(review.groups[0].members.size(), 1u);
  EXPECT_FALSE(review.groups[0].members[0].diff.has_value());
  EXPECT_EQ(review.groups[0].members[0].similarity, -1);
  EXPECT_NE(review.groups[0].members[0].note.find("d.jsonl:2: changed since it was signed"), std::string::npos)
      << review.groups[0].members[0].note;
  // A file rewritten since signing: nothing of it is shown.
  report.places[b].content_low ^= 1;
  WriteFile(dir / "d.jsonl", testing::ReadFile(dir / "d.jsonl") + "{\"id\":\"x\",\"text\":\"more\"}\n");
  review = BuildReview(report, o, 20000);
  EXPECT_FALSE(review.groups[0].members[0].diff.has_value());
  EXPECT_NE(review.groups[0].members[0].note.find("changed during the run"), std::string::npos)
      << review.groups[0].members[0].note;
}

// Two reviews' groups: the same members, similarities, notes and diffs.
void ExpectSameGroups(const Review& got, const Review& want, const std::string& what) {
  ASSERT_EQ(got.groups.size(), want.groups.size()) << what;
  for (size_t i = 0; i < got.groups.size(); ++i) {
    ASSERT_EQ(got.groups[i].keep, want.groups[i].keep) << what;
    ASSERT_EQ(got.groups[i].members.size(), want.groups[i].members.size()) << what;
    for (size_t k = 0; k < got.groups[i].members.size(); ++k) {
      const ReviewMember& m = got.groups[i].members[k];
      const ReviewMember& w = want.groups[i].members[k];
      EXPECT_EQ(m.doc, w.doc) << what;
      EXPECT_EQ(m.similarity, w.similarity) << what;
      EXPECT_EQ(m.unlike_kept, w.unlike_kept) << what;
      EXPECT_EQ(m.capped, w.capped) << what << ", group " << i;
      EXPECT_EQ(m.note, w.note) << what;
      ASSERT_EQ(m.diff.has_value(), w.diff.has_value()) << what;
      if (!m.diff.has_value()) continue;
      ASSERT_EQ(m.diff->size(), w.diff->size()) << what << ", group " << i;
      for (size_t r = 0; r < m.diff->size(); ++r) {
        EXPECT_EQ(static_cast<int>((*m.diff)[r].kind), static_cast<int>((*w.diff)[r].kind)) << what;
        EXPECT_EQ((*m.diff)[r].text, (*w.diff)[r].text) << what;
        EXPECT_EQ((*m.diff)[r].words, (*w.diff)[r].words) << what;
      }
    }
  }
}

// A run for the page (Options::keep_texts) keeps the token texts exact
// verification read, and the review of pairs shows them: the same review as
// the texts read again gives, capped or not, files and JSONL alike.
TEST(ReviewTest, TheTextsVerificationReadGiveTheReviewOfTheTextsReadAgain) {
  TempDir dir;
  WriteTrio(dir);
  std::vector<std::string> w = RandomWords(900, 31);
  WriteFile(dir / "long1.txt", Join(w) + "  \n\t ");
  for (size_t i = 3; i < w.size(); i += 60) w[i] = "Edited";
  WriteFile(dir / "long2.txt", Join(w));
  Options o;
  o.paths = {dir.path()};
  o.keep_texts = true;
  Report report = Scan(o);
  ASSERT_EQ(report.pairs.size(), 4u);
  ASSERT_NE(report.kept_texts, nullptr);
  EXPECT_EQ(report.kept_texts->size(), 5u);
  std::shared_ptr<const KeptTexts> kept = report.kept_texts;
  for (const uint64_t max_words : {uint64_t{20000}, uint64_t{900}, uint64_t{899}, uint64_t{150}, uint64_t{1}}) {
    report.kept_texts = kept;
    const Review shown = BuildReview(report, o, max_words);
    EXPECT_TRUE(shown.texts_proved);
    report.kept_texts = nullptr;
    const Review read_again = BuildReview(report, o, max_words);
    EXPECT_FALSE(read_again.texts_proved);
    ExpectSameGroups(shown, read_again, "files, " + std::to_string(max_words) + " words");
  }

  TempDir jdir;
  Options j = JsonlOptions(jdir);
  j.mode = Mode::kPairs;
  j.keep_texts = true;
  Report jreport = Scan(j);
  ASSERT_EQ(jreport.pairs.size(), 1u);
  ASSERT_NE(jreport.kept_texts, nullptr);
  const Review shown = BuildReview(jreport, j, 20000);
  ASSERT_TRUE(shown.groups[0].members[0].diff.has_value());
  jreport.kept_texts = nullptr;
  ExpectSameGroups(shown, BuildReview(jreport, j, 20000), "JSONL");
}

// The page shows a pair as verification proved it, even once a file is gone
// or a line rewritten since; without the kept texts, it could not.
TEST(ReviewTest, AKeptTextIsShownWhenItsDocumentIsGone) {
  TempDir dir;
  WriteTrio(dir);
  Options o;
  o.paths = {dir.path()};
  o.keep_texts = true;
  Report report = Scan(o);
  ASSERT_EQ(report.pairs.size(), 3u);
  std::filesystem::remove(dir / "b.txt");
  // b.txt is in two of the pairs (a.txt and c.txt are copies).
  auto shown_with_b = [&](const Review& review) {
    size_t n = 0;
    for (const ReviewGroup& g : review.groups) {
      const bool with_b =
          report.docs[g.keep].name.ends_with("b.txt") || report.docs[g.members[0].doc].name.ends_with("b.txt");
      n += with_b && g.members[0].diff.has_value() ? 1 : 0;
    }
    return n;
  };
  EXPECT_EQ(shown_with_b(BuildReview(report, o, 20000)), 2u);
  report.kept_texts = nullptr;
  EXPECT_EQ(shown_with_b(BuildReview(report, o, 20000)), 0u);

  // Verification with a signature alone reads nothing: nothing is kept.
  o.verify = VerifyMode::kSignature;
  TempDir other;
  WriteTrio(other);
  o.paths = {other.path()};
  EXPECT_EQ(Scan(o).kept_texts, nullptr);
}

}  // namespace
}  // namespace neardup
