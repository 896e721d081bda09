// End to end: clusters, keep rules, duplicates lists and reference sets.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

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
using testing::WriteFile;

const std::string kBin = ::neardup::testing::NeardupBinary();

std::vector<nlohmann::json> JsonLines(const std::string& s) {
  std::vector<nlohmann::json> out;
  size_t start = 0;
  while (start < s.size()) {
    const size_t end = s.find('\n', start);
    out.push_back(nlohmann::json::parse(s.substr(start, end - start)));
    start = end == std::string::npos ? s.size() : end + 1;
  }
  return out;
}

// Replaces `count` words spread evenly from `offset`, so each edit changes 5
// shingles of its own: J = (n-4-5c)/(n-4+5c) for n words and c edits.
std::vector<std::string> Spread(std::vector<std::string> w, int count, size_t offset, const std::string& tag) {
  const size_t step = w.size() / static_cast<size_t>(count);
  for (int i = 0; i < count; ++i) w[offset + static_cast<size_t>(i) * step] = testing::Numbered(tag, i);
  return w;
}

// a ~ b ~ c, a not like c (exact Jaccard 0.859, 0.859 and 0.737). b is the
// longest (its edits are long words), a the shortest.
void MakeChain(const TempDir& dir) {
  const auto a = RandomWords(400, 21);
  const auto b = Spread(a, 6, 10, "bumblebeebumblebee");
  const auto c = Spread(b, 6, 40, "sea");
  WriteFile(dir / "chain/a.txt", Join(a));
  WriteFile(dir / "chain/b.txt", Join(b));
  WriteFile(dir / "chain/c.txt", Join(c));
}

