// Hostile input for what --exact and -t 1 promise: files changed, deleted
// or touched mid-run, hash collisions, near copies at -t 1, pairs mode on
// thousands of copies, JSONL ids that are not unique.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "e2e/run_neardup.h"
#include "lsh/similarity.h"
#include "neardup/scan.h"
#include "test_paths.h"
#include "test_util.h"
#include "text/shingle.h"
#include "walk/file_system.h"

namespace neardup {
namespace {

using testing::Join;
using testing::Lines;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

const std::string kBin = ::neardup::testing::NeardupBinary();
// Two 13-letter words with the same XXH3-64 under seed 1 (found by a
// van Oorschot-Wiener parallel collision search).
const char* const kCollisionA = "spzzctflanpgv";
const char* const kCollisionB = "rqvuxtpbrlyjp";

// The real file system, with a hook run once, at the first Stat(): the
// pipeline stats files only to confirm them, after every file was signed.
class MidRunFs : public FileSystem {
 public:
  explicit MidRunFs(std::function<void()> between) : between_(std::move(between)) {}
  Result<std::unique_ptr<ByteReader>> Open(const std::string& path) override {
    return FileSystem::Default().Open(path);
  }
  // The walk stats its PATH arguments through the file system too: the
  // change comes at the first stat of a document, the re-check of --exact.
  // --exact re-checks on its worker threads: the first stat of a document
  // runs `between`, and every other stat waits until it is done.
  Result<FileStat> Stat(const std::string& path) override {
    if (path.ends_with(".txt")) {
      const std::lock_guard<std::mutex> lock(mu_);
      if (between_) {
        between_();
        between_ = nullptr;
      }
    }
    return FileSystem::Default().Stat(path);
  }

