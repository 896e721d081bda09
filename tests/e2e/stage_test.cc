// End to end: `neardup stage sign|bucket|verify|report` give the same bytes and exit
// status as `neardup scan`, for any number of tasks, and are safe to run
// again (killed, completed, missing or mismatched tasks).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <thread>

#include "e2e/run_neardup.h"
#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunOptions;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::With;
using testing::WriteFile;

const std::string kBin = ::neardup::testing::NeardupBinary();
using Args = std::vector<std::string>;

// Near copies of a few texts, exact copies, unique texts, an empty file, a
// short one, and a reference folder.
void MakeTextCorpus(const TempDir& dir) {
  for (int base = 0; base < 4; ++base) {
    auto words = RandomWords(300, static_cast<uint64_t>(100 + base));
    for (int copy = 0; copy < 6; ++copy) {
      auto edited = words;
      for (int e = 0; e < copy * 3; ++e)
        edited[static_cast<size_t>(e * 13 + copy) % edited.size()] = "edit" + std::to_string(e);
      WriteFile(dir / ("docs/b" + std::to_string(base) + "/c" + std::to_string(copy) + ".txt"), Join(edited));
    }
    WriteFile(dir / ("docs/b" + std::to_string(base) + "/same.txt"), Join(words));
    WriteFile(dir / ("ref/r" + std::to_string(base) + ".txt"), Join(words));
  }
  for (int u = 0; u < 20; ++u) {
    WriteFile(dir / ("docs/u/u" + std::to_string(u) + ".txt"), Join(RandomWords(200, static_cast<uint64_t>(500 + u))));
  }
  WriteFile(dir / "docs/empty.txt", "");
  WriteFile(dir / "docs/short.txt", "two words");
}

// JSONL files whose ids repeat across files, with a malformed line and
// near-duplicate texts spread over the files.
void MakeJsonlCorpus(const TempDir& dir) {
  const auto base = RandomWords(200, 7);
  for (int f = 0; f < 5; ++f) {
    std::string text;
    for (int line = 0; line < 12; ++line) {
      const int i = f * 12 + line;
      if (f == 2 && line == 5) {
        text += "{not json\n";
        continue;
      }
      auto words = i % 3 == 0 ? base : RandomWords(150, static_cast<uint64_t>(1000 + i));
      if (i % 3 == 0) {
        // Appended rather than "x" + to_string(i): GCC 12 warns (-Wrestrict,
        // a known false positive) on the latter once inlined here.
        std::string word = "x";
        word += std::to_string(i);
        words[static_cast<size_t>(i) % words.size()] = word;
      }
      const std::string id = i % 11 == 0 ? "shared" : "doc" + std::to_string(i);
      text += R"({"id": ")" + id + R"(", "text": ")" + Join(words) + "\"}\n";
    }
    WriteFile(dir / ("jsonl/part" + std::to_string(f) + ".jsonl"), text);
  }
}

// More than kLargeBucket near copies: the leader path in cluster modes.
void MakeLargeBucketCorpus(const TempDir& dir) {
  const auto base = RandomWords(120, 9);
  for (int i = 0; i < 300; ++i) {
    auto words = base;
    words.push_back("tail" + std::to_string(i));
    WriteFile(dir / ("big/f" + std::to_string(1000 + i) + ".txt"), Join(words));
  }
  for (int i = 0; i < 10; ++i) WriteFile(dir / ("big/same" + std::to_string(i) + ".txt"), Join(base));
}

