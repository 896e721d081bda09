// End to end: with --relation contains|both, `neardup stage
// sign|bucket|verify|report` give scan's bytes, exit status and messages in
// every mode and format, with --verify exact and signature, over text files
// and over a JSONL file split between sign shards; `stage filter` writes the
// folder scan --kept-dir writes (the contained documents left out); and a
// work folder made with other relation options is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "distributed/format/bucket_pairs.h"
#include "distributed/format/shard_meta.h"
#include "e2e/run_neardup.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunResult;
using testing::TempDir;
using testing::With;
using testing::WriteFile;

using Args = std::vector<std::string>;

// The words [from, from + count) of `words`.
std::vector<std::string> Excerpt(const std::vector<std::string>& words, size_t from, size_t count) {
  return {words.begin() + static_cast<ptrdiff_t>(from), words.begin() + static_cast<ptrdiff_t>(from + count)};
}

// Texts with real containment: per container, an excerpt placed inside it
// (of 1/2 to 1/6 of its words), an excerpt with one word changed, for some a
// copy and a near copy of the container; and unrelated texts.
std::vector<std::vector<std::string>> ContainedTexts() {
  std::vector<std::vector<std::string>> out;
  for (size_t c = 0; c < 8; ++c) {
    const auto words = RandomWords(600 + 40 * c, 300 + c);
    out.push_back(words);
    const size_t length = words.size() / (2 + c % 5);
    out.push_back(Excerpt(words, 17 * c, length));
    auto changed = Excerpt(words, 40 + 5 * c, length);
    changed[length / 2] = "changed";
    out.push_back(changed);
    if (c % 3 == 0) {
      out.push_back(words);
      auto near = words;
      near[100] = "edited";
      out.push_back(near);
    }
  }
  for (size_t u = 0; u < 12; ++u) out.push_back(RandomWords(250, 900 + u));
  return out;
}

// ContainedTexts() as text files below dir/in.
void MakeTextCorpus(const TempDir& dir) {
  const auto texts = ContainedTexts();
  for (size_t k = 0; k < texts.size(); ++k)
    WriteFile(dir / ("in/t" + std::to_string(100 + k) + ".txt"), Join(texts[k]));
}

// ContainedTexts() as one JSONL file, dir/in/c.jsonl, each text twice over
// the file (the second time with a word added), so that a container and what
// it contains fall in different shares.
void MakeJsonlCorpus(const TempDir& dir) {
  const auto texts = ContainedTexts();
  std::string lines;
  for (int round = 0; round < 2; ++round) {
    for (size_t k = 0; k < texts.size(); ++k) {
      auto words = texts[k];
      if (round == 1) words.push_back("again");
      lines.append(R"({"id": "d)").append(std::to_string(round * 100 + static_cast<int>(k)));
      lines.append(R"(", "text": ")").append(Join(words)).append("\"}\n");
    }
  }
  ASSERT_GT(lines.size(), size_t{3} << 16);  // shared by bytes (64 KiB and more)
  WriteFile(dir / "in/c.jsonl", lines);
}

// Runs N sign tasks, M bucket tasks, V verify tasks and the report over
// `work` with `options` (the paths to the sign tasks only); the report's
// result.
RunResult RunStages(const TempDir& dir, const std::string& work, const std::vector<int>& tasks, const Args& options) {
  const char* stages[] = {"sign", "bucket", "verify"};
  for (size_t s = 0; s < 3; ++s) {
    for (int i = 0; i < tasks[s]; ++i) {
      Args argv = With({"stage", stages[s], "--task", std::to_string(i), "--tasks", std::to_string(tasks[s])},
                       With(options, {work}));
      if (s == 0) argv.push_back(dir / "in");
      const RunResult r = RunNeardup(argv, dir.path());
      EXPECT_EQ(r.exit_code, 0) << stages[s] << " " << i << ": " << r.err;
    }
  }
  return RunNeardup(With(With({"stage", "report"}, options), {work}), dir.path());
}

// The summary line without its time.
std::string WithoutSeconds(std::string err) {
  const size_t at = err.rfind("; ");
  if (at != std::string::npos && err.ends_with(" s\n")) err.erase(at);
  return err;
}

// Expects the stages (tasks N, M, V) with `options` to give scan's exit
// status, output and messages; returns scan's output.
std::string ExpectSameAsScan(const TempDir& dir, const Args& options, const std::vector<int>& tasks) {
  const RunResult scan = RunNeardup(With(With({"scan"}, options), {dir / "in"}), dir.path());
  const std::string work = dir / "work";
  const RunResult staged = RunStages(dir, work, tasks, options);
  const std::string what = Join(options) + " N=" + std::to_string(tasks[0]) + " M=" + std::to_string(tasks[1]) +
                           " V=" + std::to_string(tasks[2]);
  EXPECT_EQ(staged.exit_code, scan.exit_code) << what << "\n" << staged.err;
  EXPECT_EQ(staged.out, scan.out) << what;
  EXPECT_EQ(WithoutSeconds(staged.err), WithoutSeconds(scan.err)) << what;
  std::filesystem::remove_all(work);
  return scan.out;
}