TEST(DedupTest, ChainIsOneClusterWhenConnectedAndSplitWhenByKeep) {
  TempDir dir;
  MakeChain(dir);
  const std::string d = dir / "chain/";
  RunResult r =
      RunNeardup({"scan", "--exact", "--mode", "clusters", "--cluster-by", "connected", dir / "chain"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto clusters = JsonLines(r.out);
  ASSERT_EQ(clusters.size(), 1u) << r.out;
  EXPECT_EQ(clusters[0]["cluster"], 0);
  EXPECT_EQ(clusters[0]["keep"], d + "a.txt");
  EXPECT_EQ(clusters[0]["members"], (nlohmann::json{d + "a.txt", d + "b.txt", d + "c.txt"}));
  EXPECT_EQ(clusters[0]["size"], 3);

  r = RunNeardup({"scan", "--exact", "--mode", "clusters", "--cluster-by", "keep", dir / "chain"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  clusters = JsonLines(r.out);
  ASSERT_EQ(clusters.size(), 1u) << r.out;
  EXPECT_EQ(clusters[0]["members"], (nlohmann::json{d + "a.txt", d + "b.txt"}));

  // Keeping b (the longest) puts a and c with it: both are like b.
  ASSERT_GT(std::filesystem::file_size(d + "b.txt"), std::filesystem::file_size(d + "a.txt"));
  ASSERT_GT(std::filesystem::file_size(d + "b.txt"), std::filesystem::file_size(d + "c.txt"));
  r = RunNeardup({"scan", "--exact", "--mode", "clusters", "--cluster-by", "keep", "--keep", "longest", dir / "chain"},
                 dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  clusters = JsonLines(r.out);
  ASSERT_EQ(clusters.size(), 1u) << r.out;
  EXPECT_EQ(clusters[0]["keep"], d + "b.txt");
  EXPECT_EQ(clusters[0]["members"], (nlohmann::json{d + "a.txt", d + "b.txt", d + "c.txt"}));
  // Keeping the shortest (a) splits the chain again: c stays out.
  ASSERT_LT(std::filesystem::file_size(d + "a.txt"), std::filesystem::file_size(d + "c.txt"));
  r = RunNeardup({"scan", "--exact", "--mode", "clusters", "--cluster-by", "keep", "--keep", "shortest", dir / "chain"},
                 dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  clusters = JsonLines(r.out);
  ASSERT_EQ(clusters.size(), 1u) << r.out;
  EXPECT_EQ(clusters[0]["keep"], d + "a.txt");
  EXPECT_EQ(clusters[0]["members"], (nlohmann::json{d + "a.txt", d + "b.txt"}));
}

// The word 5-shingles of space-separated lowercase words, and their exact
// Jaccard: the reference the removal records are checked against, computed
// here without neardup's tokenizer.
std::set<std::string> Shingles(const std::vector<std::string>& w) {
  std::set<std::string> out;
  for (size_t i = 0; i + 5 <= w.size(); ++i) {
    out.insert(w[i] + " " + w[i + 1] + " " + w[i + 2] + " " + w[i + 3] + " " + w[i + 4]);
  }
  return out;
}

double ReferenceJaccard(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const auto x = Shingles(a), y = Shingles(b);
  size_t common = 0;
  for (const std::string& s : x) common += y.count(s);
  return static_cast<double>(common) / static_cast<double>(x.size() + y.size() - common);
}

// Chains A, A+6 edits, A+12 edits (each link near 0.85, the ends near 0.74)
// over many seeds: by default, and with --exact, every document listed for
// removal is itself like the document kept (reference Jaccard with --exact,
// the signature estimate `explain` computes otherwise), and its record names
// that document.
TEST(DedupTest, EveryRemovedDocumentIsLikeTheDocumentKept) {
  TempDir dir;
  std::map<std::string, std::vector<std::string>> words;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const auto a = RandomWords(400, 100 + seed);
    const auto b = Spread(a, 6, 10, "bumblebeebumblebee");
    const auto c = Spread(b, 6, 40, "sea");
    for (const auto& [name, text] : {std::pair{"a", a}, {"b", b}, {"c", c}}) {
      const std::string path = dir / ("chains/s" + std::to_string(seed) + name + ".txt");
      WriteFile(path, Join(text));
      words[path] = text;
    }
  }
  size_t checked = 0;
  for (const bool exact : {false, true}) {
    std::vector<std::string> args = {"scan", "--mode", "duplicates", "-f", "jsonl", "--verify"};
    args.push_back(exact ? "exact" : "signature");
    args.push_back(dir / "chains");
    const RunResult r = RunNeardup(args, dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto records = JsonLines(r.out);
    ASSERT_GE(records.size(), 12u) << r.out;  // each chain loses at least one document
    for (const auto& rec : records) {
      const std::string path = rec["path"], kept = rec["kept"];
      ASSERT_TRUE(words.count(path) && words.count(kept)) << rec.dump();
      const double reference = ReferenceJaccard(words[path], words[kept]);
      if (exact) {
        EXPECT_GE(reference, 0.8) << path << " removed for " << kept;
        EXPECT_NEAR(rec["jaccard"].get<double>(), reference, 5e-5) << rec.dump();
      } else {
        EXPECT_FALSE(rec.contains("jaccard"));
        const RunResult e = RunNeardup({"explain", "-f", "json", kept, path}, dir.path());
        const auto explained = nlohmann::json::parse(e.out);
        EXPECT_GE(explained["estimate"].get<double>(), 0.8) << path << " removed for " << kept;
        EXPECT_NEAR(rec["estimate"].get<double>(), explained["estimate"].get<double>(), 5e-5) << rec.dump();
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 24u);
}

// --keep first keeps the first document in input order: PATH arguments in
// the order given (b/ before a/), JSONL lines in file order (line 9 before
// line 10, id "9" before id "10"), not the smallest name in byte order.
TEST(DedupTest, KeepFirstIsTheFirstInInputOrder) {
  TempDir dir;
  const std::string text = Join(RandomWords(200, 77));
  WriteFile(dir / "b/x.txt", text);
  WriteFile(dir / "a/y.txt", text);
  RunResult r = RunNeardup({"scan", "--mode", "duplicates", dir / "b", dir / "a"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, dir / "a/y.txt\n");
  r = RunNeardup({"scan", "--mode", "duplicates", dir / "a", dir / "b"}, dir.path());
  EXPECT_EQ(r.out, dir / "b/x.txt\n");

  std::string lines;
  for (int i = 1; i <= 10; ++i) {
    const std::string body = (i == 9 || i == 10) ? text : Join(RandomWords(200, 1000 + static_cast<uint64_t>(i)));
    lines += i == 9    ? "{\"id\":\"9\",\"text\":\"" + body + "\"}\n"
             : i == 10 ? "{\"id\":\"10\",\"text\":\"" + body + "\"}\n"
                       : "{\"text\":\"" + body + "\"}\n";
  }
  WriteFile(dir / "ids.jsonl", lines);
  r = RunNeardup({"scan", "--input", "jsonl", "--mode", "duplicates", dir / "ids.jsonl"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "10\n");
  r = RunNeardup({"scan", "--input", "jsonl", "--id-key", "", "--mode", "duplicates", dir / "ids.jsonl"}, dir.path());
  EXPECT_EQ(r.out, dir / "ids.jsonl:10\n");
}

TEST(DedupTest, KeepRulesChooseTheKeptCopy) {
  TempDir dir;
  const auto base = RandomWords(300, 5);
  WriteFile(dir / "k/b.txt", Join(base));
  WriteFile(dir / "k/a.txt", Join(base) + " tail");
  WriteFile(dir / "k/c.txt", "   " + Join(base) + " tail and more words here");
  const std::string d = dir / "k/";
  auto kept = [&](const char* rule) {
    const RunResult r = RunNeardup({"scan", "--mode", "clusters", "--keep", rule, dir / "k"}, dir.path());
    const auto c = JsonLines(r.out);
    return c.size() == 1 ? c[0]["keep"].get<std::string>() : "?";
  };
  EXPECT_EQ(kept("first"), d + "a.txt");
  EXPECT_EQ(kept("longest"), d + "c.txt");
  EXPECT_EQ(kept("shortest"), d + "b.txt");
  std::filesystem::last_write_time(d + "b.txt", std::filesystem::file_time_type::clock::now() - std::chrono::hours(48));
  std::filesystem::last_write_time(d + "c.txt", std::filesystem::file_time_type::clock::now() + std::chrono::hours(1));
  EXPECT_EQ(kept("oldest"), d + "b.txt");
  EXPECT_EQ(kept("newest"), d + "c.txt");
}

TEST(DedupTest, DuplicatesListRoundTripsThroughXargsNull) {
  TempDir dir;
  const auto base = Join(RandomWords(200, 8));
  WriteFile(dir / "d/keep.txt", base);
  WriteFile(dir / "d/copy one.txt", base);
  WriteFile(dir / "d/copy\nwith newline.txt", base);
  WriteFile(dir / "d/other.txt", Join(RandomWords(200, 9)));
  const std::string script = "'" + kBin + "' scan --mode duplicates -0 '" + dir / "d" + "' | xargs -0 rm --";
  const RunResult r = RunProcess({"/bin/bash", "-c", script}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir / "d")) left.insert(e.path().filename().string());
  // "copy\nwith newline.txt" sorts first ('\n' < ' ') and is kept.
  EXPECT_EQ(left, (std::set<std::string>{"copy\nwith newline.txt", "other.txt"}));
}

TEST(DedupTest, AgainstReferenceNeverRemovableAndReferencePairsNotReported) {
  TempDir dir;
  const auto r1 = Join(RandomWords(300, 30));
  const auto n1 = Join(RandomWords(300, 31));
  WriteFile(dir / "ref/old.txt", r1);
  WriteFile(dir / "ref/old_copy.txt", r1);  // a pair inside the reference set only
  WriteFile(dir / "new/again.txt", r1);     // duplicates the reference
  WriteFile(dir / "new/x.txt", n1);         // two new copies of each other
  WriteFile(dir / "new/y.txt", n1);
  WriteFile(dir / "new/unique.txt", Join(RandomWords(300, 32)));

  RunResult r = RunNeardup({"scan", "--against", dir / "ref", dir / "new"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto pairs = JsonLines(r.out);
  std::set<std::pair<std::string, std::string>> got;
  for (const auto& p : pairs) {
    got.insert({p["a"].get<std::string>(), p["b"].get<std::string>()});
    EXPECT_TRUE(p.contains("reference"));
  }
  // Only what matches a reference document: x~y, two new documents alone,
  // is another question (--among-new).
  EXPECT_EQ(got, (std::set<std::pair<std::string, std::string>>{{dir / "new/again.txt", dir / "ref/old.txt"},
                                                                {dir / "new/again.txt", dir / "ref/old_copy.txt"}}));

  r = RunNeardup({"scan", "--mode", "duplicates", "--against", dir / "ref", dir / "new"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, dir / "new/again.txt\n");
  r = RunNeardup({"scan", "--mode", "duplicates", "-f", "jsonl", "--against", dir / "ref", dir / "new"}, dir.path());
  const auto records = JsonLines(r.out);
  ASSERT_EQ(records.size(), 1u) << r.out;
  EXPECT_EQ(records[0]["kept"], dir / "ref/old.txt");
  EXPECT_EQ(records[0]["kept_reference"], true);

  r = RunNeardup({"scan", "--mode", "clusters", "--against", dir / "ref", dir / "new"}, dir.path());
  auto clusters = JsonLines(r.out);
  ASSERT_EQ(clusters.size(), 1u) << r.out;
  EXPECT_EQ(clusters[0]["keep"], dir / "ref/old.txt");
  EXPECT_EQ(clusters[0]["reference"], (nlohmann::json{dir / "ref/old.txt", dir / "ref/old_copy.txt"}));

  // --among-new: the new documents' own copies too.
  r = RunNeardup({"scan", "--among-new", "--mode", "duplicates", "--against", dir / "ref", dir / "new"}, dir.path());
  EXPECT_EQ(r.out, dir / "new/again.txt\n" + dir / "new/y.txt\n");
  r = RunNeardup({"scan", "--among-new", "--mode", "clusters", "--against", dir / "ref", dir / "new"}, dir.path());
  clusters = JsonLines(r.out);
  ASSERT_EQ(clusters.size(), 2u) << r.out;
  EXPECT_EQ(clusters[0]["keep"], dir / "new/x.txt");
  EXPECT_EQ(clusters[1]["keep"], dir / "ref/old.txt");
}

// Thousands of copies of one text and thousands of near-copies of another:
// exact copies collapse to one signature and the huge LSH buckets are handled
// by leaders, so this runs in seconds; the clusters must be exactly right.
TEST(DedupTest, TenThousandCopiesAndTenThousandNearCopiesCluster) {
  TempDir dir;
  const auto same = Join(RandomWords(200, 40));
  const auto base = RandomWords(200, 41);
  for (int i = 0; i < 10000; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "c/same/%02d/%05d.txt", i % 100, i);
    WriteFile(dir / name, same);
    auto near = base;
    near[static_cast<size_t>(i) % base.size()] = testing::Numbered("w", i);
    std::snprintf(name, sizeof name, "c/near/%02d/%05d.txt", i % 100, i);
    WriteFile(dir / name, Join(near));
  }
  std::string outputs[2];
  int k = 0;
  for (const char* threads : {"1", "4"}) {
    const RunResult r = RunNeardup({"scan", "-j", threads, "--mode", "clusters", dir / "c"}, dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto clusters = JsonLines(r.out);
    ASSERT_EQ(clusters.size(), 2u);
    EXPECT_EQ(clusters[0]["keep"], dir / "c/near/00/00000.txt");
    EXPECT_EQ(clusters[0]["size"], 10000);
    EXPECT_EQ(clusters[1]["keep"], dir / "c/same/00/00000.txt");
    EXPECT_EQ(clusters[1]["size"], 10000);
    outputs[k++] = r.out;
  }
  EXPECT_EQ(outputs[0], outputs[1]);
  const RunResult dups = RunNeardup({"scan", "--mode", "duplicates", dir / "c"}, dir.path());
  EXPECT_EQ(std::count(dups.out.begin(), dups.out.end(), '\n'), 19998);
}

// "Every removal right" (#23): a document read from stdin or a pipe has no
// path `xargs rm` could act on (`rm -- -` would remove a file named `-`):
// it stays in its cluster but is never listed as removable.
TEST(DedupTest, StreamDocumentsAreNeverRemovable) {
  TempDir dir;
  const std::string text = Join(RandomWords(200, 41));
  WriteFile(dir / "stdin.txt", text);
  WriteFile(dir / "docs/a.txt", text + " and a few more words");  // longer: kept by --keep longest
  WriteFile(dir / "docs/b.txt", text);
  const std::string docs = dir / "docs";
  // stdin a pipe, and stdin a regular file (still `-`, no path to remove).
  const RunResult piped = RunProcess({"/bin/sh", "-c",
                                      "cat '" + dir / "stdin.txt" + "' | '" + kBin +
                                          "' scan --mode duplicates --keep longest -t 0.5 - '" + docs + "'"},
                                     dir.path());
  const RunResult redirected = RunNeardup({"scan", "--mode", "duplicates", "--keep", "longest", "-t", "0.5", "-", docs},
                                          dir.path(), RunOptions().Stdin(dir / "stdin.txt"));
  for (const RunResult* r : {&piped, &redirected}) {
    EXPECT_EQ(r->exit_code, 0) << r->err;
    EXPECT_EQ(r->out, docs + "/b.txt\n");
  }
  const RunResult clusters = RunNeardup({"scan", "--mode", "clusters", "--keep", "longest", "-t", "0.5", "-", docs},
                                        dir.path(), RunOptions().Stdin(dir / "stdin.txt"));
  EXPECT_EQ(clusters.exit_code, 0) << clusters.err;
  EXPECT_NE(clusters.out.find(R"("-")"), std::string::npos) << clusters.out;
}

// "Right by default" (#41): a stream is never kept over a document on disk,
// whatever the keep rule, so that `xargs rm` on the duplicates list leaves the
// kept text on disk. The stream's text has a copy on disk and a near copy;
// under every rule and mode the kept document is a file, and removing every
// path listed leaves it there.
TEST(DedupTest, AStreamIsNeverKeptOverAFileOnDisk) {
  TempDir dir;
  const auto words = RandomWords(300, 43);
  // The stream is the longest and the newest of the three: the rules that
  // rank it first (longest, newest, first: `-` is the first PATH) must still
  // keep a file.
  WriteFile(dir / "stdin.txt", Join(words) + " and a few words more at its end");
  WriteFile(dir / "docs/a.txt", Join(words));
  WriteFile(dir / "docs/b.txt", Join(Spread(words, 2, 7, "edit")));
  for (const std::string keep : {"first", "longest", "shortest", "newest", "oldest"}) {
    for (const std::string via : {"pipe", "redirect"}) {
      SCOPED_TRACE(keep + ", stdin by " + via);
      const std::string copy = dir / ("copy-" + keep + "-" + via);
      std::filesystem::copy(dir / "docs", copy);
      std::filesystem::last_write_time(dir / "stdin.txt", std::filesystem::file_time_type::clock::now());
      auto run = [&](const std::string& mode) {
        if (via == "pipe") {
          return RunProcess({"/bin/sh", "-c",
                             "cat '" + dir / "stdin.txt" + "' | '" + kBin + "' scan -q --mode " + mode + " --keep " +
                                 keep + " -t 0.5 -f jsonl - '" + copy + "'"},
                            dir.path());
        }
        return RunNeardup({"scan", "-q", "--mode", mode, "--keep", keep, "-t", "0.5", "-f", "jsonl", "-", copy},
                          dir.path(), RunOptions().Stdin(dir / "stdin.txt"));
      };
      const RunResult clusters = run("clusters");
      ASSERT_EQ(clusters.exit_code, 0) << clusters.err;
      const auto found = JsonLines(clusters.out);
      ASSERT_EQ(found.size(), 1u) << clusters.out;
      EXPECT_NE(found[0]["keep"], "-") << clusters.out;
      EXPECT_EQ(found[0]["size"], 3) << clusters.out;
      const RunResult dups = run("duplicates");
      ASSERT_EQ(dups.exit_code, 0) << dups.err;
      std::set<std::string> listed;
      for (const auto& record : JsonLines(dups.out)) {
        EXPECT_NE(record["path"], "-");
        EXPECT_EQ(record["kept"], found[0]["keep"]);
        listed.insert(record["path"].get<std::string>());
      }
      EXPECT_EQ(listed.size(), 1u) << dups.out;
      for (const std::string& path : listed) std::filesystem::remove(path);
      EXPECT_TRUE(std::filesystem::exists(found[0]["keep"].get<std::string>()));
      EXPECT_EQ(std::distance(std::filesystem::directory_iterator(copy), std::filesystem::directory_iterator()), 1);
    }
  }
}

// When the kept document is a stream anyway (a reference read from stdin),
// nothing of its cluster is listed: its text is on disk nowhere else. (The
// cluster is still found: exit 0.)
TEST(DedupTest, NothingIsListedForAKeptStream) {
  TempDir dir;
  const auto words = RandomWords(300, 44);
  WriteFile(dir / "stdin.txt", Join(words));
  WriteFile(dir / "docs/a.txt", Join(words));
  WriteFile(dir / "docs/b.txt", Join(Spread(words, 2, 7, "edit")));
  const RunResult dups = RunNeardup({"scan", "-q", "--mode", "duplicates", "-t", "0.5", "--against", "-", dir / "docs"},
                                    dir.path(), RunOptions().Stdin(dir / "stdin.txt"));
  EXPECT_EQ(dups.exit_code, 0) << dups.err;
  EXPECT_EQ(dups.out, "");
  const RunResult clusters =
      RunNeardup({"scan", "-q", "--mode", "clusters", "-t", "0.5", "--against", "-", dir / "docs"}, dir.path(),
                 RunOptions().Stdin(dir / "stdin.txt"));
  EXPECT_EQ(clusters.exit_code, 0) << clusters.err;
  EXPECT_NE(clusters.out.find(R"("keep":"-")"), std::string::npos) << clusters.out;
}

// A chain of 100,000 versions, each a window of 40 words moved 3 words on
// from the one before: J = 33/39 with the next version, 30/42 with the one
// after. --cluster-by keep keeps every other version with the next one: the
// run completes (the peel-off compared each kept version with every version
// left: about 10^9 comparisons here).
TEST(DedupTest, ChainOfAHundredThousandVersionsIsClusteredInPairs) {
  TempDir dir;
  constexpr size_t kVersions = 100000;
  constexpr size_t kWindow = 40;
  constexpr size_t kStep = 3;
  const std::vector<std::string> words = RandomWords(kVersions * kStep + kWindow, 42, 100000);
  std::string jsonl;
  for (size_t v = 0; v < kVersions; ++v) {
    jsonl += "{\"text\":\"";
    for (size_t w = 0; w < kWindow; ++w) jsonl += (w > 0 ? " " : "") + words[v * kStep + w];
    jsonl += "\"}\n";
  }
  WriteFile(dir / "chain.jsonl", jsonl);
  const RunResult r =
      RunNeardup({"scan", "-q", "-j2", "--input", "jsonl", "--mode", "duplicates", dir / "chain.jsonl"}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const size_t removable = static_cast<size_t>(std::count(r.out.begin(), r.out.end(), '\n'));
  // One removable version per pair kept; a few pairs LSH misses leave theirs.
  EXPECT_LE(removable, kVersions / 2);
  EXPECT_GE(removable, kVersions / 2 - kVersions / 100);
}

}  // namespace
}  // namespace neardup