// Runs the four stages (N sign tasks, M bucket tasks, V verify tasks, one
// after the other) in `work` and returns the report's result. `options` go
// to every stage; `paths` to the sign tasks only.
RunResult RunStages(const TempDir& dir, const std::string& work, int n, int m, int v, const Args& options,
                    const Args& paths, const std::function<void()>& before_report = nullptr) {
  for (int i = 0; i < n; ++i) {
    Args argv = {"stage", "sign", "--task", std::to_string(i), "--tasks", std::to_string(n)};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(work);
    argv.insert(argv.end(), paths.begin(), paths.end());
    const RunResult r = RunNeardup(argv, dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  for (int j = 0; j < m; ++j) {
    Args argv = {"stage", "bucket", "--task", std::to_string(j), "--tasks", std::to_string(m)};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(work);
    const RunResult r = RunNeardup(argv, dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  for (int k = 0; k < v; ++k) {
    Args argv = {"stage", "verify", "--task", std::to_string(k), "--tasks", std::to_string(v)};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(work);
    const RunResult r = RunNeardup(argv, dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  if (before_report) before_report();
  Args argv = {"stage", "report"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back(work);
  return RunNeardup(argv, dir.path());
}

// The summary line without its time.
std::string WithoutSeconds(std::string err) {
  const size_t at = err.rfind("; ");
  if (at != std::string::npos && err.ends_with(" s\n")) err.erase(at);
  return err;
}

// Expects the staged run (N, M, V tasks, `options`) to give scan's exit
// status, output and messages.
void ExpectStagedIsScan(const RunResult& staged, const RunResult& scan, const Args& options, int n, int m, int v) {
  std::string what = "N=" + std::to_string(n) + " M=" + std::to_string(m) + " V=" + std::to_string(v);
  for (const auto& o : options) what += " " + o;
  EXPECT_EQ(staged.exit_code, scan.exit_code) << what << "\n" << staged.err;
  EXPECT_EQ(staged.out, scan.out) << what;
  EXPECT_EQ(WithoutSeconds(staged.err), WithoutSeconds(scan.err)) << what;
}

void ExpectSameAsScan(const TempDir& dir, const Args& options, const Args& paths, int n, int m, int v = 2) {
  const RunResult scan = RunNeardup(With(With({"scan"}, options), paths), dir.path());
  const std::string work = dir / ("work-" + std::to_string(n) + "-" + std::to_string(m) + "-" + std::to_string(v));
  const RunResult staged = RunStages(dir, work, n, m, v, options, paths);
  ExpectStagedIsScan(staged, scan, options, n, m, v);
  std::filesystem::remove_all(work);
}

TEST(StageTest, SameAsScanForEveryTaskCountModeAndVerification) {
  TempDir dir;
  MakeTextCorpus(dir);
  for (const char* mode : {"pairs", "clusters", "duplicates"}) {
    for (const char* verify : {"signature", "exact", "none"}) {
      for (int n : {1, 3}) {
        for (int m : {1, 2}) {
          for (int v : {1, 2, 5}) {
            ExpectSameAsScan(dir, {"--mode", mode, "--verify", verify, "-t", "0.6", "-f", "json"}, {dir / "docs"}, n, m,
                             v);
          }
        }
      }
      ExpectSameAsScan(dir, {"--mode", mode, "--verify", verify, "-t", "0.6", "-f", "json"}, {dir / "docs"}, 7, 5, 3);
    }
  }
}

TEST(StageTest, SameAsScanWithAgainstAndEveryFormat) {
  TempDir dir;
  MakeTextCorpus(dir);
  for (const char* format : {"jsonl", "csv", "tsv"}) {
    for (const char* mode : {"pairs", "duplicates"}) {
      for (int v : {1, 5}) {
        ExpectSameAsScan(dir, {"--mode", mode, "--exact", "-f", format, "--against", dir / "ref"}, {dir / "docs"}, 3, 2,
                         v);
      }
    }
  }
}

TEST(StageTest, SameAsScanWithPathsFromAListGivenToEveryStage) {
  TempDir dir;
  MakeTextCorpus(dir);
  WriteFile(dir / "list", dir / "docs/b0\n" + dir / "docs/b1/c3.txt\n" + dir / "docs/u\n");
  ExpectSameAsScan(dir, {"--files-from", dir / "list", "--mode", "clusters"}, {}, 3, 2);
}

TEST(StageTest, SameAsScanOnJsonlWithRepeatedIdsAcrossShards) {
  TempDir dir;
  MakeJsonlCorpus(dir);
  for (const char* mode : {"pairs", "clusters"}) {
    for (int n : {1, 3}) {
      for (int m : {1, 2}) {
        for (int v : {1, 2, 5}) {
          ExpectSameAsScan(dir, {"--input", "jsonl", "--mode", mode, "-t", "0.5", "-f", "json"}, {dir / "jsonl"}, n, m,
                           v);
        }
      }
    }
    ExpectSameAsScan(dir, {"--input", "jsonl", "--mode", mode, "-t", "0.5", "-f", "json"}, {dir / "jsonl"}, 7, 5, 3);
    for (int v : {1, 5}) {
      ExpectSameAsScan(dir, {"--input", "jsonl", "--mode", mode, "--exact", "-t", "0.5"}, {dir / "jsonl"}, 3, 2, v);
    }
  }
  // The repeated id is reported (exit 2), as by scan.
  EXPECT_EQ(RunNeardup({"scan", "--input", "jsonl", dir / "jsonl"}, dir.path()).exit_code, 2);
}

// An id taken twice is renamed FILE:LINE, and that name is the id of a
// third document, in no pair and no group: the report, which reads only the
// documents it needs, still renames it as scan does.
TEST(StageTest, SameAsScanWhenARenamedIdIsAnotherDocumentsId) {
  TempDir dir;
  const auto base = RandomWords(60, 11);
  auto line = [](const std::string& id, const std::vector<std::string>& words) {
    return R"({"id": ")" + id + R"(", "text": ")" + Join(words) + "\"}\n";
  };
  auto near = base;
  near.push_back("extra");
  std::string a = line("p1", base) + line("p2", near);
  for (int u = 0; u < 3; ++u) a += line("u" + std::to_string(u), RandomWords(60, static_cast<uint64_t>(20 + u)));
  a += line("x", RandomWords(60, 30));  // line 6
  std::string b = line(dir / "jsonl/a.jsonl:6", RandomWords(60, 31)) + line("x", RandomWords(60, 32));
  b += line("p3", RandomWords(60, 33)) + R"({"text": "no id here at all but enough words"})" + "\n";
  WriteFile(dir / "jsonl/a.jsonl", a);
  WriteFile(dir / "jsonl/b.jsonl", b);
  const RunResult scan = RunNeardup({"scan", "--input", "jsonl", dir / "jsonl"}, dir.path());
  ASSERT_NE(scan.err.find("id \"" + dir / "jsonl/a.jsonl:6\" is not unique"), std::string::npos) << scan.err;
  for (const char* mode : {"pairs", "clusters", "duplicates"}) {
    for (int n : {1, 2})
      ExpectSameAsScan(dir, {"--input", "jsonl", "--mode", mode, "-f", "json"}, {dir / "jsonl"}, n, 2);
  }
}

// The report holds the documents of the pairs, not a record per document:
// over 300,000 short JSONL documents with 100 near-duplicate pairs, its
// peak memory stays under a bound that a record per document exceeds (the
// report that decoded every record took 230 MB here; this one 42 MB).
TEST(StageTest, ReportMemoryGrowsWithThePairsNotWithTheCorpus) {
  TempDir dir;
  constexpr int kDocs = 300000, kPairs = 100, kFiles = 4;
  uint64_t state = 12345;
  auto word = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    std::string w(1, 'w');
    w.append(std::to_string((state >> 33) % 50000));
    return w;
  };
  for (int f = 0; f < kFiles; ++f) {
    std::string text;
    for (int i = f * kDocs / kFiles; i < (f + 1) * kDocs / kFiles; ++i) {
      std::string words;
      for (int w = 0; w < 24; ++w) {
        if (w > 0) words.push_back(' ');
        words.append(word());
      }
      text += R"({"id": "d)" + std::to_string(i) + R"(", "text": ")" + words + "\"}\n";
      if (i % (kDocs / kPairs) == 0)
        text += R"({"id": "e)" + std::to_string(i) + R"(", "text": ")" + words + " edit\"}\n";
    }
    WriteFile(dir / ("jsonl/part" + std::to_string(f) + ".jsonl"), text);
  }
  // Signature verification: what the verify task holds is the rows of the
  // pairs' documents (exact verification reads their texts again besides).
  const Args options = {"--input", "jsonl", "-f", "jsonl", "--verify", "signature"};
  const std::string work = dir / "work";
  for (int i = 0; i < 2; ++i) {
    Args argv = {"stage", "sign", "--task", std::to_string(i), "--tasks", "2"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {work, dir / "jsonl"});
    ASSERT_EQ(RunNeardup(argv, dir.path()).exit_code, 0);
  }
  Args bucket = {"stage", "bucket", "--task", "0", "--tasks", "1"};
  bucket.insert(bucket.end(), options.begin(), options.end());
  bucket.push_back(work);
  ASSERT_EQ(RunNeardup(bucket, dir.path()).exit_code, 0);
  // The verify task reads the rows of the pairs' documents only: 200 rows,
  // not the 300,100 (150 MB of signatures) of the corpus.
  bucket[1] = "verify";
  long verify_rss_kb = 0;
  ASSERT_EQ(RunNeardup(bucket, dir.path(), RunOptions().MaxRss(&verify_rss_kb)).exit_code, 0);
  std::fprintf(stderr, "verify peak RSS %ld KiB\n", verify_rss_kb);
#if !defined(__SANITIZE_ADDRESS__)
  EXPECT_LT(verify_rss_kb, 48 * 1024) << "verify peak RSS " << verify_rss_kb / 1024 << " MB";
#endif
  Args report = {"stage", "report"};
  report.insert(report.end(), options.begin(), options.end());
  report.push_back(work);
  long max_rss_kb = 0;
  const RunResult staged = RunNeardup(report, dir.path(), RunOptions().MaxRss(&max_rss_kb));
  const RunResult scan = RunNeardup(With(With({"scan"}, options), {dir / "jsonl"}), dir.path());
  EXPECT_EQ(staged.exit_code, 0) << staged.err;
  EXPECT_EQ(staged.out, scan.out);
  EXPECT_EQ(std::count(staged.out.begin(), staged.out.end(), '\n'), kPairs);
  EXPECT_NE(staged.err.find("300100 documents"), std::string::npos) << staged.err;
#if !defined(__SANITIZE_ADDRESS__)
  constexpr long kBoundKb = 64 * 1024;
  EXPECT_LT(max_rss_kb, kBoundKb) << "peak RSS " << max_rss_kb / 1024 << " MB";
#endif
}

// With text input, a file is a document: the report holds the records of
// the files of the pairs' documents, not one a file. Over 40,000 one-line
// files whose paths are about 1,000 bytes long, 4 near-duplicate pairs and
// 2 shards, its peak memory stays under a bound that a record per file
// exceeds (the report that held every file's record twice peaked at
// 155 MB here; this one near 80 MB, mostly one shard's meta at a time).
TEST(StageTest, TextReportMemoryGrowsWithThePairsNotWithTheFiles) {
  TempDir dir;
  constexpr int kFiles = 40000, kPairs = 4;
  std::string folder = dir / "docs";
  for (int level = 0; level < 3; ++level) folder += "/" + std::string(240, static_cast<char>('a' + level));
  std::filesystem::create_directories(folder);
  uint64_t state = 777;
  auto word = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    std::string w(1, 'w');
    w.append(std::to_string((state >> 33) % 50000));
    return w;
  };
  const std::string tail(180, 'x');
  for (int i = 0; i < kFiles; ++i) {
    std::string words;
    for (int w = 0; w < 12; ++w) words.append(word()).push_back(' ');
    std::string name = folder;
    name.append("/").append(std::to_string(i)).append(tail);
    std::ofstream(name + ".txt") << words << "\n";
    if (i % (kFiles / kPairs) == 0) std::ofstream(name + "-copy.txt") << words << "edit\n";
  }
  const Args options = {"-f", "jsonl"};
  const std::string work = dir / "work";
  for (const char* stage : {"sign", "sign", "bucket", "verify"}) {
    const bool second = stage == std::string("sign") && std::filesystem::exists(work + "/sign/0.done");
    const bool sign = stage == std::string("sign");
    Args argv = {"stage", stage, "--task", second ? "1" : "0", "--tasks", sign ? "2" : "1", "-f", "jsonl", work};
    if (sign) argv.push_back(dir / "docs");
    ASSERT_EQ(RunNeardup(argv, dir.path()).exit_code, 0) << stage;
  }
  long max_rss_kb = 0;
  const RunResult staged =
      RunNeardup({"stage", "report", "-f", "jsonl", work}, dir.path(), RunOptions().MaxRss(&max_rss_kb));
  const RunResult scan = RunNeardup(With(With({"scan"}, options), {dir / "docs"}), dir.path());
  EXPECT_EQ(staged.exit_code, 0) << staged.err;
  EXPECT_EQ(staged.out, scan.out);
  EXPECT_EQ(std::count(staged.out.begin(), staged.out.end(), '\n'), kPairs);
  std::fprintf(stderr, "text report peak RSS %ld KiB\n", max_rss_kb);
#if !defined(__SANITIZE_ADDRESS__)
  constexpr long kBoundKb = 120 * 1024;
  EXPECT_LT(max_rss_kb, kBoundKb) << "peak RSS " << max_rss_kb / 1024 << " MB";
#endif
}

// A sign task streams its share: its records, signatures and band keys go
// to temporary files as they are made, and the table is written from them.
// Over one JSONL file of 600,000 short documents (a 340 MB table), the task's
// peak memory stays under a bound that holding the table exceeds (the task
// that held it peaked at 2.3 times the table; this one near 220 MB), and the report
// over the streamed shard is scan's.
// The access time of `path`, in seconds.
int64_t AccessTime(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return -1;
  return st.st_atim.tv_sec;
}

// Sets the access time of `path` to 2000-01-01, its mtime left.
void AgeAccessTime(const std::string& path) {
  const struct timespec times[2] = {{.tv_sec = 946684800, .tv_nsec = 0}, {.tv_sec = 0, .tv_nsec = UTIME_OMIT}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

// A sign task whose shard cannot be written (its file size limited, as a
// full disk would) stops at the chunk after the failure: the files of the
// chunks after it are never read (their access times, aged before the run,
// stay as they were, where a file of the first chunk is read).
TEST(StageTest, SignTaskThatCannotWriteStopsReading) {
  TempDir dir;
  constexpr int kFiles = 40000;  // three chunks of 16,384 files
  std::filesystem::create_directories(dir / "many");
  auto name = [&dir](int i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "f%05d", i);
    return dir / ("many/" + std::string(buf));
  };
  for (int i = 0; i < kFiles; ++i) {
    std::ofstream(name(i), std::ios::binary) << "text number " << i << " of many short texts with words " << i % 97;
  }
  for (int i : {0, 35000, kFiles - 1}) AgeAccessTime(name(i));
  ::signal(SIGXFSZ, SIG_IGN);  // the write fails instead (EFBIG), as on a full disk
  const RunResult r = RunProcess({"/usr/bin/prlimit", "--fsize=6291456", kBin, "stage", "sign", "--task", "0",
                                  "--tasks", "1", "-j", "2", dir / "work", dir / "many"},
                                 dir.path());
  ::signal(SIGXFSZ, SIG_DFL);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // The error names the file the task writes, not its temporary.
  EXPECT_NE(r.err.find("sign/0.table: cannot write: "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(".tmp-"), std::string::npos) << r.err;
  if (AccessTime(name(0)) == 946684800) GTEST_SKIP() << "access times are not updated here (noatime)";
  EXPECT_EQ(AccessTime(name(35000)), 946684800) << "a file of the third chunk was read";
  EXPECT_EQ(AccessTime(name(kFiles - 1)), 946684800) << "the last file was read";
}

TEST(StageTest, SignTaskMemoryIsBoundedByItsBuffersNotItsShare) {
  TempDir dir;
  constexpr int kDocs = 600000;
  uint64_t state = 99;
  auto word = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    std::string w(1, 'w');
    w.append(std::to_string((state >> 33) % 30000));
    return w;
  };
  {
    std::filesystem::create_directories(dir / "jsonl");
    std::ofstream out(dir / "jsonl/one.jsonl", std::ios::binary);
    std::string last;
    for (int i = 0; i < kDocs; ++i) {
      std::string words;
      for (int w = 0; w < 8; ++w) words.append(w > 0 ? " " : "").append(word());
      if (i % 6000 == 1) words = last + " edit";  // 100 near copies
      last = words;
      out << R"({"id":"d)" << i << R"(","text":")" << words << "\"}\n";
    }
  }
  const Args options = {"--input", "jsonl", "-f", "tsv", "-j2", "--min-words", "1", "--ngram", "2"};
  const std::string work = dir / "work";
  Args sign = {"stage", "sign", "--task", "0", "--tasks", "1"};
  sign.insert(sign.end(), options.begin(), options.end());
  sign.insert(sign.end(), {work, dir / "jsonl"});
  long sign_rss_kb = 0;
  const RunResult signed_share = RunNeardup(sign, dir.path(), RunOptions().MaxRss(&sign_rss_kb));
  ASSERT_EQ(signed_share.exit_code, 0) << signed_share.err;
  const auto table_bytes = std::filesystem::file_size(work + "/sign/0.table");
  std::fprintf(stderr, "sign peak RSS %ld KiB, table %ju bytes\n", sign_rss_kb, static_cast<uintmax_t>(table_bytes));
  EXPECT_GT(table_bytes, uintmax_t{kDocs} * 512);
#if !defined(__SANITIZE_ADDRESS__)
  EXPECT_LT(sign_rss_kb * 1024, static_cast<long>(table_bytes) * 8 / 10)
      << "sign peak RSS " << sign_rss_kb / 1024 << " MB for a table of " << table_bytes / 1000000 << " MB";
#endif
  // Its band keys spilled as they came: the band file holds several sorted
  // runs a band (the header's run count, bytes 20..23), merged by the bucket task.
  uint32_t runs = 0;
  {
    std::ifstream bands(work + "/sign/0.bands", std::ios::binary);
    bands.seekg(20);
    bands.read(reinterpret_cast<char*>(&runs), 4);
  }
  EXPECT_GE(runs, 3u);
  for (const char* stage : {"bucket", "verify"}) {
    Args argv = {"stage", stage, "--task", "0", "--tasks", "1"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(work);
    ASSERT_EQ(RunNeardup(argv, dir.path()).exit_code, 0) << stage;
  }
  Args report = {"stage", "report"};
  report.insert(report.end(), options.begin(), options.end());
  report.push_back(work);
  const RunResult staged = RunNeardup(report, dir.path());
  const RunResult scan = RunNeardup(With(With({"scan"}, options), {dir / "jsonl"}), dir.path());
  EXPECT_EQ(staged.exit_code, scan.exit_code) << staged.err;
  EXPECT_EQ(staged.out, scan.out);
  EXPECT_GE(std::count(staged.out.begin(), staged.out.end(), '\n'), 90);
}

TEST(StageTest, SameAsScanWithLargeBucketsInClusterModes) {
  TempDir dir;
  MakeLargeBucketCorpus(dir);
  for (const char* mode : {"clusters", "duplicates", "pairs"}) {
    for (int m : {1, 5}) ExpectSameAsScan(dir, {"--mode", mode, "-f", "json"}, {dir / "big"}, 3, m);
  }
}

// The non-hidden files of a folder, by name.
std::map<std::string, std::string> Files(const std::string& folder) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(folder)) {
    if (e.is_regular_file()) out[std::filesystem::relative(e.path(), folder).string()] = testing::ReadFile(e.path());
  }
  return out;
}

// `n` short JSONL documents of 60 words (ids "d0", "d1", ...), one in ten
// an exact copy of the one before, as WORK/../jsonl/corpus.jsonl.
std::string MakeShortJsonl(const TempDir& dir, int n) {
  std::string text;
  uint64_t state = 7;
  std::string words;
  for (int i = 0; i < n; ++i) {
    if (i % 10 != 1) {
      words.clear();
      for (int w = 0; w < 60; ++w) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        words.append(w == 0 ? "" : " ").append("w").append(std::to_string((state >> 33) % 50000));
      }
    }
    text.append(R"({"id":"d)").append(std::to_string(i)).append(R"(","text":")").append(words).append("\"}\n");
  }
  const std::string path = dir / "jsonl/corpus.jsonl";
  WriteFile(path, text);
  return path;
}