TEST(StageRelationTest, SameAsScanInEveryModeWithExactAndSignatureVerification) {
  TempDir dir;
  MakeTextCorpus(dir);
  for (const char* relation : {"contains", "both"}) {
    for (const char* verify : {"exact", "signature"}) {
      for (const char* mode : {"pairs", "clusters", "duplicates"}) {
        const Args options = {"--relation", relation, "--verify", verify, "--mode", mode, "-f", "json"};
        const std::string out = ExpectSameAsScan(dir, options, {3, 2, 2});
        // Real containment was found (t101.txt is an excerpt of t100.txt,
        // like nothing else): the comparison proves something.
        const char* found = std::string(mode) == "pairs" ? R"("relation": "contains")" : "t101.txt";
        EXPECT_NE(out.find(found), std::string::npos) << out;
      }
      ExpectSameAsScan(dir, {"--relation", relation, "--verify", verify, "-f", "json"}, {1, 1, 1});
      ExpectSameAsScan(dir, {"--relation", relation, "--verify", verify, "-f", "json"}, {2, 5, 3});
    }
  }
}

TEST(StageRelationTest, SameAsScanInEveryFormatAndWithRelationOptions) {
  TempDir dir;
  MakeTextCorpus(dir);
  for (const Args& format : {Args{}, Args{"-f", "jsonl"}, Args{"-f", "csv"}, Args{"-f", "tsv"}}) {
    ExpectSameAsScan(dir, With({"--relation", "both"}, format), {3, 2, 2});
    ExpectSameAsScan(dir, With({"--relation", "contains", "--mode", "duplicates"}, format), {3, 2, 2});
  }
  ExpectSameAsScan(dir, {"--relation", "contains", "--max-ratio", "3", "--min-ratio", "1.5", "-t", "0.9"}, {3, 2, 2});
  ExpectSameAsScan(dir, {"--relation", "both", "--min-contained", "150", "--min-jaccard", "0.2"}, {3, 2, 2});
  // Below -t 0.7 the verify tasks rule Jaccard pairs out by the bitmaps, never a containment candidate.
  ExpectSameAsScan(dir, {"--relation", "both", "-t", "0.6", "--mode", "clusters"}, {3, 2, 2});
}

TEST(StageRelationTest, SameAsScanOverJsonlFileSplitBetweenSignShards) {
  TempDir dir;
  MakeJsonlCorpus(dir);
  for (const char* relation : {"contains", "both"}) {
    for (const char* verify : {"exact", "signature"}) {
      for (const char* mode : {"pairs", "clusters", "duplicates"}) {
        const Args options = {"--input", "jsonl",  "--relation", relation, "--verify",
                              verify,    "--mode", mode,         "-f",     "json"};
        const std::string out = ExpectSameAsScan(dir, options, {3, 2, 2});
        // d1 is an excerpt of d0, like nothing else.
        const char* found = std::string(mode) == "pairs" ? R"("relation": "contains")" : R"("d1")";
        EXPECT_NE(out.find(found), std::string::npos) << out;
      }
    }
  }
}

