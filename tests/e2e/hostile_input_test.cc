// Hostile input, end to end: what a careless cron job or a hostile user can put
// in front of neardup. Each case runs the real binary where it can (a file
// swapped for a FIFO mid-run needs the injectable FileSystem to be
// deterministic) and checks that the run finishes, reports the right thing and,
// for the memory cases, keeps its peak RSS under a stated bound.
//
// Memory bounds: a scan of two small files peaks at about 6 MB; the read
// buffers, the MinHash tables and the thread stacks stay under 40 MB. The
// bound used below, 100 MB, leaves room for that and for allocator slack,
// while each input here would take 2-4x its size (200-500 MB) if a word, a
// line, a decompressed stream or the --exact shingle occurrences were held.
// Under AddressSanitizer (-DNEARDUP_SANITIZE=ON) the binary idles at about
// 210 MB (the 256 MB allocation quarantine and the shadow memory), so the
// bound there is 320 MB: still well under what the regressions take there.
// RunProcess spawns with posix_spawn (vfork semantics), so the child's peak
// RSS also counts the test process's own peak at exec time: these tests keep
// their own memory small (1 MiB blocks), and ctest runs each in its own process.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <climits>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "e2e/run_neardup.h"
#include "neardup/options.h"
#include "neardup/scan.h"
#include "test_paths.h"
#include "test_util.h"
#include "walk/file_system.h"

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
#if defined(__SANITIZE_ADDRESS__)
constexpr long kMemoryBoundKb = 320 * 1024;
// The tight bounds below (bytes per document, the --max-line limit plus a
// few MB) measure neardup's own buffers. Under AddressSanitizer each
// allocation carries redzones and every freed block waits in the quarantine,
// so those bounds are asserted by the Release build only; the sanitized run
// still checks that the run finishes and what it reports.
constexpr bool kTightBounds = false;
#else
constexpr long kMemoryBoundKb = 100 * 1024;
constexpr bool kTightBounds = true;
#endif

std::string Text(uint64_t seed, size_t words = 300) { return Join(RandomWords(words, seed)); }

// Writes `block` repeated until the file holds `size` bytes, without holding it.
void WriteRepeated(const std::string& path, const std::string& block, uint64_t size) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  for (uint64_t written = 0; written < size;) {
    const auto n = static_cast<size_t>(std::min<uint64_t>(block.size(), size - written));
    out.write(block.data(), static_cast<std::streamsize>(n));
    written += n;
  }
  ASSERT_TRUE(out.good()) << path;
}

// A gzip file of `size` bytes of `c`, compressed as a stream.
void WriteGzipBomb(const std::string& path, char c, uint64_t size) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  z_stream zs{};
  ASSERT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
  const std::string block(1 << 20, c);
  std::string buf(1 << 16, '\0');
  for (uint64_t fed = 0;;) {
    const auto n = static_cast<uInt>(std::min<uint64_t>(block.size(), size - fed));
    fed += n;
    const int flush = fed == size ? Z_FINISH : Z_NO_FLUSH;
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(block.data()));
    zs.avail_in = n;
    do {
      zs.next_out = reinterpret_cast<Bytef*>(buf.data());
      zs.avail_out = static_cast<uInt>(buf.size());
      deflate(&zs, flush);
      out.write(buf.data(), static_cast<std::streamsize>(buf.size() - zs.avail_out));
    } while (zs.avail_out == 0);
    if (flush == Z_FINISH) break;
  }
  deflateEnd(&zs);
  ASSERT_TRUE(out.good());
}

struct Scan {
  RunResult run;
  nlohmann::json json;
  long max_rss_kb = 0;
};