// The bytes of every file under `folder`.
uint64_t FolderBytes(const std::string& folder) {
  uint64_t total = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    if (entry.is_regular_file()) total += entry.file_size();
  }
  return total;
}

// Issue #26: at the defaults the work folder took 1.08 kB a document, 512
// bytes of it band keys that carried each document's content hash once a
// band. With the content hash once a document it is at most 0.8 kB.
TEST(StageTest, WorkFolderTakesAtMost800BytesADocument) {
  TempDir dir;
  const int n = 20000;
  const std::string corpus = MakeShortJsonl(dir, n);
  const std::string work = dir / "work";
  const RunResult r = RunStages(dir, work, 2, 2, 2, {"--input", "jsonl", "--mode", "duplicates"}, {corpus});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const uint64_t bytes = FolderBytes(work);
  EXPECT_LE(bytes, uint64_t{800} * n) << bytes / n << " bytes a document";
  std::fprintf(stderr, "work folder: %llu bytes, %.1f a document\n", static_cast<unsigned long long>(bytes),
               static_cast<double>(bytes) / n);
  // And the answer is scan's.
  const RunResult scan = RunNeardup({"scan", "--input", "jsonl", "--mode", "duplicates", corpus}, dir.path());
  EXPECT_EQ(r.out, scan.out);
  EXPECT_EQ(r.exit_code, scan.exit_code);
}