 private:
  std::mutex mu_;
  std::function<void()> between_;
};

std::vector<std::vector<std::string>> ClusterNames(const Report& r) {
  std::vector<std::vector<std::string>> out;
  for (const Cluster& c : r.clusters) {
    std::vector<std::string> names;
    for (DocId d : c.members) names.push_back(r.docs[d].name);
    out.push_back(names);
  }
  return out;
}

TEST(HostileExactTest, FileReplacedOrDeletedMidRunIsLeftOutOfEveryCluster) {
  TempDir dir;
  const std::string text = Join(RandomWords(300, 5));
  for (const char* name : {"a.txt", "b.txt", "c.txt", "d.txt"}) WriteFile(dir / name, text);
  MidRunFs fs([&] {
    WriteFile(dir / "a.txt", Join(RandomWords(300, 6)));  // other text
    std::filesystem::remove(dir / "c.txt");
  });
  RunContext ctx;
  ctx.fs = &fs;
  Options o;
  o.paths = {dir.path()};
  o.verify = VerifyMode::kExact;
  o.mode = Mode::kDuplicates;
  Result<Report> r = FindDuplicates(o, ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ClusterNames(*r), (std::vector<std::vector<std::string>>{{dir / "b.txt", dir / "d.txt"}}));
  EXPECT_EQ(r->removable.size(), 1u);
  EXPECT_EQ(r->stats.unreadable, 2u);  // exit status 2
  std::string problems;
  for (const Status& s : r->problems) problems += s.message() + "\n";
  EXPECT_NE(problems.find(dir / "a.txt"), std::string::npos) << problems;
  EXPECT_NE(problems.find(dir / "c.txt"), std::string::npos) << problems;
}

// When the first member of a group of copies changes, the next one takes its
// place, and its shingle set is made from its token text: the Jaccard must
// be exactly the one of the texts (word and char shingles, mixed scripts).
TEST(HostileExactTest, SetOfTheMemberThatTakesThePlaceOfAChangedOneIsExact) {
  for (const ShingleUnit unit : {ShingleUnit::kWord, ShingleUnit::kChar}) {
    TempDir dir;
    std::string a;
    for (const auto& w : RandomWords(400, 17)) a += w + (w.size() % 3 == 0 ? " Été, 東京の天気 " : " ");
    std::string b = a;
    b.replace(b.size() / 2, 12, "Straße ﬁle 42");
    WriteFile(dir / "a1.txt", a);
    WriteFile(dir / "a2.txt", a);
    WriteFile(dir / "b.txt", b);
    MidRunFs fs([&] { WriteFile(dir / "a1.txt", "something else"); });
    RunContext ctx;
    ctx.fs = &fs;
    Options o;
    o.paths = {dir.path()};
    o.verify = VerifyMode::kExact;
    o.shingle = unit;
    o.threshold = 0.5;
    Result<Report> r = FindDuplicates(o, ctx);
    ASSERT_TRUE(r.ok());
    const std::vector<ReportedPair> pairs = r->pairs.ToVector();
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(r->docs[pairs[0].a].name, dir / "a2.txt");
    EXPECT_EQ(r->docs[pairs[0].b].name, dir / "b.txt");
    const int k = o.EffectiveNgram();
    EXPECT_DOUBLE_EQ(pairs[0].jaccard, ExactJaccard(ShingleSet(a, unit, k, 1), ShingleSet(b, unit, k, 1)));
    EXPECT_LT(pairs[0].jaccard, 1.0);
  }
}

// A file system whose Stat() keeps telling what the walk saw while the text
// changed under it (as a clock too coarse, or a tool that sets the times
// back, would): the text changes just before the second Open() of `path`
// (the first is signing, the second the re-read of --exact), and only the
// content check of the re-read can tell.
class LyingStatFs : public FileSystem {
 public:
  LyingStatFs(std::string path, std::string new_text) : path_(std::move(path)), new_text_(std::move(new_text)) {}
  Result<std::unique_ptr<ByteReader>> Open(const std::string& p) override {
    {
      const std::lock_guard<std::mutex> lock(mu_);  // opens come from the worker threads
      if (p == path_ && ++opens_ == 2) {
        Result<FileStat> st = FileSystem::Default().Stat(path_);
        seen_ = *st;
        WriteFile(path_, new_text_);
        changed_ = true;
      }
    }
    return FileSystem::Default().Open(p);
  }
  Result<FileStat> Stat(const std::string& p) override {
    {
      const std::lock_guard<std::mutex> lock(mu_);
      if (changed_ && p == path_) return seen_;
    }
    return FileSystem::Default().Stat(p);
  }
  int opens() const { return opens_; }

 private:
  std::mutex mu_;
  std::string path_, new_text_;
  bool changed_ = false;
  int opens_ = 0;
  FileStat seen_;
};

// A file system whose second Open() of `path` (the first is signing, the
// second the re-read of --exact) opens the file the walk saw, then renames
// another file over its name: the re-read gets the old text, the same as
// signed, while the name now holds other content. Only the check after the
// re-read can tell.
class SwapAfterOpenFs : public FileSystem {
 public:
  SwapAfterOpenFs(std::string path, std::string new_text) : path_(std::move(path)), new_text_(std::move(new_text)) {}
  Result<std::unique_ptr<ByteReader>> Open(const std::string& p) override {
    Result<std::unique_ptr<ByteReader>> in = FileSystem::Default().Open(p);
    const std::lock_guard<std::mutex> lock(mu_);  // opens come from the worker threads
    if (p == path_ && ++opens_ == 2) {
      WriteFile(path_ + ".new", new_text_);
      std::filesystem::rename(path_ + ".new", path_);
    }
    return in;
  }
  Result<FileStat> Stat(const std::string& p) override { return FileSystem::Default().Stat(p); }
  int opens() const { return opens_; }