// Sign, bucket, verify and report (3, 2, 2 tasks), then the N filter tasks:
// the folder they write.
std::map<std::string, std::string> FilteredFolder(const TempDir& dir, const Args& options, const std::string& name) {
  const std::string work = dir / ("work." + name);
  const RunResult report = RunStages(dir, work, {3, 2, 2}, options);
  EXPECT_LE(report.exit_code, 1) << report.err;
  for (int i = 0; i < 3; ++i) {
    const RunResult r =
        RunNeardup(With({"stage", "filter", "--task", std::to_string(i), "--tasks", "3", "--kept-dir", dir / name},
                        With(options, {work})),
                   dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  return testing::FileTree(dir / name);
}

TEST(StageRelationTest, FilterWritesScansFolderWithoutTheContainedDocuments) {
  for (const bool jsonl : {false, true}) {
    TempDir dir;
    if (jsonl) {
      MakeJsonlCorpus(dir);
    } else {
      MakeTextCorpus(dir);
    }
    for (const char* relation : {"contains", "both"}) {
      for (const char* verify : {"exact", "signature"}) {
        Args options = {"--relation", relation, "--verify", verify};
        if (jsonl) options.insert(options.end(), {"--input", "jsonl"});
        const std::string name = std::string(relation) + "." + verify;
        SCOPED_TRACE(Join(options));
        const RunResult scan =
            RunNeardup(With(With({"scan", "--kept-dir", dir / ("scan." + name)}, options), {dir / "in"}), dir.path());
        ASSERT_EQ(scan.exit_code, 0) << scan.err;
        const auto want = testing::FileTree(dir / ("scan." + name));
        const auto in = testing::FileTree(dir / "in");
        if (jsonl) {
          ASSERT_LT(want.at("c.jsonl").size(), in.at("c.jsonl").size());  // lines left out
        } else {
          // The excerpts of the first container (t101, t102) are left out, the container kept.
          EXPECT_EQ(want.count("t100.txt"), 1u);
          EXPECT_EQ(want.count("t101.txt"), 0u);
          EXPECT_EQ(want.count("t102.txt"), 0u);
        }
        EXPECT_EQ(FilteredFolder(dir, options, "stage." + name), want);
      }
    }
  }
}

// Overwrites 4 bytes of `path` at `at` with `value` (little-endian).
void StoreU32At(const std::string& path, std::streamoff at, uint32_t value) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  char bytes[4];
  for (int k = 0; k < 4; ++k) bytes[k] = static_cast<char>((value >> (8 * k)) & 0xFF);
  f.seekp(at);
  f.write(bytes, 4);
}

TEST(StageRelationTest, WorkFolderOfOtherRelationOptionsIsRefused) {
  TempDir dir;
  MakeTextCorpus(dir);
  const std::string work = dir / "work";
  auto run = [&](const std::string& stage, const Args& options) {
    Args argv = With({"stage", stage}, options);
    if (stage != "report") argv.insert(argv.end(), {"--task", "0", "--tasks", "1"});
    argv.push_back(work);
    if (stage == "sign") argv.push_back(dir / "in");
    return RunNeardup(argv, dir.path());
  };
  // Signed without the counts (--relation similar): refused by a bucket task of contains.
  ASSERT_EQ(run("sign", {}).exit_code, 0);
  RunResult r = run("bucket", {"--relation", "contains"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("made with other options"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--relation"), std::string::npos) << r.err;
  std::filesystem::remove_all(work);
  // Bucketed with one --max-ratio, verified with another; a report with another --min-jaccard.
  const Args contains = {"--relation", "contains"};
  ASSERT_EQ(run("sign", contains).exit_code, 0);
  ASSERT_EQ(run("bucket", With(contains, {"--max-ratio", "4"})).exit_code, 0);
  r = run("verify", contains);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("made with other options"), std::string::npos) << r.err;
  ASSERT_EQ(run("verify", With(contains, {"--max-ratio", "4"})).exit_code, 0);
  r = run("report", With(contains, {"--max-ratio", "4", "--min-jaccard", "0.1"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("made with other options"), std::string::npos) << r.err;
  EXPECT_EQ(run("report", With(contains, {"--max-ratio", "4"})).exit_code, 0);
  // A table of the format before the counts (version 2): named, with the way out.
  StoreU32At(dir / "work/sign/0.table", 8, 2);
  r = run("report", With(contains, {"--max-ratio", "4"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("format version 2 is not supported"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("run again in an empty work folder"), std::string::npos) << r.err;
}

// A containment candidate rewritten in a bucket output, its checksum made
// to match: the verify task checks the value, not only the checksum.
TEST(StageRelationTest, ContainmentCandidateOutOfRangeIsRefusedNamingTheFile) {
  TempDir dir;
  MakeTextCorpus(dir);
  const std::string work = dir / "work";
  const Args options = {"--relation", "contains"};
  for (const char* stage : {"sign", "bucket"}) {
    Args argv = With({"stage", stage, "--task", "0", "--tasks", "1"}, With(options, {work}));
    if (std::string(stage) == "sign") argv.push_back(dir / "in");
    ASSERT_EQ(RunNeardup(argv, dir.path()).exit_code, 0);
  }
  const std::string path = work + "/bucket/0.pairs";
  Result<BucketOutput> out = DecodeBucketOutput(testing::ReadFile(path));
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_FALSE(out->contained.empty());  // the excerpts' candidates
  EXPECT_TRUE(out->pairs.empty());       // contains alone: no Jaccard band
  EXPECT_GE(out->contained_visited, out->contained.size());
  out->contained.back().b = GlobalId(0, 1000000);
  WriteFile(path, EncodeBucketOutput(*out));
  const RunResult r =
      RunNeardup(With({"stage", "verify", "--task", "0", "--tasks", "1"}, With(options, {work})), dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("0.pairs: a document id out of range: run again in an empty work folder"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace neardup
