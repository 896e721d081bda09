// End to end: every option of `scan` changes what a run does, not only what
// the parser stores. Each test runs the real binary (or the whole pipeline
// through FindDuplicates) and checks a result that depends on the option's
// behaviour, so a build that parses the flag but ignores it fails here.
// Options covered elsewhere end to end: -f and -o (cli_test.cc); --mode,
// --keep, --cluster-by, --against and -0 (dedup_test.cc); -g, --hidden, -L,
// --max-filesize, --files-from, --files0-from, --input, --text-key, --id-key,
// --encoding and --min-words (inputs_test.cc).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "e2e/run_neardup.h"
#include "lsh/similarity.h"
#include "neardup/scan.h"
#include "sign/minhash.h"
#include "test_paths.h"
#include "test_util.h"
#include "text/shingle.h"
#include "walk/file_system.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunResult;
using testing::TempDir;
using testing::With;
using testing::WriteFile;

const std::string kBin = ::neardup::testing::NeardupBinary();
// Scores are written with at most 4 decimals.
constexpr double kPrinted = 0.5e-4 + 1e-9;

// Runs `neardup scan -f json ARGS...`; stdout parsed (null when it is not JSON).
nlohmann::json ScanJson(const TempDir& dir, const std::vector<std::string>& args, RunResult* result) {
  *result = RunNeardup(With({"scan", "-f", "json"}, args), dir.path());
  return nlohmann::json::parse(result->out, nullptr, /*allow_exceptions=*/false);
}

// Replaces `count` words spread evenly from `offset` by words of their own, so
// each edit changes 5 word shingles: J = (n-4-5c)/(n-4+5c) for n words.
std::vector<std::string> Spread(std::vector<std::string> w, int count, size_t offset, const std::string& tag) {
  const size_t step = w.size() / static_cast<size_t>(count);
  for (int i = 0; i < count; ++i) w[offset + static_cast<size_t>(i) * step] = testing::Numbered(tag, i);
  return w;
}

double Truth(const std::string& a, const std::string& b, ShingleUnit unit, int k) {
  return ExactJaccard(ShingleSet(a, unit, k, 1), ShingleSet(b, unit, k, 1));
}

// --- -t ------------------------------------------------------------------------