 private:
  std::mutex mu_;
  std::string path_, new_text_;
  int opens_ = 0;
};

// A file swapped during its re-read is left out (a problem: exit status 2),
// never listed as removable, though the text read again is the signed one;
// for a text file and a JSONL file alike.
TEST(HostileExactTest, FileSwappedDuringTheReReadIsLeftOut) {
  for (const bool jsonl : {false, true}) {
    SCOPED_TRACE(jsonl ? "jsonl" : "text");
    TempDir dir;
    const std::string text = Join(RandomWords(300, 5));
    const std::string other = Join(RandomWords(300, 6));
    std::string swapped;
    if (jsonl) {
      const std::string line = "{\"text\":\"" + text + "\"}\n";
      WriteFile(dir / "a.jsonl", line + line);
      swapped = dir / "b.jsonl";
      WriteFile(swapped, line);
    } else {
      for (const char* name : {"a.txt", "b.txt"}) WriteFile(dir / name, text);
      swapped = dir / "c.txt";
      WriteFile(swapped, text);
    }
    SwapAfterOpenFs fs(swapped, jsonl ? "{\"text\":\"" + other + "\"}\n" : other);
    RunContext ctx;
    ctx.fs = &fs;
    Options o;
    o.paths = {dir.path()};
    o.input = jsonl ? InputFormat::kJsonl : InputFormat::kText;
    o.verify = VerifyMode::kExact;
    o.mode = Mode::kDuplicates;
    Result<Report> r = FindDuplicates(o, ctx);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(fs.opens(), 2);  // signed, then read again (and swapped)
    const std::vector<std::vector<std::string>> kept =
        jsonl ? std::vector<std::vector<std::string>>{{dir / "a.jsonl:1", dir / "a.jsonl:2"}}
              : std::vector<std::vector<std::string>>{{dir / "a.txt", dir / "b.txt"}};
    EXPECT_EQ(ClusterNames(*r), kept);
    ASSERT_EQ(r->removable.size(), 1u);
    EXPECT_EQ(r->docs[r->removable[0].doc].name, kept[0][1]);
    EXPECT_EQ(r->stats.unreadable, 1u);  // exit status 2
    std::string problems;
    for (const Status& s : r->problems) problems += s.message() + "\n";
    EXPECT_NE(problems.find(swapped + ": changed during the run"), std::string::npos) << problems;
  }
}

TEST(HostileExactTest, ChangeThatStatCannotSeeIsFoundByTheContent) {
  TempDir dir;
  const std::string text = Join(RandomWords(300, 18));
  for (const char* name : {"a.txt", "b.txt", "c.txt"}) WriteFile(dir / name, text);
  std::string other = Join(RandomWords(300, 19));
  other.resize(text.size(), ' ');
  LyingStatFs fs(dir / "b.txt", other);
  RunContext ctx;
  ctx.fs = &fs;
  Options o;
  o.paths = {dir.path()};
  o.verify = VerifyMode::kExact;
  o.mode = Mode::kClusters;
  Result<Report> r = FindDuplicates(o, ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(fs.opens(), 2);  // signed, then read again (changed)
  EXPECT_EQ(ClusterNames(*r), (std::vector<std::vector<std::string>>{{dir / "a.txt", dir / "c.txt"}}));
  EXPECT_EQ(r->stats.unreadable, 1u);
}

// The same for a document alone in a candidate pair, which no other member
// is compared with: an edit of one word, unseen by stat, still leaves it out.
TEST(HostileExactTest, ChangeThatStatCannotSeeLeavesANearPairOut) {
  TempDir dir;
  auto words = RandomWords(300, 20);
  WriteFile(dir / "a.txt", Join(words));
  words[150] = "edited";
  WriteFile(dir / "b.txt", Join(words));
  words[151] = "again";
  std::string edited = Join(words);
  edited.resize(Join(words).size(), ' ');
  LyingStatFs fs(dir / "b.txt", edited);
  RunContext ctx;
  ctx.fs = &fs;
  Options o;
  o.paths = {dir.path()};
  o.verify = VerifyMode::kExact;
  Result<Report> r = FindDuplicates(o, ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(fs.opens(), 2);  // signed, then read again (changed)
  EXPECT_TRUE(r->pairs.empty());
  EXPECT_EQ(r->stats.unreadable, 1u);
}

TEST(HostileExactTest, FileTouchedMidRunIsLeftOutEvenWithTheSameText) {
  TempDir dir;
  const std::string text = Join(RandomWords(300, 7));
  for (const char* name : {"a.txt", "b.txt", "c.txt"}) WriteFile(dir / name, text);
  MidRunFs fs([&] {
    // Same bytes, new mtime: what the walk saw no longer holds.
    struct timespec times[2] = {{0, UTIME_OMIT}, {1000000000, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, (dir / "b.txt").c_str(), times, 0), 0);
  });
  RunContext ctx;
  ctx.fs = &fs;
  Options o;
  o.paths = {dir.path()};
  o.verify = VerifyMode::kExact;
  Result<Report> r = FindDuplicates(o, ctx);
  ASSERT_TRUE(r.ok());
  const std::vector<ReportedPair> pairs = r->pairs.ToVector();
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(r->docs[pairs[0].a].name, dir / "a.txt");
  EXPECT_EQ(r->docs[pairs[0].b].name, dir / "c.txt");
  EXPECT_EQ(pairs[0].jaccard, 1.0);
  EXPECT_EQ(r->stats.unreadable, 1u);
}

TEST(HostileExactTest, NearPairWhoseFileChangedMidRunIsNotReported) {
  TempDir dir;
  auto words = RandomWords(400, 8);
  WriteFile(dir / "a.txt", Join(words));
  words[200] = "edited";
  WriteFile(dir / "b.txt", Join(words));
  MidRunFs fs([&] { WriteFile(dir / "b.txt", Join(RandomWords(400, 9))); });
  RunContext ctx;
  ctx.fs = &fs;
  Options o;
  o.paths = {dir.path()};
  o.verify = VerifyMode::kExact;
  Result<Report> r = FindDuplicates(o, ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->pairs.empty());
  EXPECT_EQ(r->stats.unreadable, 1u);
}

// The real binary, with a real change: with -j1 files are signed in path
// order, so a FIFO named last holds the run after a.txt, b.txt and c.txt
// were signed; a.txt is then replaced and b.txt removed, and the FIFO
// released. Before the confirmation, {a, b, c} was reported with Jaccard 1.
TEST(HostileExactTest, RealRunLeavesOutWhatChangedWhileItWasBusy) {
  TempDir dir;
  const std::string text = Join(RandomWords(300, 14));
  for (const char* name : {"a.txt", "b.txt", "c.txt", "d.txt"}) WriteFile(dir / ("d/" + std::string(name)), text);
  const std::string fifo = dir / "z.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string script = kBin + " scan -j1 --exact --mode duplicates " + (dir / "d") + " " + fifo;
  // Start the scan, then change the files once it waits on the FIFO.
  FILE* child =
      ::popen(("sh -c '" + script + " >" + (dir / "out") + " 2>" + (dir / "err") + "; echo $?'").c_str(), "r");
  ASSERT_NE(child, nullptr);
  const int writer = ::open(fifo.c_str(), O_WRONLY);  // blocks until the scan opens it: a, b, c, d are signed
  ASSERT_GE(writer, 0);
  WriteFile(dir / "d/a.txt", Join(RandomWords(300, 15)));
  std::filesystem::remove(dir / "d/b.txt");
  ASSERT_EQ(::write(writer, "another text entirely\n", 22), 22);
  ::close(writer);
  char status[16] = {};
  ASSERT_NE(std::fgets(status, sizeof status, child), nullptr);
  ::pclose(child);
  EXPECT_EQ(std::string(status), "2\n");
  EXPECT_EQ(testing::ReadFile(dir / "out"), dir / "d/d.txt" + "\n");  // c kept, d removable; a and b left out
  const std::string err = testing::ReadFile(dir / "err");
  EXPECT_NE(err.find(dir / "d/a.txt"), std::string::npos) << err;
  EXPECT_NE(err.find(dir / "d/b.txt"), std::string::npos) << err;
}

// A stream can be read once: --exact keeps a copy of what it gave.
TEST(HostileExactTest, StreamDocumentIsVerifiedFromItsCopy) {
  TempDir dir;
  auto words = RandomWords(300, 16);
  WriteFile(dir / "a.txt", Join(words));
  words[100] = "edited";
  WriteFile(dir / "b.txt", Join(words));
  // Through a pipe, so that /dev/stdin is a stream and not the file itself.
  const std::string pipe = "cat " + (dir / "a.txt") + " | " + kBin + " scan -f tsv ";
  RunResult r = RunProcess({"/bin/sh", "-c", pipe + "--exact /dev/stdin " + (dir / "b.txt")}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("/dev/stdin\t" + (dir / "b.txt") + "\t", 0), 0u) << r.out;
  RunResult same = RunProcess({"/bin/sh", "-c", pipe + "-t 1 /dev/stdin " + (dir / "a.txt")}, dir.path());
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(same.out, "/dev/stdin\t" + (dir / "a.txt") + "\t1\t1\n");
}

// -t 1 means the same text. A long document and a copy with one word
// changed at its end have a signature estimate of 1 (Jaccard 0.999), yet
// they are not the same text.
TEST(HostileExactTest, ThresholdOneReportsOnlyTheSameText) {
  TempDir dir;
  auto words = RandomWords(8000, 10);
  WriteFile(dir / "a.txt", Join(words));
  WriteFile(dir / "a_copy.txt", "  " + Join(words) + "\n");  // same tokens
  words.back() = "changed";
  WriteFile(dir / "b.txt", Join(words));
  // The premise: at -t 0.9 the near copy's signature agrees everywhere
  // (printed 0.9999: 1 is for the same tokens only).
  RunResult near = RunNeardup({"scan", "-t", "0.9", "--verify", "signature", dir.path()}, dir.path());
  ASSERT_EQ(near.exit_code, 0) << near.err;
  ASSERT_NE(near.out.find("\"b\":\"" + (dir / "b.txt") + "\",\"estimate\":0.9999}"), std::string::npos) << near.out;
  for (const char* verify : {"signature", "exact", "none"}) {
    RunResult r = RunNeardup({"scan", "-t", "1", "--verify", verify, "-f", "tsv", dir.path()}, dir.path());
    EXPECT_EQ(r.exit_code, 0) << verify << r.err;
    const std::string jaccard = std::string(verify) == "exact" ? "\t1" : "";
    EXPECT_EQ(r.out, dir / "a.txt" + "\t" + (dir / "a_copy.txt") + "\t1" + jaccard + "\n") << verify;
  }
}

// Two different words with the same 64-bit token hash (seed 1), found by a
// parallel collision search: two texts that differ only in them have the
// same content hash and the same shingle hashes.
TEST(HostileExactTest, HashCollisionNeverMakesTwoTextsCopies) {
  const std::string x = kCollisionA, y = kCollisionB;
  TempDir dir;
  const auto words = RandomWords(200, 11);
  std::string base = Join(words);
  WriteFile(dir / "a.txt", base + " " + x + " " + base);
  WriteFile(dir / "b.txt", base + " " + y + " " + base);
  for (const char* mode : {"pairs", "duplicates"}) {
    RunResult r = RunNeardup({"scan", "--exact", "--mode", mode, dir.path()}, dir.path());
    EXPECT_EQ(r.out, "") << mode;
    EXPECT_EQ(r.exit_code, 2) << mode;
    EXPECT_NE(r.err.find("hash collision"), std::string::npos) << r.err;
  }
  // -t 1 proves the text too, whatever --verify says.
  RunResult r = RunNeardup({"scan", "-t", "1", "--mode", "duplicates", dir.path()}, dir.path());
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.exit_code, 2);
}

// Six times one colliding word against seven times the other: different
// token sequences (so not one group), yet one shingle each with the same
// hash. The Jaccard over the shingles' text is 0, and nothing is reported.
TEST(HostileExactTest, HashCollisionNeverMakesAJaccardOfOne) {
  TempDir dir;
  std::string six, seven;
  for (int i = 0; i < 6; ++i) six += std::string(kCollisionA) + " ";
  for (int i = 0; i < 7; ++i) seven += std::string(kCollisionB) + " ";
  WriteFile(dir / "six.txt", six);
  WriteFile(dir / "seven.txt", seven);
  // The premise: by hashes they are the same shingle set (every signature
  // position agrees; printed below 1, since the texts differ).
  RunResult estimate = RunNeardup({"scan", "--verify", "signature", "-f", "tsv", dir.path()}, dir.path());
  ASSERT_EQ(estimate.out, dir / "seven.txt" + "\t" + (dir / "six.txt") + "\t0.9999\n");
  RunResult r = RunNeardup({"scan", "--exact", "-t", "0.5", dir.path()}, dir.path());
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.exit_code, 1) << r.err;
}

// A Jaccard of 1 between different texts (same shingle set by hashes) is
// computed again over the shingles' text; it is reported, and printed below 1,
// since the token sequences differ (1 means the same tokens).
TEST(HostileExactTest, EqualShingleSetsOfDifferentTextsAreReportedBelowOne) {
  TempDir dir;
  // "w w w w w w" and "w w w w w w w": one shingle each, the same one.
  WriteFile(dir / "six.txt", "w w w w w w");
  WriteFile(dir / "seven.txt", "w w w w w w w");
  RunResult r = RunNeardup({"scan", "--exact", "-f", "tsv", dir.path()}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, dir / "seven.txt" + "\t" + (dir / "six.txt") + "\t0.9999\t0.9999\n");
}

// The same for two lines of a JSONL file: a document alone in its group
// keeps no token text when first read again, and is read once more, by its
// line, when its text decides.
TEST(HostileExactTest, EqualShingleSetsOfDifferentJsonlLinesAreReportedBelowOne) {
  TempDir dir;
  WriteFile(dir / "a.jsonl",
            "{\"text\":\"w w w w w w\"}\n{\"text\":\"other words that match nothing\"}\n"
            "{\"text\":\"w w w w w w w\"}\n");
  RunResult r = RunNeardup({"scan", "--exact", "--input", "jsonl", "-f", "tsv", dir.path()}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, dir / "a.jsonl:1" + "\t" + (dir / "a.jsonl:3") + "\t0.9999\t0.9999\n");
}

TEST(HostileExactTest, PairsOfThousandsOfCopiesAreSortedInBoundedMemory) {
  TempDir dir;
  const std::string text = Join(RandomWords(50, 12));
  const int n = 3000;  // 4,498,500 pairs: 144 MB as pairs in memory
  for (int i = 0; i < n; ++i) WriteFile(dir / testing::Numbered("c/", 100000 + i) + ".txt", text);
  // GNU time measures the pipeline from a process of its own: a child
  // spawned straight from this test would count this process's size too
  // (posix_spawn shares its address space until exec).
  // Under AddressSanitizer, freed memory waits in its quarantine (256 MB by
  // default) before it is reused: exact verification (the default) frees
  // and allocates a token text per group of copies read again, so the
  // quarantine, not the run, would set the peak. 16 MB keeps the measure the
  // run's own; other builds ignore the variable.
  RunResult r = RunProcess({"/usr/bin/time", "-f", "%M", "-o", dir / "rss", "/bin/sh", "-c",
                            "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16 exec " + kBin +
                                " scan -f tsv " + (dir / "c") + " | awk 'NR==1{print} END{print NR}'"},
                           dir.path());
  const long rss_kb = std::atol(testing::ReadFile(dir / "rss").c_str());
  EXPECT_GT(rss_kb, 0);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0], dir / "c/100000.txt" + "\t" + (dir / "c/100001.txt") + "\t1\t1");
  EXPECT_EQ(lines[1], std::to_string(n * (n - 1) / 2));
  EXPECT_NE(r.err.find("--mode clusters"), std::string::npos) << r.err;
  // 64 MiB of pairs in memory at most, plus the rest of the run (78 MiB in
  // all here, 107 when jemalloc's heap was in transparent huge pages; 264
  // MB with every pair in memory). Under AddressSanitizer the
  // same run takes 169 MB (its shadow memory, a 16 MB quarantine), and every pair
  // in memory would add 144 MB more and their redzones.
#if defined(__SANITIZE_ADDRESS__)
  constexpr long kBoundKb = 320 * 1024;
#else
  constexpr long kBoundKb = 128 * 1024;
#endif
  EXPECT_LT(rss_kb, kBoundKb) << "peak RSS " << rss_kb << " KiB";
  std::fprintf(stderr, "peak RSS %ld KiB\n", rss_kb);
}

