// Thousands of near copies of one text: pairs mode reports every one of
// their n(n-1)/2 pairs, and the candidates, the verified pairs and the
// reported pairs all stay in bounded memory (sorted runs in TMPDIR past
// 64 MiB each, one filled at a time), under an address-space limit that a
// run holding every pair cannot live in.
//
// Each document is one base text of 100 words with its last word replaced:
// every pair has Jaccard 95/97 over word 5-shingles, so LSH finds every
// pair and every pair is reported, at -j2.
//
// NEARDUP_E2E_BIN runs these tests against another binary (to check that
// they fail without the bound).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "neardup/scan.h"
#include "neardup/writers.h"
#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

std::string Binary() {
  const char* other = std::getenv("NEARDUP_E2E_BIN");
  return other != nullptr && other[0] != '\0' ? std::string(other) : std::string(::neardup::testing::NeardupBinary());
}

// 4,498,500 pairs: 108 MB of candidates and 144 MB of reported pairs, were
// they held in memory.
constexpr int kCopies = 3000;
constexpr long kAllPairs = static_cast<long>(kCopies) * (kCopies - 1) / 2;

#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer reserves terabytes of shadow address space: no address
// limit, and its shadow and quarantine on top of the bound. --exact peaks
// at about 376 MB here, and more on a loaded machine (the quarantine holds
// what the threads free meanwhile): the bound only catches a runaway; the
// Release build holds the run to its budget.
const std::string kLimit;
constexpr long kBoundKb = 640 * 1024;
#else
// 512 MiB of address space (jemalloc, the threads' stacks and the mapped
// binary included); the version that held every pair ran out of memory
// under it and peaked at 266 MB without it.
const std::string kLimit = "/usr/bin/prlimit --as=536870912 ";
// The stated budget: 64 MiB of pairs in memory at a time, plus the rest of
// the run (about 40 MB here). Measured: 104 MB, --exact 110 MB.
constexpr long kBoundKb = 160 * 1024;
#endif

// Writes the near copies under dir/c: c/100000.txt, c/100001.txt, ...
std::string WriteNearCopies(const TempDir& dir, int n) {
  std::vector<std::string> words = RandomWords(100, 24);
  for (int i = 0; i < n; ++i) {
    words.back() = testing::Numbered("last", i);
    WriteFile(dir / testing::Numbered("c/", 100000 + i) + ".txt", Join(words) + "\n");
  }
  return dir / "c";
}

struct Checked {
  int exit_code = -1;  // neardup's
  long lines = -1;
  long unordered = -1;  // lines not after the one before, or with a >= b
  std::string digest;   // cksum of stdout
  long rss_kb = 0;      // the peak of the pipeline (neardup's, by far)
  std::string err;
};

// Runs `args` (after the binary) under `limit`, -f tsv, and checks its
// output in a pipeline without keeping it: lines, order, checksum. cksum
// reads a FIFO that tee writes, and is started by the script's own shell,
// so that `wait` knows it: a process substitution inside the pipeline
// belongs to the pipeline's subshell, where `wait $!` cannot wait for it,
// and under load the checksum was read before cksum had written it.
Checked RunChecked(const TempDir& dir, const std::string& limit, const std::string& args) {
  const std::string status = dir / "status";
  const std::string fifo = dir / "stdout.fifo";
  const std::string script = "rm -f " + fifo + " && mkfifo " + fifo + " || exit 1; cksum < " + fifo + " > " +
                             (dir / "cksum") + " & sum=$!; { " + limit + Binary() + " scan -q -j2 -f tsv " + args +
                             "; echo $? > " + status + "; } | tee " + fifo + " | LC_ALL=C awk -F '\\t' '" +
                             "{ if ($1 >= $2 || (NR > 1 && ($1 < p1 || ($1 == p1 && $2 <= p2)))) bad++; " +
                             "p1 = $1; p2 = $2 } END { print NR, bad + 0 }'; wait $sum";
  long rss_kb = 0;
  RunResult r = RunProcess({"/bin/bash", "-c", script}, dir.path(), "/dev/null", &rss_kb);
  Checked c;
  c.exit_code = std::atoi(testing::ReadFile(status).c_str());
  if (testing::ReadFile(status).empty()) c.exit_code = -1;
  std::sscanf(r.out.c_str(), "%ld %ld", &c.lines, &c.unordered);
  c.digest = testing::ReadFile(dir / "cksum");
  c.rss_kb = rss_kb;
  c.err = r.err;
  return c;
}

TEST(NearCopiesTest, PairsOfThousandsOfNearCopiesAreAllWrittenInBoundedMemory) {
  TempDir dir;
  const std::string corpus = WriteNearCopies(dir, kCopies);
  const Checked c = RunChecked(dir, kLimit, corpus);
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.lines, kAllPairs) << c.err;  // none lost
  EXPECT_EQ(c.unordered, 0);               // sorted, none twice
  EXPECT_GT(c.rss_kb, 0);
  EXPECT_LT(c.rss_kb, kBoundKb) << "peak RSS " << c.rss_kb / 1024 << " MB";
  std::fprintf(stderr, "pairs: peak RSS %ld KiB\n", c.rss_kb);
}

