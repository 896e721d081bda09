#include "neardup/scan.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "lsh/banding.h"
#include "lsh/similarity.h"
#include "neardup/writers.h"
#include "sign_fixture.h"
#include "test_util.h"
#include "text/shingle.h"
#include "walk/file_system.h"

namespace neardup {
namespace {

using testing::Edited;
using testing::Join;
using testing::RandomWords;
using testing::TempDir;
using testing::WriteFile;

// Replaces a share `rate` of the words by other words, deterministically.
std::vector<std::string> Edit(std::vector<std::string> words, double rate, uint64_t seed) {
  const auto fresh = RandomWords(words.size(), seed ^ 0xabcdef, 100000);
  uint64_t s = seed;
  for (size_t i = 0; i < words.size(); ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    if (static_cast<double>(s >> 11) / 9007199254740992.0 < rate) words[i] = fresh[i] + "x";
  }
  return words;
}

std::set<std::pair<std::string, std::string>> PairNames(const Report& r) {
  std::set<std::pair<std::string, std::string>> out;
  for (const auto& p : r.pairs) out.insert({r.docs[p.a].name, r.docs[p.b].name});
  return out;
}

Report Scan(Options o) {
  Result<Report> r = FindDuplicates(o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : Report();
}

TEST(PipelineTest, FindsExactCopiesAndLightEditsButNotUnrelatedTexts) {
  TempDir dir;
  const auto base = RandomWords(400, 1);
  WriteFile(dir / "a.txt", Join(base));
  WriteFile(dir / "b_copy.txt", Join(base));
  WriteFile(dir / "c_edit.txt", Join(Edit(base, 0.01, 7)));
  WriteFile(dir / "d_other.txt", Join(RandomWords(400, 2)));
  WriteFile(dir / "e_empty.txt", "  ...  ");
  Options o;
  o.paths = {dir.path()};
  o.verify = VerifyMode::kSignature;
  const Report r = Scan(o);
  const std::string p = dir.path() + "/";
  EXPECT_EQ(PairNames(r), (std::set<std::pair<std::string, std::string>>{{p + "a.txt", p + "b_copy.txt"},
                                                                         {p + "a.txt", p + "c_edit.txt"},
                                                                         {p + "b_copy.txt", p + "c_edit.txt"}}));
  EXPECT_EQ(r.stats.documents, 4u);
  EXPECT_EQ(r.stats.empty, 1u);
  EXPECT_EQ(r.stats.exact_duplicates, 1u);
  for (const auto& pair : r.pairs) {
    EXPECT_LT(r.docs[pair.a].name, r.docs[pair.b].name);
    EXPECT_LT(pair.jaccard, 0);  // not computed with --verify signature
  }
}

TEST(PipelineTest, ExactVerificationReportsTrueJaccard) {
  TempDir dir;
  const auto base = RandomWords(600, 3);
  const std::string a = Join(base);
  const std::string b = Join(Edit(base, 0.02, 9));
  WriteFile(dir / "a.txt", a);
  WriteFile(dir / "b.txt", b);
  Options o;
  o.paths = {dir.path()};
  o.verify = VerifyMode::kExact;
  const Report r = Scan(o);
  ASSERT_EQ(r.pairs.size(), 1u);
  const double truth = ExactJaccard(ShingleSet(a, ShingleUnit::kWord, 5, 1), ShingleSet(b, ShingleUnit::kWord, 5, 1));
  const ReportedPair pair = *r.pairs.begin();
  EXPECT_DOUBLE_EQ(pair.jaccard, truth);
  EXPECT_NEAR(pair.estimate, truth, 0.15);
}

// Brute force: every pair with exact Jaccard >= threshold, found by comparing
// all pairs, must be reported by --verify exact, except pairs the S-curve lets
// LSH miss; nothing else may be reported.
TEST(PipelineTest, ExactModeEqualsBruteForceUpToLshMisses) {
  TempDir dir;
  std::vector<std::string> texts;
  for (int b = 0; b < 80; ++b) {
    const auto base = RandomWords(150 + static_cast<size_t>(b % 5) * 60, 100 + static_cast<uint64_t>(b), 3000);
    texts.push_back(Join(base));
    for (int v = 0; v < 3; ++v) {
      const double rate = 0.01 + 0.03 * ((b * 3 + v) % 8);  // 1% .. 22% of words edited
      texts.push_back(Join(Edit(base, rate, static_cast<uint64_t>(b * 10 + v))));
    }
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < texts.size(); ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "doc%04zu.txt", i);
    names.push_back(dir / name);
    WriteFile(names.back(), texts[i]);
  }
  Options o;
  o.paths = {dir.path()};
  o.verify = VerifyMode::kExact;
  o.threshold = 0.7;
  const Report r = Scan(o);
  const Banding banding{r.params.bands, r.params.rows};

  std::vector<std::vector<uint64_t>> sets;
  for (const auto& t : texts) sets.push_back(ShingleSet(t, ShingleUnit::kWord, 5, 1));
  std::set<std::pair<std::string, std::string>> truth;
  double expected_misses = 0;
  for (size_t i = 0; i < sets.size(); ++i) {
    for (size_t j = i + 1; j < sets.size(); ++j) {
      const double jac = ExactJaccard(sets[i], sets[j]);
      if (!MeetsThreshold(jac, o.threshold)) continue;
      truth.insert({names[i], names[j]});
      expected_misses += 1 - CandidateProbability(jac, banding.bands, banding.rows);
    }
  }
  const auto found = PairNames(r);
  ASSERT_GT(truth.size(), 40u);
  for (const auto& f : found) EXPECT_TRUE(truth.count(f)) << f.first << " " << f.second;
  size_t missed = 0;
  for (const auto& t : truth) missed += found.count(t) ? 0 : 1;
  // Expected misses are well under one here; allow 2.
  EXPECT_LT(expected_misses, 1.0);
  EXPECT_LE(missed, 2u) << "expected about " << expected_misses;
}

TEST(PipelineTest, ThreadCountDoesNotChangeTheOutput) {
  TempDir dir;
  for (int b = 0; b < 40; ++b) {
    const auto base = RandomWords(200, 500 + static_cast<uint64_t>(b));
    char sub[32];
    std::snprintf(sub, sizeof sub, "d%02d/", b);
    const std::string d = dir / sub;
    WriteFile(d + "x.txt", Join(base));
    auto edited = base;
    edited[50] = "edited";  // one word: 5 of 196 shingles change, J = 191/201
    WriteFile(d + "y.txt", Join(edited));
    WriteFile(d + "z.txt", Join(base));
  }
  std::string outputs[3];
  int i = 0;
  for (int threads : {1, 2, 4}) {
    Options o;
    o.paths = {dir.path()};
    o.threads = threads;
    o.verify = VerifyMode::kExact;
    std::ostringstream out;
    WriteJson(Scan(o), out);
    outputs[i++] = out.str();
  }
  EXPECT_EQ(outputs[0], outputs[1]);
  EXPECT_EQ(outputs[0], outputs[2]);
  EXPECT_EQ(nlohmann::json::parse(outputs[0])["stats"]["pairs"], 120);  // 40 x {x, y, z}
}

// A file system that fails for one path, to test the error path as root.
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

TEST(PipelineTest, UnreadableFileIsRecordedAndTheRestIsReported) {
  TempDir dir;
  const auto base = RandomWords(300, 77);
  WriteFile(dir / "a.txt", Join(base));
  WriteFile(dir / "b.txt", Join(base));
  WriteFile(dir / "c.txt", Join(base));
  FailingFs fs(dir / "b.txt");
  RunContext ctx;
  ctx.fs = &fs;
  Options o;
  o.paths = {dir.path(), dir / "missing"};
  Result<Report> r = FindDuplicates(o, ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(PairNames(*r), (std::set<std::pair<std::string, std::string>>{{dir / "a.txt", dir / "c.txt"}}));
  EXPECT_EQ(r->stats.unreadable, 2u);
  ASSERT_EQ(r->problems.size(), 2u);
  std::string all;
  for (const auto& p : r->problems) all += p.message() + "\n";
  EXPECT_NE(all.find(dir / "b.txt: Permission denied"), std::string::npos) << all;
  EXPECT_NE(all.find(dir / "missing"), std::string::npos) << all;
}

// The core library never writes to stdout or stderr, even on bad input.
TEST(PipelineTest, CoreLibraryNeverPrints) {
  TempDir dir;
  const auto base = RandomWords(300, 5);
  WriteFile(dir / "a.txt", Join(base));
  WriteFile(dir / "b.txt", Join(base));
  WriteFile(dir / "bin.dat", std::string("\x00\x01\x02", 3));
  WriteFile(dir / "bad.txt", "caf\xe9 \xff\xfe oops");
  WriteFile(dir / "lines.jsonl", "{\"text\": \"hello there\"}\nnot json\n");
  const std::string capture = dir / "captured";
  fflush(stdout);
  fflush(stderr);
  const int saved_out = dup(1), saved_err = dup(2);
  FILE* f = fopen(capture.c_str(), "w");
  dup2(fileno(f), 1);
  dup2(fileno(f), 2);
  for (InputFormat input : {InputFormat::kText, InputFormat::kJsonl}) {
    Options o;
    o.paths = {dir.path(), dir / "missing"};
    o.input = input;
    o.verify = VerifyMode::kExact;
    o.mode = Mode::kClusters;
    auto r = FindDuplicates(o);
    (void)r.ok();
  }
  fflush(stdout);
  fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  fclose(f);
  EXPECT_EQ(testing::ReadFile(capture), "");
}

TEST(PipelineTest, ClustersModeGroupsCopiesAndKeepsTheFirst) {
  TempDir dir;
  const auto base = RandomWords(300, 8);
  WriteFile(dir / "b.txt", Join(base));
  WriteFile(dir / "a.txt", Join(Edit(base, 0.01, 3)));
  WriteFile(dir / "c.txt", Join(base));
  WriteFile(dir / "z.txt", Join(RandomWords(300, 9)));
  Options o;
  o.paths = {dir.path()};
  o.mode = Mode::kClusters;
  const Report r = Scan(o);
  ASSERT_EQ(r.clusters.size(), 1u);
  EXPECT_EQ(r.docs[r.clusters[0].keep].name, dir / "a.txt");
  EXPECT_EQ(r.clusters[0].members.size(), 3u);
  EXPECT_EQ(r.removable.size(), 2u);
}

// --verify none takes every candidate, so C (about 0.33 like A) joins A and
// B's component; --cluster-by keep then compares each member with the kept
// document by signature, and C is not in A's cluster.
TEST(FindDuplicatesTest, ClusterByKeepWithVerifyNoneComparesBySignature) {
  TempDir dir;
  const auto words = RandomWords(2000, 5);
  WriteFile(dir / "a.txt", Join(words));
  WriteFile(dir / "b.txt", Edited(words, 100));
  WriteFile(dir / "c.txt", Edited(words, 10));
  Options o;
  o.paths = {dir.path()};
  o.verify = VerifyMode::kNone;
  o.bands = 64;
  o.rows = 2;
  o.mode = Mode::kClusters;
  o.cluster_by = ClusterBy::kConnected;
  Result<Report> connected = FindDuplicates(o);
  ASSERT_TRUE(connected.ok());
  ASSERT_EQ(connected->clusters.size(), 1u);
  EXPECT_EQ(connected->clusters[0].members.size(), 3u);
  o.cluster_by = ClusterBy::kKeep;
  Result<Report> kept = FindDuplicates(o);
  ASSERT_TRUE(kept.ok());
  ASSERT_EQ(kept->clusters.size(), 1u);
  ASSERT_EQ(kept->clusters[0].members.size(), 2u);
  EXPECT_EQ(kept->docs[kept->clusters[0].members[1]].name, dir / "b.txt");
}

TEST(FindDuplicatesTest, CancelFromTheProgressCallbackStopsTheRun) {
  TempDir dir;
  for (int i = 0; i < 2000; ++i)
    WriteFile(dir / testing::Numbered("f", i), Join(RandomWords(50, static_cast<uint64_t>(i))));
  Options o;
  o.paths = {dir.path()};
  o.threads = 1;
  std::atomic<bool> cancel{false};
  RunContext ctx;
  ctx.cancel = &cancel;
  ctx.progress = [&](const Progress& p) {
    if (p.stage == Stage::kReading) cancel = true;
  };
  Result<Report> r = FindDuplicates(o, ctx);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kCancelled);
}

}  // namespace
}  // namespace neardup