// Issue #26: a sign task held every band key of its share in memory (32
// bytes a document a band, then the whole file's bytes again: 544 bytes a
// document, 109 MB here, on top of its 114 MB table); it sorts each band in
// a budget of 16 MiB and streams it out. Peak RSS of the real binary,
// measured by GNU time from a process of its own (hostile_exact_test.cc).
TEST(StageTest, SignTaskHoldsOneBandsBudgetOfKeysNotAll) {
  TempDir dir;
  const std::string corpus = MakeShortJsonl(dir, 200000);
  const std::string work = dir / "work";
  const RunResult r = RunProcess({"/usr/bin/time", "-f", "%M", "-o", dir / "rss", kBin, "stage", "sign", "--task", "0",
                                  "--tasks", "1", "-j", "2", "--input", "jsonl", work, corpus},
                                 dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const long rss_kb = std::atol(testing::ReadFile(dir / "rss").c_str());
  EXPECT_GT(rss_kb, 0);
  // About 270 MiB here; 368 MiB with every key in memory. Under
  // AddressSanitizer the shadow and the quarantine add more than the keys.
#if defined(__SANITIZE_ADDRESS__)
  constexpr long kBoundKb = 600 * 1024;
#else
  constexpr long kBoundKb = 310 * 1024;
#endif
  EXPECT_LT(rss_kb, kBoundKb) << "peak RSS " << rss_kb << " KiB";
  std::fprintf(stderr, "peak RSS %ld KiB\n", rss_kb);
}

TEST(StageTest, KilledTaskRunAgainGivesTheSameFiles) {
  TempDir dir;
  // Enough text that signing takes a while.
  for (int i = 0; i < 400; ++i) {
    WriteFile(dir / ("docs/d" + std::to_string(1000 + i) + ".txt"), Join(RandomWords(3000, static_cast<uint64_t>(i))));
  }
  const std::string clean = dir / "clean";
  ASSERT_EQ(RunNeardup({"stage", "sign", "--task", "0", "--tasks", "1", clean, dir / "docs"}, dir.path()).exit_code, 0);
  const std::string work = dir / "work";
  bool killed_midway = false;
  for (int delay_ms : {5, 40, 150}) {
    std::vector<std::string> argv = {kBin, "stage", "sign", "--task", "0",         "--tasks",
                                     "1",  "-j",    "1",    work,     dir / "docs"};
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!std::filesystem::exists(work + "/sign/0.done")) {  // killed before the end: test the re-run
      killed_midway = true;
      break;
    }
    std::filesystem::remove_all(work);
  }
  ASSERT_TRUE(killed_midway);
  const RunResult again = RunNeardup({"stage", "sign", "--task", "0", "--tasks", "1", work, dir / "docs"}, dir.path());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(Files(work), Files(clean));  // and no temporary left
}