// The same run with a tiny sort budget gives the same bytes.
TEST(HostileExactTest, SpilledPairsGiveTheSameOutput) {
  TempDir dir;
  const std::string text = Join(RandomWords(60, 13));
  for (int i = 0; i < 60; ++i) {
    WriteFile(dir / testing::Numbered("d", i % 7) + testing::Numbered("/", i) + ".txt", text);
  }
  Options o;
  o.paths = {dir.path()};
  Result<Report> in_memory = FindDuplicates(o);
  o.pair_memory = 64;  // two pairs a run
  Result<Report> spilled = FindDuplicates(o);
  ASSERT_TRUE(in_memory.ok() && spilled.ok());
  EXPECT_FALSE(in_memory->pairs.spilled());
  EXPECT_TRUE(spilled->pairs.spilled());
  const auto x = in_memory->pairs.ToVector(), y = spilled->pairs.ToVector();
  ASSERT_EQ(x.size(), 60u * 59 / 2);
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(in_memory->docs[x[i].a].name, spilled->docs[y[i].a].name);
    EXPECT_EQ(in_memory->docs[x[i].b].name, spilled->docs[y[i].b].name);
  }
}

TEST(HostileExactTest, JsonlIdsThatAreNotUniqueAreNamedByPlaceAndExitTwo) {
  TempDir dir;
  WriteFile(dir / "a.jsonl",
            "{\"id\":\"x\",\"text\":\"alpha beta gamma delta epsilon zeta\"}\n"
            "{\"id\":\"x\",\"text\":\"alpha beta gamma delta epsilon zeta\"}\n"
            "{\"id\":\"y\",\"text\":\"alpha beta gamma delta epsilon zeta\"}\n"
            "{\"id\":\"x\",\"text\":\"other words here entirely\"}\n");
  RunResult pairs = RunNeardup({"scan", "--input", "jsonl", "-f", "tsv", dir / "a.jsonl"}, dir.path());
  EXPECT_EQ(pairs.exit_code, 2);
  const std::string p1 = dir / "a.jsonl:1", p2 = dir / "a.jsonl:2";
  EXPECT_EQ(pairs.out, p1 + "\t" + p2 + "\t1\t1\n" + p1 + "\ty\t1\t1\n" + p2 + "\ty\t1\t1\n");
  EXPECT_NE(pairs.err.find("id \"x\" is not unique"), std::string::npos) << pairs.err;
  RunResult dups = RunNeardup({"scan", "--input", "jsonl", "--mode", "duplicates", dir / "a.jsonl"}, dir.path());
  EXPECT_EQ(dups.exit_code, 2);
  EXPECT_EQ(dups.out, p2 + "\ny\n");
}

}  // namespace
}  // namespace neardup