TEST(NearCopiesTest, ExactAndClusterRunsUnderTheLimitGiveTheOutputOfRunsWithout) {
  TempDir dir;
  const std::string corpus = WriteNearCopies(dir, kCopies);
  for (const std::string options : {"--exact ", "--mode clusters --cluster-by keep --exact ", "--mode clusters "}) {
    const Checked bounded = RunChecked(dir, kLimit, options + corpus);
    const Checked free = RunChecked(dir, "", options + corpus);
    EXPECT_EQ(bounded.exit_code, 0) << options << bounded.err;
    EXPECT_EQ(free.exit_code, 0) << options << free.err;
    EXPECT_EQ(bounded.digest, free.digest) << options;
    EXPECT_EQ(bounded.lines, free.lines) << options;
    if (options == "--exact ") {
      EXPECT_EQ(bounded.lines, kAllPairs);
      EXPECT_EQ(bounded.unordered, 0);
    } else {
      EXPECT_EQ(bounded.lines, kCopies);  // one cluster: every document once
    }
    EXPECT_LT(bounded.rss_kb, kBoundKb) << options << "peak RSS " << bounded.rss_kb / 1024 << " MB";
    std::fprintf(stderr, "%speak RSS %ld KiB\n", options.c_str(), bounded.rss_kb);
  }
}

TEST(NearCopiesTest, AnUnwritableTemporaryFolderIsAnErrorNotACrash) {
  TempDir dir;
  const std::string corpus = WriteNearCopies(dir, kCopies);
  // 108 MB of candidates: the workers spill them past 64 MiB, into a
  // folder that does not exist.
  for (const std::string threads : {"-j1", "-j2"}) {
    RunResult r = RunProcess(
        {"/usr/bin/env", "TMPDIR=" + (dir / "missing"), Binary(), "scan", "-q", threads, "-f", "tsv", corpus},
        dir.path());
    EXPECT_EQ(r.exit_code, 2) << threads << r.err;
    EXPECT_NE(r.err.find("temporary file for candidate pairs in " + (dir / "missing")), std::string::npos)
        << threads << r.err;
    EXPECT_TRUE(r.out.empty()) << threads;
  }
}

// --exact keeps what it reads again, and a copy of each stream, in temporary
// files: they go to TMPDIR too, and a TMPDIR that does not exist is exit 2
// with the folder named, not a spool in /tmp behind the user's back.
TEST(NearCopiesTest, ExactSpoolsAndStreamCopiesGoToTmpdir) {
  TempDir dir;
  WriteFile(dir / "c/a.txt", Join(RandomWords(60, 3)) + "\n");
  WriteFile(dir / "c/b.txt", Join(RandomWords(60, 3)) + "\n");
  const std::string missing = dir / "missing";
  RunResult r = RunProcess(
      {"/usr/bin/env", "TMPDIR=" + missing, Binary(), "scan", "-q", "--exact", "-f", "tsv", dir / "c"}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("temporary file for documents read again in " + missing), std::string::npos) << r.err;
  r = RunProcess({"/bin/sh", "-c", "cat \"$1\" | TMPDIR=\"$2\" \"$3\" scan -q --exact -f tsv - \"$4\"", "sh",
                  dir / "c/a.txt", missing, Binary(), dir / "c"},
                 dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("temporary file for "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" in " + missing + ": "), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

// The report of a run whose pair budget holds a few pairs at a time (every
// sequence of pairs spilled into hundreds of runs) is the report of a run
// that holds them all, in every mode and verification.
TEST(NearCopiesTest, SpilledCandidatesGiveTheSameReportInEveryMode) {
  TempDir dir;
  std::vector<std::string> words = RandomWords(100, 25);
  for (int i = 0; i < 120; ++i) {
    words[static_cast<size_t>(i % 100)] = testing::Numbered("edit", i);  // drifts: a chain
    WriteFile(dir / testing::Numbered("n/", 1000 + i) + ".txt", Join(words) + "\n");
    if (i % 10 == 0) WriteFile(dir / testing::Numbered("n/copy", i) + ".txt", Join(words) + "\n");
  }
  for (int i = 0; i < 30; ++i) WriteFile(dir / testing::Numbered("o/", i) + ".txt", Join(RandomWords(80, 100 + i)));
  struct Case {
    Mode mode;
    VerifyMode verify;
    ClusterBy by;
    double threshold;
  };
  const std::vector<Case> cases = {
      {Mode::kPairs, VerifyMode::kSignature, ClusterBy::kKeep, 0.8},
      {Mode::kPairs, VerifyMode::kNone, ClusterBy::kKeep, 0.5},
      {Mode::kPairs, VerifyMode::kExact, ClusterBy::kKeep, 0.7},
      {Mode::kPairs, VerifyMode::kExact, ClusterBy::kKeep, 1.0},
      {Mode::kClusters, VerifyMode::kSignature, ClusterBy::kConnected, 0.7},
      {Mode::kClusters, VerifyMode::kExact, ClusterBy::kKeep, 0.7},
      {Mode::kDuplicates, VerifyMode::kNone, ClusterBy::kKeep, 0.6},
  };
  for (const Case& c : cases) {
    Options o;
    o.paths = {dir / "n", dir / "o"};
    o.mode = c.mode;
    o.verify = c.verify;
    o.cluster_by = c.by;
    o.threshold = c.threshold;
    o.threads = 2;
    Result<Report> whole = FindDuplicates(o);
    o.pair_memory = 200;  // eight candidate pairs a run
    Result<Report> spilled = FindDuplicates(o);
    ASSERT_TRUE(whole.ok() && spilled.ok());
    std::ostringstream x, y;
    WriteReport(*whole, OutputFormat::kTsv, x);
    WriteReport(*spilled, OutputFormat::kTsv, y);
    EXPECT_GT(x.str().size(), 0u);
    EXPECT_EQ(x.str(), y.str()) << static_cast<int>(c.mode) << " " << static_cast<int>(c.verify);
  }
}

}  // namespace
}  // namespace neardup