// A verify task killed midway and run again leaves the files of a task
// that was not interrupted, and the report is the same.
TEST(StageTest, KilledVerifyTaskRunAgainGivesTheSameFiles) {
  TempDir dir;
  // Many near-duplicate pairs (every other document an edited copy), so
  // that verifying takes a while.
  std::string text;
  uint64_t state = 3;
  std::string words;
  for (int i = 0; i < 120000; ++i) {
    if (i % 2 == 0) {
      words.clear();
      for (int w = 0; w < 40; ++w) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        words.append(w == 0 ? "" : " ").append("w").append(std::to_string((state >> 33) % 50000));
      }
    } else {
      words.append(" e").append(std::to_string(i));
    }
    text.append(R"({"id":"d)").append(std::to_string(i)).append(R"(","text":")").append(words).append("\"}\n");
  }
  WriteFile(dir / "jsonl/corpus.jsonl", text);
  const Args options = {"--input", "jsonl", "--mode", "clusters"};
  const std::string clean = dir / "clean";
  const RunResult first = RunStages(dir, clean, 2, 2, 2, options, {dir / "jsonl"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string work = dir / "work";
  bool killed_midway = false;
  for (int delay_ms : {5, 40, 150, 400}) {
    std::filesystem::remove_all(work);
    std::filesystem::copy(clean, work, std::filesystem::copy_options::recursive);
    std::filesystem::remove_all(work + "/verify");
    std::vector<std::string> argv = {kBin, "stage", "verify", "--task", "1", "--tasks", "2"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(work);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!std::filesystem::exists(work + "/verify/1.done")) {  // killed before the end: test the re-run
      killed_midway = true;
      break;
    }
  }
  ASSERT_TRUE(killed_midway);
  for (const char* task : {"1", "0"}) {
    Args argv = {"stage", "verify", "--task", task, "--tasks", "2"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(work);
    const RunResult again = RunNeardup(argv, dir.path());
    ASSERT_EQ(again.exit_code, 0) << again.err;
  }
  EXPECT_EQ(Files(work + "/verify"), Files(clean + "/verify"));  // and no temporary left
  Args report = {"stage", "report"};
  report.insert(report.end(), options.begin(), options.end());
  report.push_back(work);
  const RunResult r = RunNeardup(report, dir.path());
  EXPECT_EQ(r.exit_code, first.exit_code);
  EXPECT_EQ(r.out, first.out);
  EXPECT_FALSE(first.out.empty());
}

TEST(StageTest, CompletedTaskRunAgainIsANoOp) {
  TempDir dir;
  MakeTextCorpus(dir);
  const std::string work = dir / "work";
  Args sign = {"stage", "sign", "--task", "1", "--tasks", "2", "-v", work, dir / "docs"};
  ASSERT_EQ(RunNeardup(sign, dir.path()).exit_code, 0);
  const auto before = Files(work);
  const auto mtime = std::filesystem::last_write_time(work + "/sign/1.table");
  const RunResult again = RunNeardup(sign, dir.path());
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.err.find("nothing to do"), std::string::npos) << again.err;
  EXPECT_EQ(Files(work), before);
  EXPECT_EQ(std::filesystem::last_write_time(work + "/sign/1.table"), mtime);
}

// -v names what was skipped, as scan does: what the walk skipped by sign
// task 0 (every task walks the whole tree; the others stay quiet), what was
// skipped when read by the report.
TEST(StageTest, VerboseNamesEverySkippedFileOnce) {
  TempDir dir;
  MakeTextCorpus(dir);
  WriteFile(dir / "docs/.hidden.txt", Join(RandomWords(50, 3)));
  WriteFile(dir / "docs/blob.bin", std::string("\0\1\2binary", 9));
  const std::string work = dir / "work";
  std::string signs;
  for (const char* task : {"0", "1"}) {
    const RunResult r =
        RunNeardup({"stage", "sign", "-v", "--task", task, "--tasks", "2", work, dir / "docs"}, dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    signs += r.err;
    if (std::string(task) == "1") {
      EXPECT_EQ(r.err.find("skipped"), std::string::npos) << r.err;
    }
  }
  EXPECT_NE(signs.find("neardup: skipped " + (dir / "docs/.hidden.txt") + ": hidden"), std::string::npos) << signs;
  ASSERT_EQ(RunNeardup({"stage", "bucket", "--task", "0", "--tasks", "1", work}, dir.path()).exit_code, 0);
  ASSERT_EQ(RunNeardup({"stage", "verify", "--task", "0", "--tasks", "1", work}, dir.path()).exit_code, 0);
  const RunResult report = RunNeardup({"stage", "report", "-v", work}, dir.path());
  EXPECT_NE(report.err.find("neardup: skipped " + (dir / "docs/blob.bin") + ": binary"), std::string::npos)
      << report.err;
  const RunResult scan = RunNeardup({"scan", "-v", dir / "docs"}, dir.path());
  EXPECT_NE(scan.err.find("neardup: skipped " + (dir / "docs/.hidden.txt") + ": hidden"), std::string::npos);
}

TEST(StageTest, MissingTasksAreListedByNumber) {
  TempDir dir;
  MakeTextCorpus(dir);
  const std::string work = dir / "work";
  for (const char* task : {"0", "2", "4"}) {
    ASSERT_EQ(RunNeardup({"stage", "sign", "--task", task, "--tasks", "5", work, dir / "docs"}, dir.path()).exit_code,
              0);
  }
  RunResult r = RunNeardup({"stage", "bucket", "--task", "0", "--tasks", "1", work}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("2 of 5 sign tasks missing: 1, 3"), std::string::npos) << r.err;
  r = RunNeardup({"stage", "report", work}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("sign tasks missing: 1, 3"), std::string::npos) << r.err;
  for (const char* task : {"1", "3"}) {
    ASSERT_EQ(RunNeardup({"stage", "sign", "--task", task, "--tasks", "5", work, dir / "docs"}, dir.path()).exit_code,
              0);
  }
  ASSERT_EQ(RunNeardup({"stage", "bucket", "--task", "2", "--tasks", "3", work}, dir.path()).exit_code, 0);
  r = RunNeardup({"stage", "report", work}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("2 of 3 bucket tasks missing: 0, 1"), std::string::npos) << r.err;
  r = RunNeardup({"stage", "verify", "--task", "0", "--tasks", "2", work}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("2 of 3 bucket tasks missing: 0, 1"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(work + "/verify/0.pairs"));
  for (const char* task : {"0", "1"}) {
    ASSERT_EQ(RunNeardup({"stage", "bucket", "--task", task, "--tasks", "3", work}, dir.path()).exit_code, 0);
  }
  for (const char* task : {"1", "3"}) {
    ASSERT_EQ(RunNeardup({"stage", "verify", "--task", task, "--tasks", "4", work}, dir.path()).exit_code, 0);
  }
  r = RunNeardup({"stage", "report", work}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("2 of 4 verify tasks missing: 0, 2"), std::string::npos) << r.err;
}

TEST(StageTest, ShardsOfOtherParametersAreRefused) {
  TempDir dir;
  MakeTextCorpus(dir);
  const std::string work = dir / "work";
  ASSERT_EQ(RunNeardup({"stage", "sign", "--task", "0", "--tasks", "2", work, dir / "docs"}, dir.path()).exit_code, 0);
  RunResult r =
      RunNeardup({"stage", "sign", "--task", "1", "--tasks", "2", "--ngram", "4", work, dir / "docs"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--ngram: 4 here, 5 in shard 0"), std::string::npos) << r.err;
  r = RunNeardup({"stage", "sign", "--task", "1", "--tasks", "3", work, dir / "docs"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("made by a run of 2 tasks, not 3"), std::string::npos) << r.err;
  ASSERT_EQ(RunNeardup({"stage", "sign", "--task", "1", "--tasks", "2", work, dir / "docs"}, dir.path()).exit_code, 0);
  r = RunNeardup({"stage", "bucket", "--task", "0", "--tasks", "1", "--seed", "9", work}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--seed: 9 here, 1 in shard 0"), std::string::npos) << r.err;
  ASSERT_EQ(RunNeardup({"stage", "bucket", "--task", "0", "--tasks", "1", work}, dir.path()).exit_code, 0);
  ASSERT_EQ(RunNeardup({"stage", "verify", "--task", "0", "--tasks", "1", work}, dir.path()).exit_code, 0);
  // Bucket tasks of pairs mode do not serve a cluster report.
  r = RunNeardup({"stage", "report", "--mode", "clusters", work}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
}

// What decides what a document is (--text-key, --id-key, --min-words, ...)
// is part of every shard's fingerprint: sign tasks run with other reading
// options are refused, by a later sign task and, when they ran at once, by
// the bucket and report tasks, as shards of another tree are.
TEST(StageTest, ShardsOfOtherReadingOptionsAreRefused) {
  TempDir dir;
  MakeJsonlCorpus(dir);
  const Args jsonl = {"--input", "jsonl"};
  for (const Args& other : {Args{"--text-key", "id"}, Args{"--min-words", "100"}, Args{"--id-key", "text"}}) {
    SCOPED_TRACE(Join(other));
    const std::string work = dir / "work";
    const std::string apart = dir / "apart";
    std::filesystem::remove_all(work);
    std::filesystem::remove_all(apart);
    Args sign0 = {"stage", "sign", "--task", "0", "--tasks", "2", "--input", "jsonl", work, dir / "jsonl"};
    ASSERT_EQ(RunNeardup(sign0, dir.path()).exit_code, 0);
    Args sign1 = {"stage", "sign", "--task", "1", "--tasks", "2", "--input", "jsonl"};
    sign1.insert(sign1.end(), other.begin(), other.end());
    sign1.push_back(work);
    sign1.push_back(dir / "jsonl");
    RunResult r = RunNeardup(sign1, dir.path());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("made with other options"), std::string::npos) << r.err;
    // Run at once, both finish: their shards are refused afterwards.
    sign1[sign1.size() - 2] = apart;
    ASSERT_EQ(RunNeardup(sign1, dir.path()).exit_code, 0);
    for (const char* suffix : {"table", "meta", "bands", "done"}) {
      std::filesystem::copy_file(apart + "/sign/1." + suffix, work + "/sign/1." + suffix);
    }
    for (const char* stage : {"bucket", "report"}) {
      Args argv = {"stage", stage};
      if (std::string(stage) == "bucket") argv.insert(argv.end(), {"--task", "0", "--tasks", "1"});
      argv.insert(argv.end(), jsonl.begin(), jsonl.end());
      argv.push_back(work);
      r = RunNeardup(argv, dir.path());
      EXPECT_EQ(r.exit_code, 2) << stage;
      EXPECT_EQ(r.out, "");
      EXPECT_NE(r.err.find("made with other options"), std::string::npos) << stage << r.err;
    }
  }
}

// The user CPU seconds of the children waited for so far.
double ChildrenCpuSeconds() {
  struct rusage usage {};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec) + static_cast<double>(usage.ru_utime.tv_usec) / 1e6;
}

// A report in pairs mode builds no clusters: on a chain of 3,000 versions
// (each near the one before, --cluster-by keep's hardest shape) it costs
// about what scan in pairs mode costs, and its output is scan's. The dropped lists are then
// built by the filter tasks (stage_filter_test.cc: its folder is scan's).
TEST(StageTest, PairsReportBuildsNoClusters) {
  TempDir dir;
  auto words = RandomWords(150, 11);
  std::string text;
  uint64_t state = 5;
  for (int i = 0; i < 3000; ++i) {
    for (int e = 0; e < 2; ++e) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      std::string word = "v";  // appended: GCC 12 warns (-Wrestrict) on "v" + to_string(i)
      word.append(std::to_string(i)).append("_").append(std::to_string(e));
      words[(state >> 33) % words.size()] = word;
    }
    text.append(R"({"id": "d)").append(std::to_string(i)).append(R"(", "text": ")").append(Join(words)).append("\"}\n");
  }
  WriteFile(dir / "chain/chain.jsonl", text);
  const Args options = {"--input", "jsonl"};
  const std::string work = dir / "work";
  double at = ChildrenCpuSeconds();
  const RunResult staged = RunStages(dir, work, 1, 1, 1, options, {dir / "chain"});
  const double stages = ChildrenCpuSeconds() - at;
  at = ChildrenCpuSeconds();
  const RunResult scan = RunNeardup(With(With({"scan"}, options), {dir / "chain"}), dir.path());
  const double scanned = ChildrenCpuSeconds() - at;
  ExpectStagedIsScan(staged, scan, options, 1, 1, 1);
  EXPECT_GT(std::count(staged.out.begin(), staged.out.end(), '\n'), 2000);
  // The scan in pairs mode builds no clusters: the stages cost about as much
  // (main's report alone took 3 s against the scan's 0.1 s).
  EXPECT_LT(stages, 4 * scanned + 0.5) << "CPU seconds: stages " << stages << ", scan " << scanned;
  std::fprintf(stderr, "CPU seconds: stages %.2f, scan %.2f\n", stages, scanned);
}

// The report reads signatures from the shard files where they lie, but still
// checks every file whole: a signature byte damaged after the sign task is
// an error naming the file, not a different report.
TEST(StageTest, ShardDamagedAfterSigningIsRefusedNamingTheFile) {
  TempDir dir;
  MakeTextCorpus(dir);
  const std::string work = dir / "work";
  for (const char* task : {"0", "1"}) {
    ASSERT_EQ(RunNeardup({"stage", "sign", "--task", task, "--tasks", "2", work, dir / "docs"}, dir.path()).exit_code,
              0);
  }
  ASSERT_EQ(RunNeardup({"stage", "bucket", "--task", "0", "--tasks", "1", work}, dir.path()).exit_code, 0);
  ASSERT_EQ(RunNeardup({"stage", "verify", "--task", "0", "--tasks", "1", work}, dir.path()).exit_code, 0);
  RunResult r = RunNeardup({"stage", "report", work}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string good = r.out;

  const std::string table = work + "/sign/1.table";
  const std::string bytes = testing::ReadFile(table);
  ASSERT_GT(bytes.size(), 200u);
  std::string damaged = bytes;
  damaged[damaged.size() - 8 - 100] ^= 0x01;  // a bit of a signature near the end
  WriteFile(table, damaged);
  r = RunNeardup({"stage", "report", work}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(table + ": signature table: checksum mismatch"), std::string::npos) << r.err;

  WriteFile(table, bytes.substr(0, bytes.size() - 1));  // truncated
  r = RunNeardup({"stage", "report", work}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(table + ": signature table: truncated"), std::string::npos) << r.err;

  WriteFile(table, bytes);
  r = RunNeardup({"stage", "report", work}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, good);
}

// "Every removal right" (#23): a file renamed between two sign tasks would
// be in two shards (and reported as a copy of itself); every task records a
// fingerprint of the whole walked listing, and shards that disagree are
// refused by the next sign task, the bucket tasks and the report.
TEST(StageTest, InputsChangedBetweenSignTasksAreRefused) {
  TempDir dir;
  MakeTextCorpus(dir);
  const std::string work = dir / "work";
  const std::string kChanged = "the inputs changed between sign tasks; run again in an empty work folder";
  auto sign = [&](const char* task, const std::string& folder) {
    return RunNeardup({"stage", "sign", "--task", task, "--tasks", "2", folder, dir / "docs"}, dir.path());
  };
  ASSERT_EQ(sign("0", work).exit_code, 0);
  // docs/b0/c0.txt is in task 0's share; renamed, it falls in task 1's.
  std::filesystem::rename(dir / "docs/b0/c0.txt", dir / "docs/u/z.txt");
  RunResult r = sign("1", work);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(kChanged), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(work + "/sign/1.done"));
  // Tasks run at once do not see each other: task 1 signed elsewhere and
  // its shard brought in, as a parallel task would have left it.
  const std::string other = dir / "other";
  ASSERT_EQ(sign("1", other).exit_code, 0);
  for (const char* suffix : {"table", "bands", "meta", "done"}) {
    std::filesystem::copy_file(other + "/sign/1." + suffix, work + "/sign/1." + suffix);
  }
  r = RunNeardup({"stage", "bucket", "--task", "0", "--tasks", "1", work}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(kChanged), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(work + "/sign"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(work + "/bucket/0.done"));
  // Even with the bucket task's files there (made in a consistent folder
  // and brought in), the report refuses.
  ASSERT_EQ(sign("0", other).exit_code, 0);
  ASSERT_EQ(RunNeardup({"stage", "bucket", "--task", "0", "--tasks", "1", other}, dir.path()).exit_code, 0);
  for (const char* suffix : {"pairs", "done"}) {
    std::filesystem::copy_file(other + "/bucket/0." + suffix, work + "/bucket/0." + suffix);
  }
  r = RunNeardup({"stage", "report", "--mode", "duplicates", "--exact", work}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(kChanged), std::string::npos) << r.err;
}

// --exact is decided by the verify tasks: with the inputs moved away once
// they ran, the report still gives scan's bytes and exit status (it reads no
// document; before, it read them again and found them gone).
TEST(StageTest, ExactIsDecidedByTheVerifyTasksNotTheReport) {
  TempDir dir;
  MakeTextCorpus(dir);
  MakeJsonlCorpus(dir);
  struct Case {
    Args options;
    std::vector<std::string> inputs;  // folders under dir, moved away before the report
  };
  std::vector<Case> cases;
  for (const char* mode : {"pairs", "clusters", "duplicates"}) {
    cases.push_back({{"--mode", mode, "--exact", "-t", "0.6", "-f", "json"}, {"docs"}});
    cases.push_back({{"--mode", mode, "--exact", "-t", "0.5", "--input", "jsonl"}, {"jsonl"}});
    cases.push_back({{"--mode", mode, "--exact", "-f", "csv", "--against", dir / "ref"}, {"docs", "ref"}});
  }
  cases.push_back({{"--mode", "duplicates", "-t", "1"}, {"docs"}});
  for (const Case& c : cases) {
    const RunResult scan = RunNeardup(With(With({"scan"}, c.options), {dir / c.inputs[0]}), dir.path());
    for (int n : {1, 3}) {
      for (int m : {1, 2}) {
        for (int v : {1, 2, 5}) {
          const std::string work = dir / "work";
          auto move_away = [&] {
            for (const std::string& in : c.inputs) std::filesystem::rename(dir / in, dir / (in + ".away"));
          };
          const RunResult staged = RunStages(dir, work, n, m, v, c.options, {dir / c.inputs[0]}, move_away);
          for (const std::string& in : c.inputs) std::filesystem::rename(dir / (in + ".away"), dir / in);
          ExpectStagedIsScan(staged, scan, c.options, n, m, v);
          std::filesystem::remove_all(work);
        }
      }
    }
  }
}

// A document changed after it was signed is left out by the verify task
// that reads it again, with scan's message and exit status 2.
TEST(StageTest, DocumentChangedBeforeVerifyIsLeftOutAsScanLeavesItOut) {
  TempDir dir;
  MakeTextCorpus(dir);
  const Args options = {"--mode", "pairs", "--exact", "-t", "0.6"};
  const RunResult before = RunNeardup(With(With({"scan"}, options), {dir / "docs"}), dir.path());
  ASSERT_EQ(before.exit_code, 0);
  ASSERT_NE(before.out.find("b1/c1.txt"), std::string::npos);
  const std::string changed = dir / "docs/b1/c1.txt";
  const std::string work = dir / "work";
  // Signed and bucketed, then changed, then verified.
  const RunResult staged = RunStages(dir, work, 2, 1, 0, options, {dir / "docs"}, [&] {
    std::ofstream(changed, std::ios::app) << " more words at the end";
    for (const char* k : {"0", "1"}) {
      Args argv = {"stage", "verify", "--task", k, "--tasks", "2"};
      argv.insert(argv.end(), options.begin(), options.end());
      argv.push_back(work);
      EXPECT_EQ(RunNeardup(argv, dir.path()).exit_code, 0);
    }
  });
  EXPECT_EQ(staged.exit_code, 2) << staged.err;
  EXPECT_NE(staged.err.find("docs/b1/c1.txt: changed"), std::string::npos) << staged.err;
  EXPECT_EQ(staged.out.find("b1/c1.txt"), std::string::npos) << staged.out;
  EXPECT_NE(staged.out.find("b1/c2.txt"), std::string::npos) << staged.out;
}

// The report refuses verify outputs of the other kind (estimates for an
// --exact report, exact verdicts for one without), naming the file.
TEST(StageTest, ReportRefusesVerifyOutputsOfTheOtherKind) {
  TempDir dir;
  MakeTextCorpus(dir);
  const std::string work = dir / "work";
  for (bool exact_verify : {false, true}) {
    Args verify_options = {"--mode", "clusters", "-t", "0.6"};
    Args report_options = verify_options;
    Args& by_signature = exact_verify ? report_options : verify_options;
    by_signature.insert(by_signature.end(), {"--verify", "signature"});
    RunStages(dir, work, 1, 1, 2, verify_options, {dir / "docs"});
    Args argv = {"stage", "report"};
    argv.insert(argv.end(), report_options.begin(), report_options.end());
    argv.push_back(work);
    const RunResult r = RunNeardup(argv, dir.path());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    const std::string why =
        exact_verify ? ": verified by reading the documents again" : ": verified from the signatures";
    EXPECT_NE(r.err.find(work + "/verify/0.pairs" + why), std::string::npos) << r.err;
    std::filesystem::remove_all(work);
  }
}

// A work folder used again after its inputs changed: the sign tasks walk
// before deciding they are done, and refuse instead of handing on the first
// run's shards. Over an unchanged tree a finished task is still a no-op.
TEST(StageTest, SignTaskRunAgainOverAChangedTreeIsRefused) {
  TempDir dir;
  MakeTextCorpus(dir);
  const std::string work = dir / "work";
  auto sign = [&](const char* task) {
    return RunNeardup({"stage", "sign", "--task", task, "--tasks", "2", "-v", work, dir / "docs"}, dir.path());
  };
  ASSERT_EQ(sign("0").exit_code, 0);
  ASSERT_EQ(sign("1").exit_code, 0);
  RunResult r = sign("0");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("done before, nothing to do"), std::string::npos) << r.err;
  WriteFile(dir / "docs/u/u3.txt", Join(RandomWords(210, 77)));  // edited in place
  for (const char* task : {"0", "1"}) {
    r = sign(task);
    EXPECT_EQ(r.exit_code, 2) << task;
    EXPECT_NE(r.err.find("the inputs changed between sign tasks; run again in an empty work folder"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(work + "/sign"), std::string::npos) << r.err;
  }
  // A new file is a change too.
  const std::string fresh = dir / "fresh";
  ASSERT_EQ(RunNeardup({"stage", "sign", "--task", "0", "--tasks", "1", fresh, dir / "docs"}, dir.path()).exit_code, 0);
  WriteFile(dir / "docs/new.txt", "a new file");
  r = RunNeardup({"stage", "sign", "--task", "0", "--tasks", "1", fresh, dir / "docs"}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

// Two paths of one file (a hard link) are one document in the stages, as in
// scan: the walk keys files by device and inode before the shares are cut,
// so the link is neither signed twice nor listed as removable.
TEST(StageTest, HardLinkedFileIsOneDocumentAsInScan) {
  TempDir dir;
  MakeTextCorpus(dir);
  std::filesystem::create_hard_link(dir / "docs/b0/c0.txt", dir / "docs/u/zz_link.txt");
  for (int n : {1, 2, 3}) ExpectSameAsScan(dir, {"--mode", "duplicates", "--exact"}, {dir / "docs"}, n, 1);
  const RunResult scan = RunNeardup({"scan", "--mode", "duplicates", "--exact", dir / "docs"}, dir.path());
  EXPECT_EQ(scan.out.find("zz_link"), std::string::npos) << scan.out;
}

TEST(StageTest, TaskComesFromSlurmOrIsAUsageError) {
  TempDir dir;
  MakeTextCorpus(dir);
  const std::string work = dir / "work";
  ::unsetenv("SLURM_ARRAY_TASK_ID");
  ::unsetenv("SLURM_ARRAY_TASK_COUNT");
  RunResult r = RunNeardup({"stage", "sign", work, dir / "docs"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--task is missing"), std::string::npos) << r.err;
  ::setenv("SLURM_ARRAY_TASK_ID", "0", 1);
  ::setenv("SLURM_ARRAY_TASK_COUNT", "1", 1);
  r = RunNeardup({"stage", "sign", work, dir / "docs"}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = RunNeardup({"stage", "bucket", work}, dir.path());
  ::unsetenv("SLURM_ARRAY_TASK_ID");
  ::unsetenv("SLURM_ARRAY_TASK_COUNT");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(work + "/bucket/0.done"));
  r = RunNeardup({"stage", "report", work, dir / "docs"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("take no PATH"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace neardup