// `neardup scan -f json ARGS...`, stdout parsed.
Scan ScanJson(const TempDir& dir, const std::vector<std::string>& args) {
  Scan s;
  s.run = RunNeardup(With({"scan", "-f", "json"}, args), dir.path(), RunOptions().MaxRss(&s.max_rss_kb));
  s.json = nlohmann::json::parse(s.run.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(s.json.is_discarded()) << "stdout: " << s.run.out << "\nstderr: " << s.run.err;
  return s;
}

// `sh -c SCRIPT` with NEARDUP set to the binary; stdout parsed as JSON.
Scan ShellJson(const TempDir& dir, const std::string& shell, const std::string& script) {
  Scan s;
  s.run = RunProcess({shell, "-c", "NEARDUP='" + kBin + "'; " + script}, dir.path());
  s.json = nlohmann::json::parse(s.run.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(s.json.is_discarded()) << "stdout: " << s.run.out << "\nstderr: " << s.run.err;
  return s;
}

std::vector<std::pair<std::string, std::string>> PairsOf(const nlohmann::json& j) {
  std::vector<std::pair<std::string, std::string>> out;
  if (j.is_discarded() || !j.contains("pairs")) return out;
  for (const auto& p : j["pairs"]) out.emplace_back(p["a"].get<std::string>(), p["b"].get<std::string>());
  return out;
}

// --- A file swapped for a FIFO between the walk and the read (item 4) ---------

// Swaps the named file for a FIFO (with no writer, ever) just before the
// pipeline opens it, then opens through the real file system.
class SwapToFifoFs : public FileSystem {
 public:
  explicit SwapToFifoFs(std::string victim) : victim_(std::move(victim)) {}
  Result<std::unique_ptr<ByteReader>> Open(const std::string& path) override {
    Swap(path);
    return FileSystem::Default().Open(path);
  }
  Result<std::unique_ptr<ByteReader>> OpenExpected(const std::string& path, const FileIdentity& expected) override {
    Swap(path);
    return FileSystem::Default().OpenExpected(path, expected);
  }
  Result<FileStat> Stat(const std::string& path) override { return FileSystem::Default().Stat(path); }

 private:
  void Swap(const std::string& path) {
    if (path != victim_ || swapped_.exchange(true)) return;
    EXPECT_EQ(::unlink(path.c_str()), 0);
    EXPECT_EQ(::mkfifo(path.c_str(), 0644), 0);
  }
  std::string victim_;
  std::atomic<bool> swapped_{false};
};

TEST(HostileInputTest, FileSwappedForFifoAfterTheWalkIsAnErrorNotAHang) {
  TempDir dir;
  WriteFile(dir / "d/a.txt", Text(1));
  WriteFile(dir / "d/b.txt", Text(2));
  WriteFile(dir / "d/c.txt", Text(2));
  SwapToFifoFs fs(dir / "d/a.txt");
  Options options;
  options.paths = {dir / "d"};
  options.threads = 2;
  RunContext ctx;
  ctx.fs = &fs;
  // A blocking open of a FIFO without a writer never returns: the alarm turns
  // such a hang into a failure of this test binary instead of a stuck suite.
  ::alarm(120);
  Result<Report> report = FindDuplicates(options, ctx);
  ::alarm(0);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->stats.unreadable, 1u);
  EXPECT_EQ(report->stats.documents, 2u);
  ASSERT_EQ(report->problems.size(), 1u);
  EXPECT_EQ(report->problems[0].code(), Status::Code::kChanged);
  EXPECT_EQ(report->problems[0].message().rfind(dir / "d/a.txt: ", 0), 0u) << report->problems[0].message();
  ASSERT_EQ(report->pairs.size(), 1u);
}

// --- Bounded memory whatever the input (item 5) -------------------------------

TEST(HostileInputTest, FileOfOneLetterIsReadWithBoundedMemory) {
  TempDir dir;
  constexpr uint64_t kSize = 256ULL << 20;
  WriteRepeated(dir / "d/one_letter.txt", std::string(1 << 20, 'a'), kSize);
  WriteFile(dir / "d/x.txt", Text(3));
  WriteFile(dir / "d/y.txt", Text(3));
  const Scan s = ScanJson(dir, {"-j1", dir / "d"});
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
  EXPECT_EQ(s.json["stats"]["documents"], 3);
  EXPECT_EQ(s.json["stats"]["bytes"].get<uint64_t>(), kSize + 2 * Text(3).size());
  EXPECT_LT(s.max_rss_kb, kMemoryBoundKb) << "peak RSS " << s.max_rss_kb / 1024 << " MB";
}

// A base letter and then one endless combining sequence: the normalizer cuts
// it (see docs/method.md) and the word it makes is hashed as it streams.
TEST(HostileInputTest, LongRunOfCombiningMarksIsReadWithBoundedMemory) {
  TempDir dir;
  std::string block;
  while (block.size() < (1 << 20)) block += "\xcc\x81";  // U+0301 COMBINING ACUTE ACCENT
  std::filesystem::create_directories(dir / "d");
  WriteFile(dir / "d/start.txt", "a");
  WriteRepeated(dir / "d/marks.txt", block, 96ULL << 20);
  {
    std::ofstream out(dir / "d/marks.txt", std::ios::binary | std::ios::app);
    out << " and then some ordinary words\n";
  }
  {
    // "a" followed by the marks, in one file.
    std::ofstream out(dir / "d/combined.txt", std::ios::binary);
    out << "a";
    std::ifstream in(dir / "d/marks.txt", std::ios::binary);
    out << in.rdbuf();
  }
  std::filesystem::remove(dir / "d/marks.txt");
  std::filesystem::remove(dir / "d/start.txt");
  const Scan s = ScanJson(dir, {"-j1", dir / "d"});
  ASSERT_EQ(s.run.exit_code, 1) << s.run.err;
  EXPECT_EQ(s.json["stats"]["documents"], 1);
  EXPECT_LT(s.max_rss_kb, kMemoryBoundKb) << "peak RSS " << s.max_rss_kb / 1024 << " MB";
}

// A 200 KB gzip file that expands to 256 MB of one letter: with
// --max-filesize 10M it is skipped as too large once 10 MB came out, with a
// warning, and without an error exit; without a limit it is read in bounded
// memory.
TEST(HostileInputTest, GzipBombIsStoppedByMaxFilesizeAndReadInBoundedMemory) {
  TempDir dir;
  WriteGzipBomb(dir / "d/bomb.txt.gz", 'a', 256ULL << 20);
  ASSERT_LT(std::filesystem::file_size(dir / "d/bomb.txt.gz"), 1u << 20);
  WriteFile(dir / "d/x.txt", Text(4));
  WriteFile(dir / "d/y.txt", Text(4));

  Scan s = ScanJson(dir, {"-j1", "--max-filesize", "10M", dir / "d"});
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
  EXPECT_EQ(s.json["stats"]["documents"], 2);
  EXPECT_EQ(s.json["stats"]["too_large"], 1) << s.json["stats"].dump();
  EXPECT_EQ(s.json["stats"]["unreadable"], 0);
  EXPECT_NE(s.run.err.find(dir / "d/bomb.txt.gz: skipped, more than --max-filesize 10485760 bytes once decompressed"),
            std::string::npos)
      << s.run.err;
  EXPECT_LT(s.json["stats"]["bytes"].get<uint64_t>(), 1u << 20);  // the bomb's bytes are not counted
  EXPECT_LT(s.max_rss_kb, kMemoryBoundKb) << "peak RSS " << s.max_rss_kb / 1024 << " MB";

  s = ScanJson(dir, {"-j1", dir / "d"});
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
  EXPECT_EQ(s.json["stats"]["documents"], 3);
  EXPECT_LT(s.max_rss_kb, kMemoryBoundKb) << "peak RSS " << s.max_rss_kb / 1024 << " MB";

  // The same limit stops a compressed JSONL file before any of its lines counts.
  WriteGzipBomb(dir / "j/bomb.jsonl.gz", '\n', 64ULL << 20);
  WriteFile(dir / "j/ok.jsonl",
            "{\"id\":\"p\",\"text\":\"" + Text(5) + "\"}\n{\"id\":\"q\",\"text\":\"" + Text(5) + "\"}\n");
  s = ScanJson(dir, {"--input", "jsonl", "--max-filesize", "1M", dir / "j"});
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
  EXPECT_EQ(s.json["stats"]["too_large"], 1) << s.json["stats"].dump();
  EXPECT_NE(s.run.err.find("bomb.jsonl.gz: skipped, more than --max-filesize"), std::string::npos) << s.run.err;
}

// --max-line: a JSONL line longer than the limit is a malformed line (with its
// FILE:LINE), and is never held.
TEST(HostileInputTest, OverlongJsonlLineIsMalformedAndNeverBuffered) {
  TempDir dir;
  const std::string good_a = "{\"id\":\"a\",\"text\":\"" + Text(6) + "\"}\n";
  const std::string good_b = "{\"id\":\"b\",\"text\":\"" + Text(6) + "\"}\n";
  {
    std::filesystem::create_directories(dir / "d");
    std::ofstream out(dir / "d/in.jsonl", std::ios::binary);
    out << good_a << "{\"id\":\"huge\",\"text\":\"";
    const std::string block(1 << 20, 'x');
    for (int i = 0; i < 200; ++i) out << block;
    out << "\"}\n" << good_b;
  }
  Scan s = ScanJson(dir, {"--input", "jsonl", "--max-line", "1M", dir / "d/in.jsonl"});
  ASSERT_EQ(s.run.exit_code, 2) << s.run.err;  // a malformed line: exit 2, after the output
  EXPECT_EQ(PairsOf(s.json), (std::vector<std::pair<std::string, std::string>>{{"a", "b"}}));
  EXPECT_EQ(s.json["stats"]["malformed_lines"], 1) << s.json["stats"].dump();
  EXPECT_NE(s.run.err.find(dir / "d/in.jsonl:2: line longer than --max-line 1048576 bytes"), std::string::npos)
      << s.run.err;
  EXPECT_LT(s.max_rss_kb, kMemoryBoundKb) << "peak RSS " << s.max_rss_kb / 1024 << " MB";

  // The default limit (256M) keeps the 200 MB line; a bad size is a usage error.
  RunResult bad = RunNeardup({"scan", "--max-line", "0", dir / "d"}, dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--max-line"), std::string::npos) << bad.err;
}

// A JSONL document that is empty or under --min-words is counted, not
// signed: it costs a compact record (under 100 bytes, plus its id's string
// when it has one), not a signature row. 500,000 of each kind, -j2: the peak
// RSS over that of a one-line file measures 62-68 bytes per document (about
// 106 with an id of its own); the bounds, 150 and 200, leave room for where
// the vectors are in their growth and for the allocator on a loaded machine,
// while a signature row and a full record per document took 800-1,100 bytes
// each.
TEST(HostileInputTest, EmptyAndTooShortJsonlDocumentsCostACompactRecord) {
  TempDir dir;
  constexpr long kDocs = 500'000;
  std::filesystem::create_directories(dir / "d");
  {
    std::ofstream empty(dir / "d/empty.jsonl", std::ios::binary);
    std::ofstream short_ids(dir / "d/short.jsonl", std::ios::binary);
    for (long i = 0; i < kDocs; ++i) {
      empty << "{\"text\":\"\"}\n";
      short_ids << "{\"id\":\"s" << i << "\",\"text\":\"one\"}\n";
    }
    std::ofstream one(dir / "d/one.jsonl", std::ios::binary);
    one << "{\"text\":\"one two\"}\n";
  }
  const Scan base = ScanJson(dir, {"--input", "jsonl", "-j2", "--min-words", "2", dir / "d/one.jsonl"});
  ASSERT_EQ(base.run.exit_code, 1) << base.run.err;
  struct Case {
    const char* file;
    const char* count;
    long bytes_per_doc;
  };
  for (const Case& c : {Case{"d/empty.jsonl", "empty", 150}, Case{"d/short.jsonl", "too_short", 200}}) {
    SCOPED_TRACE(c.file);
    const Scan s = ScanJson(dir, {"--input", "jsonl", "-j2", "--min-words", "2", dir / c.file});
    ASSERT_EQ(s.run.exit_code, 1) << s.run.err;
    EXPECT_EQ(s.json["stats"][c.count], kDocs) << s.json["stats"].dump();
    EXPECT_EQ(s.json["stats"]["documents"], 0) << s.json["stats"].dump();
    if (kTightBounds) {
      EXPECT_LT((s.max_rss_kb - base.max_rss_kb) * 1024, c.bytes_per_doc * kDocs)
          << "peak RSS " << s.max_rss_kb / 1024 << " MB, " << base.max_rss_kb / 1024 << " MB for one line";
    }
  }
}

// Skipping a line over --max-line holds at most the limit and one read block:
// the bytes before the line is known to be too long, never twice, and not
// after. A 96 MB line under --max-line 32M, plain and gzip-compressed: peak
// RSS under 32 MB + 40 MB (a scan of small files peaks near 20 MB; holding
// the line's first bytes twice, as a buffer grown by copying does, takes
// over 100 MB).
TEST(HostileInputTest, SkippingAnOverlongLineHoldsAtMostTheLimit) {
  TempDir dir;
  constexpr uint64_t kMaxLine = 32ULL << 20;
  const std::string good_a = "{\"id\":\"a\",\"text\":\"" + Text(6) + "\"}\n";
  const std::string good_b = "{\"id\":\"b\",\"text\":\"" + Text(6) + " x\"}\n";
  const std::string block(1 << 20, 'x');
  std::filesystem::create_directories(dir / "d");
  {
    std::ofstream out(dir / "d/in.jsonl", std::ios::binary);
    out << good_a << "{\"id\":\"huge\",\"text\":\"";
    for (int i = 0; i < 96; ++i) out << block;
    out << "\"}\n" << good_b;
  }
  {
    gzFile gz = gzopen((dir / "d/in2.jsonl.gz").c_str(), "wb1");
    ASSERT_NE(gz, nullptr);
    const std::string head = good_a + "{\"id\":\"huge2\",\"text\":\"";
    const std::string tail = "\"}\n" + good_b;
    gzwrite(gz, head.data(), static_cast<unsigned>(head.size()));
    for (int i = 0; i < 96; ++i) gzwrite(gz, block.data(), static_cast<unsigned>(block.size()));
    gzwrite(gz, tail.data(), static_cast<unsigned>(tail.size()));
    ASSERT_EQ(gzclose(gz), Z_OK);
  }
  for (const char* name : {"d/in.jsonl", "d/in2.jsonl.gz"}) {
    SCOPED_TRACE(name);
    Scan s = ScanJson(dir, {"--input", "jsonl", "--mode", "clusters", "--max-line", "32M", dir / name});
    ASSERT_EQ(s.run.exit_code, 2) << s.run.err;
    EXPECT_EQ(s.json["stats"]["documents"], 2) << s.json["stats"].dump();
    EXPECT_EQ(s.json["stats"]["malformed_lines"], 1) << s.json["stats"].dump();
    EXPECT_NE(s.run.err.find(dir / name + ":2: line longer than --max-line 33554432 bytes"), std::string::npos)
        << s.run.err;
    if (kTightBounds) {
      EXPECT_LT(s.max_rss_kb, static_cast<long>(kMaxLine / 1024) + 40 * 1024)
          << "peak RSS " << s.max_rss_kb / 1024 << " MB";
    }
  }
}

// From a regular file, a line over --max-line is measured by reading ahead
// for its newline and dropped without being held: a 160 MB line under a
// 128 MiB limit costs a few MiB, not the limit. (A compressed file cannot be
// read ahead: the test above bounds it by the limit.) A line that fits, read
// ahead the same way, is still a document.
TEST(HostileInputTest, AnOverlongLineOfARegularFileIsNotHeld) {
  TempDir dir;
  const std::string good_a = "{\"id\":\"a\",\"text\":\"" + Text(6) + "\"}\n";
  const std::string good_b = "{\"id\":\"b\",\"text\":\"" + Text(6) + " x\"}\n";
  const std::string block(1 << 20, 'x');
  std::filesystem::create_directories(dir / "d");
  {
    std::ofstream out(dir / "d/in.jsonl", std::ios::binary);
    out << good_a << "{\"id\":\"huge\",\"text\":\"";
    for (int i = 0; i < 160; ++i) out << block;
    out << "\"}\n"
        << "{\"id\":\"long\",\"text\":\"";
    for (int i = 0; i < 6; ++i) out << block;  // 6 MiB: read ahead, and a document
    out << "\"}\n" << good_b;
  }
  Scan s = ScanJson(dir, {"--input", "jsonl", "--mode", "clusters", "--max-line", "128M", dir / "d/in.jsonl"});
  ASSERT_EQ(s.run.exit_code, 2) << s.run.err;
  EXPECT_EQ(s.json["stats"]["documents"], 3) << s.json["stats"].dump();
  EXPECT_EQ(s.json["stats"]["malformed_lines"], 1) << s.json["stats"].dump();
  EXPECT_NE(s.run.err.find(dir / "d/in.jsonl:2: line longer than --max-line 134217728 bytes"), std::string::npos)
      << s.run.err;
  if (kTightBounds) {
    EXPECT_LT(s.max_rss_kb, 80 * 1024) << "peak RSS " << s.max_rss_kb / 1024 << " MB";
  }
}

// --exact re-reads the candidates' text for their shingle sets: bounded by the
// sets, not by the text (two 128 MB files of a repeated 1 MB block).
TEST(HostileInputTest, ExactReReadOfLargeFilesIsBoundedBySets) {
  TempDir dir;
  std::string block = Join(RandomWords(180'000, 7, 2000)) + "\n";
  block.resize(1 << 20);
  block.back() = '\n';
  WriteRepeated(dir / "d/big_a.txt", block, 128ULL << 20);
  WriteRepeated(dir / "d/big_b.txt", block, (128ULL << 20) - 1);  // not an exact copy: verified by sets
  const Scan s = ScanJson(dir, {"-j1", "--exact", dir / "d"});
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
  ASSERT_EQ(PairsOf(s.json).size(), 1u);
  EXPECT_GT(s.json["pairs"][0]["jaccard"].get<double>(), 0.99);
  EXPECT_LT(s.max_rss_kb, kMemoryBoundKb) << "peak RSS " << s.max_rss_kb / 1024 << " MB";
}

// --- Special files named on the command line are read (item 9) ---------------

TEST(HostileInputTest, DevStdinPipeIsReadAsADocument) {
  TempDir dir;
  WriteFile(dir / "a.txt", Text(8));
  WriteFile(dir / "b.txt", Text(8));
  const Scan s = ShellJson(
      dir, "/bin/sh", "cat '" + (dir / "a.txt") + "' | \"$NEARDUP\" scan -f json /dev/stdin '" + (dir / "b.txt") + "'");
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
  EXPECT_EQ(PairsOf(s.json), (std::vector<std::pair<std::string, std::string>>{{"/dev/stdin", dir / "b.txt"}}));
  EXPECT_EQ(s.json["stats"]["documents"], 2);
  EXPECT_EQ(s.json["stats"]["unreadable"], 0);
}

TEST(HostileInputTest, ProcessSubstitutionIsReadAsADocument) {
  if (!std::filesystem::exists("/bin/bash")) GTEST_SKIP() << "needs bash for <(...)";
  TempDir dir;
  WriteFile(dir / "a.txt", Text(9));
  WriteFile(dir / "b.txt", Text(9));
  const Scan s = ShellJson(dir, "/bin/bash",
                           "\"$NEARDUP\" scan -f json <(cat '" + (dir / "a.txt") + "') '" + (dir / "b.txt") + "'");
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
  ASSERT_EQ(PairsOf(s.json).size(), 1u);
  EXPECT_EQ(s.json["stats"]["documents"], 2);
}

TEST(HostileInputTest, FifoArgumentIsReadAsADocumentAndFifosInDirectoriesAreNot) {
  TempDir dir;
  WriteFile(dir / "d/b.txt", Text(10));
  ASSERT_EQ(::mkfifo((dir / "d/never_opened").c_str(), 0644), 0);  // no writer: opening it would hang
  ASSERT_EQ(::mkfifo((dir / "pipe").c_str(), 0644), 0);
  std::thread writer([&] {
    std::ofstream out(dir / "pipe", std::ios::binary);  // waits for the scan to open it
    out << Text(10);
  });
  Scan s;
  s.run = RunNeardup({"scan", "-v", "-f", "json", dir / "pipe", dir / "d"}, dir.path());
  writer.join();
  s.json = nlohmann::json::parse(s.run.out, nullptr, false);
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err;
  EXPECT_EQ(PairsOf(s.json), (std::vector<std::pair<std::string, std::string>>{{dir / "d/b.txt", dir / "pipe"}}));
  EXPECT_NE(s.run.err.find("1 special file (fifos, sockets, devices) found while walking was not read"),
            std::string::npos)
      << s.run.err;
}

// --- Smaller things (item 12) --------------------------------------------------

// Makes `depth` nested directories "d" under `root` with `files` (name,
// content) at the bottom, through directory descriptors (the deepest paths
// are near PATH_MAX). Returns the relative path of the bottom directory.
std::string MakeDeepTree(const std::string& root, int depth,
                         const std::vector<std::pair<std::string, std::string>>& files) {
  std::filesystem::create_directories(root);
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY);
  EXPECT_GE(fd, 0);
  std::string rel;
  for (int i = 0; i < depth; ++i) {
    EXPECT_EQ(::mkdirat(fd, "d", 0755), 0);
    const int next = ::openat(fd, "d", O_RDONLY | O_DIRECTORY);
    EXPECT_GE(next, 0);
    ::close(fd);
    fd = next;
    rel += rel.empty() ? "d" : "/d";
  }
  for (const auto& [name, content] : files) {
    const int out = ::openat(fd, name.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    EXPECT_GE(out, 0);
    EXPECT_EQ(::write(out, content.data(), content.size()), static_cast<ssize_t>(content.size()));
    ::close(out);
  }
  ::close(fd);
  return rel;
}

// 2000 levels: a recursive walk needs more than 512 KB of stack for that.
TEST(HostileInputTest, DeepTreeIsWalkedWithASmallStack) {
  TempDir dir;
  const std::string rel = MakeDeepTree(dir / "t", 2000, {{"a.txt", Text(11)}, {"b.txt", Text(11)}});
  ASSERT_LT((dir / "t/").size() + rel.size() + 6, size_t{PATH_MAX});
  const Scan s = ShellJson(dir, "/bin/sh", "ulimit -s 512 && exec \"$NEARDUP\" scan -f json '" + (dir / "t") + "'");
  ASSERT_EQ(s.run.exit_code, 0) << s.run.err.substr(0, 2000);
  EXPECT_EQ(PairsOf(s.json), (std::vector<std::pair<std::string, std::string>>{
                                 {dir / ("t/" + rel + "/a.txt"), dir / ("t/" + rel + "/b.txt")}}));
  // std::filesystem::remove_all cannot always remove a tree this deep.
  EXPECT_EQ(RunProcess({"/bin/rm", "-rf", dir / "t"}, dir.path()).exit_code, 0);
}

TEST(HostileInputTest, DanglingLinkWithFollowIsAWarningNotAnError) {
  TempDir dir;
  WriteFile(dir / "d/a.txt", Text(12));
  WriteFile(dir / "d/b.txt", Text(12));
  ASSERT_EQ(::symlink("nowhere", (dir / "d/dangling").c_str()), 0);
  const Scan s = ScanJson(dir, {"-L", dir / "d"});
  EXPECT_EQ(s.run.exit_code, 0) << s.run.err;
  EXPECT_EQ(s.json["stats"]["unreadable"], 0);
  EXPECT_EQ(PairsOf(s.json).size(), 1u);
  EXPECT_NE(s.run.err.find(dir / "d/dangling: dangling symbolic link, not followed"), std::string::npos) << s.run.err;
}

}  // namespace
}  // namespace neardup