TEST(OptionsBehaviourTest, ThresholdDecidesWhichPairsAreReported) {
  TempDir dir;
  const auto base = RandomWords(400, 61);
  const std::string a = Join(base), b = Join(Spread(base, 12, 5, "edit"));
  WriteFile(dir / "d/a.txt", a);
  WriteFile(dir / "d/b.txt", b);
  WriteFile(dir / "d/other.txt", Join(RandomWords(400, 62)));
  const double truth = Truth(a, b, ShingleUnit::kWord, 5);
  ASSERT_NEAR(truth, 336.0 / 456.0, 1e-12);  // 0.7368

  RunResult r;
  nlohmann::json j = ScanJson(dir, {"--exact", dir / "d"}, &r);  // default 0.8
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(j["pairs"].size(), 0u);
  j = ScanJson(dir, {"--exact", "-t", "0.7", dir / "d"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(j["pairs"].size(), 1u);
  EXPECT_EQ(j["pairs"][0]["a"], dir / "d/a.txt");
  EXPECT_EQ(j["pairs"][0]["b"], dir / "d/b.txt");
  EXPECT_NEAR(j["pairs"][0]["jaccard"].get<double>(), truth, kPrinted);
  EXPECT_EQ(j["params"]["threshold"], 0.7);
  j = ScanJson(dir, {"--exact", "--threshold", "0.74", dir / "d"}, &r);
  EXPECT_EQ(r.exit_code, 1) << r.err;

  // Signature verification compares the estimate with the threshold. Every
  // candidate's estimate comes from --verify none; the pair is reported at a
  // threshold just under its estimate and not at one just over it.
  j = ScanJson(dir, {"--verify", "none", "--bands", "128", "--rows", "1", dir / "d"}, &r);
  ASSERT_EQ(j["pairs"].size(), 1u) << r.err;
  const double estimate = j["pairs"][0]["estimate"].get<double>();
  ASSERT_GT(estimate, 0.5);
  ASSERT_LT(estimate, 0.8);  // so the default threshold drops it
  char below[16], above[16];
  std::snprintf(below, sizeof below, "%.4f", estimate - 0.01);
  std::snprintf(above, sizeof above, "%.4f", estimate + 0.01);
  j = ScanJson(dir, {"--verify", "signature", "-t", below, "--bands", "128", "--rows", "1", dir / "d"}, &r);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(j["pairs"].size(), 1u);
  j = ScanJson(dir, {"--verify", "signature", "-t", above, "--bands", "128", "--rows", "1", dir / "d"}, &r);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(j["pairs"].size(), 0u);
  j = ScanJson(dir, {"--bands", "128", "--rows", "1", dir / "d"}, &r);
  EXPECT_EQ(r.exit_code, 1) << r.err;
}

// --- --shingle, -k -------------------------------------------------------------------

TEST(OptionsBehaviourTest, ShingleUnitAndSizeDecideTheExactJaccard) {
  TempDir dir;
  const auto base = RandomWords(300, 63);
  const std::string a = Join(base), b = Join(Spread(base, 4, 3, "x"));
  WriteFile(dir / "d/a.txt", a);
  WriteFile(dir / "d/b.txt", b);
  struct Case {
    std::vector<std::string> flags;
    ShingleUnit unit;
    int k;
  };
  const std::vector<Case> cases = {{{}, ShingleUnit::kWord, 5},
                                   {{"-k", "2"}, ShingleUnit::kWord, 2},
                                   {{"--ngram", "9"}, ShingleUnit::kWord, 9},
                                   {{"--shingle", "char"}, ShingleUnit::kChar, 9},
                                   {{"--shingle", "char", "-k", "4"}, ShingleUnit::kChar, 4}};
  std::vector<double> truths;
  for (const Case& c : cases) truths.push_back(Truth(a, b, c.unit, c.k));
  // The test can only tell the settings apart if their answers differ.
  for (size_t x = 0; x < truths.size(); ++x) {
    for (size_t y = x + 1; y < truths.size(); ++y) ASSERT_GT(std::abs(truths[x] - truths[y]), 1e-3) << x << " " << y;
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    std::vector<std::string> args = {"--exact", "-t", "0.3"};
    args.insert(args.end(), cases[i].flags.begin(), cases[i].flags.end());
    args.push_back(dir / "d");
    RunResult r;
    const nlohmann::json j = ScanJson(dir, args, &r);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(j["pairs"].size(), 1u) << i;
    EXPECT_NEAR(j["pairs"][0]["jaccard"].get<double>(), truths[i], kPrinted) << "case " << i;
    EXPECT_EQ(j["params"]["shingle"], cases[i].unit == ShingleUnit::kWord ? "word" : "char");
    EXPECT_EQ(j["params"]["ngram"], cases[i].k);
  }
}

// --- --seed, --num-perm --------------------------------------------------------------

// The estimate printed is the agreement of the two signatures that MinHasher
// gives for the seed and number of permutations asked for.
TEST(OptionsBehaviourTest, SeedAndNumPermDecideTheEstimate) {
  TempDir dir;
  const auto base = RandomWords(300, 64);
  const std::string a = Join(base), b = Join(Spread(base, 8, 2, "s"));
  WriteFile(dir / "d/a.txt", a);
  WriteFile(dir / "d/b.txt", b);
  struct Case {
    uint64_t seed;
    int perm;
  };
  const std::vector<Case> cases = {{1, 128}, {2, 128}, {12345, 128}, {3, 64}, {1, 200}};
  std::set<double> estimates;
  for (const Case& c : cases) {
    const MinHasher mh(c.perm, c.seed);
    const auto sa = mh.Sign(ShingleSet(a, ShingleUnit::kWord, 5, c.seed));
    const auto sb = mh.Sign(ShingleSet(b, ShingleUnit::kWord, 5, c.seed));
    const double expected = SignatureAgreement(sa.data(), sb.data(), c.perm);
    estimates.insert(expected);
    // One row per band: any agreeing value makes the pair a candidate, and
    // --verify none reports it with its estimate whatever the estimate is.
    RunResult r;
    const nlohmann::json j =
        ScanJson(dir,
                 {"--verify", "none", "--seed", std::to_string(c.seed), "--num-perm", std::to_string(c.perm), "--bands",
                  std::to_string(c.perm), "--rows", "1", dir / "d"},
                 &r);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(j["pairs"].size(), 1u);
    EXPECT_NEAR(j["pairs"][0]["estimate"].get<double>(), expected, kPrinted)
        << "seed " << c.seed << ", " << c.perm << " permutations";
    EXPECT_EQ(j["params"]["seed"], c.seed);
    EXPECT_EQ(j["params"]["num_perm"], c.perm);
  }
  // Seeds 1, 2 and 12345 do not all give one estimate (else the test could
  // not see a seed being ignored).
  EXPECT_GE(estimates.size(), 3u);
}

// --- --verify ------------------------------------------------------------------------

// A pair with J = 0.41 is a candidate when a band is one row. `none` reports
// every candidate; `signature` and `exact` drop it at the default threshold.
TEST(OptionsBehaviourTest, VerifyNoneReportsCandidatesBelowTheThreshold) {
  TempDir dir;
  const auto base = RandomWords(300, 65);
  WriteFile(dir / "d/a.txt", Join(base));
  WriteFile(dir / "d/b.txt", Join(Spread(base, 25, 1, "n")));
  const std::vector<std::string> banding = {"--bands", "128", "--rows", "1"};
  auto run = [&](std::vector<std::string> args, RunResult* r) {
    args.insert(args.end(), banding.begin(), banding.end());
    args.push_back(dir / "d");
    return ScanJson(dir, args, r);
  };
  RunResult r;
  nlohmann::json j = run({"--verify", "none"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(j["stats"]["candidates"], 1);
  ASSERT_EQ(j["pairs"].size(), 1u);
  const double estimate = j["pairs"][0]["estimate"].get<double>();
  EXPECT_LT(estimate, 0.6);
  EXPECT_GT(estimate, 0.2);
  EXPECT_FALSE(j["pairs"][0].contains("jaccard"));
  EXPECT_EQ(j["params"]["verify"], "none");

  using Args = std::vector<std::string>;
  for (const Args& verify : {Args{"--verify", "signature"}, Args{}, Args{"--verify", "exact"}, Args{"--exact"}}) {
    j = run(verify, &r);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(j["stats"]["candidates"], 1);
    EXPECT_EQ(j["pairs"].size(), 0u);
  }
}

// A pair reported with `exact` carries its exact Jaccard; with `signature`
// it carries none.
TEST(OptionsBehaviourTest, VerifyExactAddsTheJaccardAndSignatureDoesNot) {
  TempDir dir;
  const auto base = RandomWords(300, 66);
  const std::string a = Join(base), b = Join(Spread(base, 2, 50, "e"));
  WriteFile(dir / "d/a.txt", a);
  WriteFile(dir / "d/b.txt", b);
  RunResult r;
  nlohmann::json j = ScanJson(dir, {"--verify", "exact", dir / "d"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(j["pairs"].size(), 1u);
  EXPECT_NEAR(j["pairs"][0]["jaccard"].get<double>(), Truth(a, b, ShingleUnit::kWord, 5), kPrinted);
  j = ScanJson(dir, {"--verify", "signature", dir / "d"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(j["pairs"].size(), 1u);
  EXPECT_FALSE(j["pairs"][0].contains("jaccard"));
}

// --- --bands, --rows ------------------------------------------------------------------

TEST(OptionsBehaviourTest, BandsAndRowsDecideWhichPairsAreCandidates) {
  TempDir dir;
  const auto base = RandomWords(300, 67);
  WriteFile(dir / "d/a.txt", Join(base));
  WriteFile(dir / "d/b.txt", Join(Spread(base, 8, 2, "s")));  // J = 0.76
  RunResult r;
  // One band of 128 rows: a candidate only if all 128 values agree (0.76^128).
  nlohmann::json j = ScanJson(dir, {"--verify", "none", "--bands", "1", "--rows", "128", dir / "d"}, &r);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(j["stats"]["candidates"], 0);
  EXPECT_EQ(j["params"]["bands"], 1);
  EXPECT_EQ(j["params"]["rows"], 128);
  // 128 bands of one row: a candidate if any value agrees.
  j = ScanJson(dir, {"--verify", "none", "--bands", "128", "--rows", "1", dir / "d"}, &r);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(j["stats"]["candidates"], 1);
  EXPECT_EQ(j["params"]["bands"], 128);
  EXPECT_EQ(j["params"]["rows"], 1);
  // Neither: the banding chosen for the threshold (16 x 6 at 0.8).
  j = ScanJson(dir, {dir / "d"}, &r);
  EXPECT_EQ(j["params"]["bands"], 16);
  EXPECT_EQ(j["params"]["rows"], 6);
}

// --- -j --------------------------------------------------------------------------------

// Highest number of threads seen in process `pid` until it exits (polled).
int PeakThreads(pid_t pid) {
  int peak = 0;
  const std::string task = "/proc/" + std::to_string(pid) + "/task";
  for (;;) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return peak;
    std::error_code ec;
    int n = 0;
    for (auto it = std::filesystem::directory_iterator(task, ec); !ec && it != std::filesystem::directory_iterator();
         it.increment(ec)) {
      ++n;
    }
    peak = std::max(peak, n);
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

pid_t Spawn(const std::vector<std::string>& argv) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open("/dev/null", O_WRONLY);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

// -j N reads with N workers: with three large files, -j 3 runs at least two
// more threads at once than -j 1.
TEST(OptionsBehaviourTest, ThreadsOptionSetsTheNumberOfWorkers) {
  TempDir dir;
  const std::string chunk = Join(RandomWords(20000, 68)) + "\n";
  std::string big;
  while (big.size() < (24u << 20)) big += chunk;
  for (const char* name : {"d/1.txt", "d/2.txt", "d/3.txt"}) WriteFile(dir / name, big);
  const int one = PeakThreads(Spawn({kBin, "scan", "-j", "1", dir / "d"}));
  const int three = PeakThreads(Spawn({kBin, "scan", "-j", "3", dir / "d"}));
  EXPECT_GE(three - one, 2) << "-j 1: " << one << " threads, -j 3: " << three;
}

// --- -q, -v ----------------------------------------------------------------------------

TEST(OptionsBehaviourTest, QuietHidesTheSummaryAndVerboseAddsParametersAndStages) {
  TempDir dir;
  const std::string text = Join(RandomWords(200, 69));
  WriteFile(dir / "d/a.txt", text);
  WriteFile(dir / "d/b.txt", text);
  const std::string params =
      "neardup: word 5-shingles, 128 permutations, 16 bands x 6 rows, threshold 0.8, "
      "verify exact, seed 1\n";
  RunResult r = RunNeardup({"scan", dir / "d"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  char size[32];  // in kB, never "(0 MB)" (#27)
  std::snprintf(size, sizeof size, "%.1f kB", static_cast<double>(2 * text.size()) / 1000);
  EXPECT_EQ(r.err.rfind("neardup: 2 documents (" + std::string(size) +
                            "), 0 empty, 0 skipped, 0 unreadable, 1 exact copy; 0 candidate pairs, 1 pair reported; ",
                        0),
            0u)
      << r.err;
  EXPECT_EQ(r.err.find("permutations"), std::string::npos) << r.err;

  for (const char* quiet : {"-q", "--quiet"}) {
    r = RunNeardup({"scan", quiet, dir / "d"}, dir.path());
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.err, "") << quiet;
    EXPECT_NE(r.out, "");
  }

  r = RunNeardup({"scan", "-v", dir / "d"}, dir.path());
  EXPECT_EQ(r.err.rfind(params, 0), 0u) << r.err;
  EXPECT_NE(r.err.find("neardup: 2 documents"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("reading after"), std::string::npos) << r.err;

  r = RunNeardup({"scan", "-vv", dir / "d"}, dir.path());
  EXPECT_NE(r.err.find(params), std::string::npos) << r.err;
  // Stages are logged as the progress callback sees them; a stage as short
  // as reading two small files may pass unseen, banding and the end may not.
  EXPECT_NE(r.err.find("neardup: banding after "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("neardup: done after "), std::string::npos) << r.err;
}

// --- --progress, --no-progress ---------------------------------------------------------------

// Runs `argv` with stderr on a new pseudo-terminal; returns what it wrote there.
std::string RunWithTerminalStderr(const std::vector<std::string>& argv, int* exit_code) {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) return "<no pty>";
  const std::string slave_name = ::ptsname(master);
  const int slave = ::open(slave_name.c_str(), O_RDWR | O_NOCTTY);
  if (slave < 0) return "<no pty>";
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(slave, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  // Drain the terminal while the child runs (its buffer is small).
  ::fcntl(master, F_SETFL, ::fcntl(master, F_GETFL) | O_NONBLOCK);
  std::string out;
  char buf[4096];
  bool exited = false;
  int status = 0;
  for (;;) {
    const ssize_t n = ::read(master, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (exited) break;  // drained after the child ended
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::close(slave);
  ::close(master);
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

TEST(OptionsBehaviourTest, ProgressLineFollowsTheTerminalAndTheFlags) {
  TempDir dir;
  const std::string text = Join(RandomWords(200, 70));
  WriteFile(dir / "d/a.txt", text);
  WriteFile(dir / "d/b.txt", text);
  const std::string line = "\rneardup: walking, 0 documents";
  const std::string clear = "\r\033[K";

  // stderr a file: no progress unless --progress.
  RunResult r = RunNeardup({"scan", dir / "d"}, dir.path());
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
  // --progress into a file: plain lines, no control characters (#27).
  r = RunNeardup({"scan", "--progress", dir / "d"}, dir.path());
  EXPECT_EQ(r.err.rfind(line.substr(1) + ", 0 bytes, ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find_first_of("\r\033"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\nneardup: 2 documents"), std::string::npos) << r.err;

  // stderr a terminal: progress unless --no-progress or -q.
  int code = -1;
  std::string err = RunWithTerminalStderr({kBin, "scan", dir / "d"}, &code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(err.rfind(line, 0), 0u) << err;
  EXPECT_NE(err.find(clear + "neardup: 2 documents"), std::string::npos) << err;
  for (const char* off : {"--no-progress", "-q"}) {
    err = RunWithTerminalStderr({kBin, "scan", off, dir / "d"}, &code);
    EXPECT_EQ(code, 0);
    EXPECT_EQ(err.find("walking"), std::string::npos) << off << ": " << err;
    EXPECT_EQ(err.find("\033[K"), std::string::npos) << off << ": " << err;
  }
}

// --- A file that changes size between the walk and the read ------------------------------------

// Reads a fixed string.
class StringReader : public ByteReader {
 public:
  explicit StringReader(std::string data) : data_(std::move(data)) {}
  Result<size_t> Read(char* buf, size_t n) override {
    const size_t take = std::min(n, data_.size() - at_);
    std::memcpy(buf, data_.data() + at_, take);
    at_ += take;
    return take;
  }

 private:
  std::string data_;
  size_t at_ = 0;
};

// The real file system, except that one file has grown by the time it is read.
class GrowingFs : public FileSystem {
 public:
  GrowingFs(std::string path, std::string content) : path_(std::move(path)), content_(std::move(content)) {}
  Result<std::unique_ptr<ByteReader>> Open(const std::string& path) override {
    if (path == path_) return std::unique_ptr<ByteReader>(new StringReader(content_));
    return FileSystem::Default().Open(path);
  }
  Result<FileStat> Stat(const std::string& path) override { return FileSystem::Default().Stat(path); }

 private:
  std::string path_, content_;
};

// b.txt is a copy of a.txt when the folder is walked and has a few more words
// when it is read: its signature would describe neither version, so it is left
// out of every pair, with a warning.
TEST(OptionsBehaviourTest, FileThatChangedSizeDuringTheRunIsLeftOut) {
  TempDir dir;
  const std::string text = Join(RandomWords(300, 71));
  WriteFile(dir / "a.txt", text);
  WriteFile(dir / "b.txt", text);
  WriteFile(dir / "c.txt", Join(RandomWords(300, 72)));
  GrowingFs fs(dir / "b.txt", text + " and a few more words");
  for (Mode mode : {Mode::kPairs, Mode::kClusters}) {
    for (VerifyMode verify : {VerifyMode::kSignature, VerifyMode::kExact}) {
      RunContext ctx;
      ctx.fs = &fs;
      Options o;
      o.paths = {dir.path()};
      o.mode = mode;
      o.verify = verify;
      Result<Report> r = FindDuplicates(o, ctx);
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_EQ(r->pairs.size(), 0u);
      EXPECT_EQ(r->clusters.size(), 0u);
      EXPECT_EQ(r->stats.unreadable, 1u);
      EXPECT_EQ(r->stats.documents, 2u);
      ASSERT_EQ(r->problems.size(), 1u);
      EXPECT_EQ(r->problems[0].message().rfind(dir / "b.txt: changed size during the run", 0), 0u)
          << r->problems[0].message();
    }
  }
  // The same folder read as it is: a and b are a pair.
  Options o;
  o.paths = {dir.path()};
  Result<Report> r = FindDuplicates(o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->pairs.size(), 1u);
}

// --- Unreadable files ------------------------------------------------------------------------

// As root the binary runs as nobody: root reads a 000 file.
TEST(OptionsBehaviourTest, UnreadableFileGivesStatusTwoAndTheRestIsWritten) {
  TempDir dir;
  const std::string text = Join(RandomWords(200, 73));
  WriteFile(dir / "d/a.txt", text);
  WriteFile(dir / "d/b.txt", text);
  WriteFile(dir / "d/locked.txt", text);
  WriteFile(dir / "d/other.txt", Join(RandomWords(200, 74)));
  ASSERT_EQ(::chmod((dir / "d/locked.txt").c_str(), 0), 0);
  testing::OpenToEveryone(dir.path());
  for (const char* format : {"json", "jsonl"}) {
    const RunResult r = testing::RunProcessUnprivileged({kBin, "scan", "-f", format, dir / "d"}, dir.path());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("neardup: " + dir / "d/locked.txt: Permission denied\n"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(", 1 unreadable"), std::string::npos) << r.err;
    if (std::string(format) == "json") {
      const auto j = nlohmann::json::parse(r.out, nullptr, false);
      ASSERT_FALSE(j.is_discarded()) << r.out;
      EXPECT_EQ(j["stats"]["unreadable"], 1);
      EXPECT_EQ(j["stats"]["documents"], 3);
      ASSERT_EQ(j["pairs"].size(), 1u);
      EXPECT_EQ(j["pairs"][0]["a"], dir / "d/a.txt");
      EXPECT_EQ(j["pairs"][0]["b"], dir / "d/b.txt");
    } else {
      EXPECT_EQ(r.out.substr(0, r.out.find(",\"estimate\"")),
                "{\"a\":\"" + dir / "d/a.txt\",\"b\":\"" + dir / "d/b.txt\"");
    }
  }
}

// --- -o and a run that fails after the output is open ----------------------------------------

// Files in `dir` other than `keep`.
std::vector<std::string> OtherFiles(const std::string& dir, const std::string& keep) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename() != keep) out.push_back(e.path().filename().string());
  }
  return out;
}

// The output is opened before the walk; a glob that cannot be compiled fails
// the walk. The old file stays, and no temporary file is left.
TEST(OptionsBehaviourTest, FatalErrorAfterTheOutputIsOpenLeavesTheOldFile) {
  TempDir dir;
  const std::string text = Join(RandomWords(200, 75));
  WriteFile(dir / "d/a.txt", text);
  WriteFile(dir / "d/b.txt", text);
  WriteFile(dir / "out/pairs.jsonl", "old\n");
  const RunResult r = RunNeardup({"scan", "-o", dir / "out/pairs.jsonl", "-g", "[abc", dir / "d"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("[abc"), std::string::npos) << r.err;
  EXPECT_EQ(testing::ReadFile(dir / "out/pairs.jsonl"), "old\n");
  EXPECT_EQ(OtherFiles(dir / "out", "pairs.jsonl"), std::vector<std::string>{});
}

// SIGTERM once the temporary output file exists (so the output is surely open
// and the scan under way): the old file stays, and the temporary file goes.
TEST(OptionsBehaviourTest, TerminatedRunAfterTheOutputIsOpenLeavesTheOldFile) {
  TempDir dir;
  const std::string chunk = Join(RandomWords(20000, 76)) + "\n";
  std::string big;
  while (big.size() < (64u << 20)) big += chunk;
  WriteFile(dir / "d/big.txt", big);
  WriteFile(dir / "out/pairs.jsonl", "old\n");
  const pid_t pid = Spawn({kBin, "scan", "-j", "1", "-o", dir / "out/pairs.jsonl", dir / "d"});
  bool seen = false;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!seen && std::chrono::steady_clock::now() < give_up) {
    seen = !OtherFiles(dir / "out", "pairs.jsonl").empty();
    if (!seen) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  ASSERT_TRUE(seen) << "no temporary file appeared beside the output";
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  EXPECT_EQ(testing::ReadFile(dir / "out/pairs.jsonl"), "old\n");
  EXPECT_EQ(OtherFiles(dir / "out", "pairs.jsonl"), std::vector<std::string>{});
}

}  // namespace
}  // namespace neardup
