// End to end: metadata is not content (#41). A change of a file's stat alone
// (chmod -R g+w, touch, the hard links --kept-dir makes, which change the
// inputs' ctime) makes nothing new to `--index --new` and signs nothing
// again, and a stage work folder is used again over the same contents; a
// change of content, even of the same size with the mtime put back, is
// still found, and named. And --new with --kept-dir writes the deduplicated
// corpus, old duplicates left out, while stdout reports only what is new.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "e2e/run_neardup.h"
#include "neardup/index.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::FileTree;
using testing::Join;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::With;
using testing::WriteFile;
using Args = std::vector<std::string>;

std::string Text(uint64_t seed) { return Join(RandomWords(300, seed)); }

// Text(seed) with every 100th word replaced: a near copy (J about 0.9).
std::string Edited(uint64_t seed, const std::string& tag) {
  auto w = RandomWords(300, seed);
  for (size_t i = 7; i < w.size(); i += 100) w[i] = tag + std::to_string(i);
  return Join(w);
}

std::string PaddedTo(std::string text, size_t size) {
  if (text.size() < size) text.append(size - text.size(), ' ');
  return text;
}

// Three pairs of near copies and two files like nothing else.
void MakeCorpus(const TempDir& dir) {
  for (uint64_t i = 0; i < 3; ++i) {
    WriteFile(dir / ("c/p" + std::to_string(i) + "a.txt"), Text(10 + i));
    WriteFile(dir / ("c/p" + std::to_string(i) + "b.txt"), Edited(10 + i, "e"));
  }
  WriteFile(dir / "c/lone0.txt", Text(40));
  WriteFile(dir / "c/lone1.txt", Text(41));
}

struct Indexed {
  int exit_code = -1;
  size_t pairs = 0;
  uint64_t reused = 0, signed_now = 0;
  std::string err;
};

// `scan --index ix --new -f json` over dir/c (plus `extra`).
Indexed NewRun(const TempDir& dir, const Args& extra = {}) {
  Args args = {"-f", "json", "--index", dir / "ix.db", "--new"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(dir / "c");
  const RunResult r = RunNeardup(With({"scan", "-q"}, args), dir.path());
  Indexed out{.exit_code = r.exit_code, .pairs = 0, .reused = 0, .signed_now = 0, .err = r.err};
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  if (!j.is_object() || !j.contains("index")) {
    out.signed_now = ~0ull;
    return out;
  }
  out.pairs = j["pairs"].size();
  out.reused = j["index"]["reused"];
  out.signed_now = j["index"]["signed"];
  return out;
}

void Touch(const std::string& path) { ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), nullptr, 0), 0); }

// The output of --index (json, its "index" object dropped) is the plain scan's.
void ExpectSameAsPlain(const TempDir& dir) {
  const RunResult plain = RunNeardup({"scan", "-q", "-f", "json", dir / "c"}, dir.path());
  const RunResult indexed = RunNeardup({"scan", "-q", "-f", "json", "--index", dir / "ix.db", dir / "c"}, dir.path());
  EXPECT_EQ(indexed.exit_code, plain.exit_code) << indexed.err;
  nlohmann::json a = nlohmann::json::parse(indexed.out, nullptr, false);
  ASSERT_TRUE(a.is_object()) << indexed.out;
  a.erase("index");
  EXPECT_EQ(a.dump(), nlohmann::json::parse(plain.out).dump());
}

TEST(MetadataTest, ChmodTouchAndKeptDirLinksAreNothingNewAndSignNothingAgain) {
  TempDir dir;
  MakeCorpus(dir);
  Indexed r = NewRun(dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.pairs, 3u);
  EXPECT_EQ(r.signed_now, 8u);

  // chmod -R g+w: every ctime changes.
  ASSERT_EQ(RunProcess({"/bin/chmod", "-R", "g+w", dir / "c"}, dir.path()).exit_code, 0);
  r = NewRun(dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.pairs, 0u);
  EXPECT_EQ(r.signed_now, 0u);
  EXPECT_EQ(r.reused, 8u);

  // touch: an mtime changes.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  Touch(dir / "c/p1b.txt");
  Touch(dir / "c/lone0.txt");
  r = NewRun(dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.pairs, 0u);
  EXPECT_EQ(r.signed_now, 0u);

  // A nightly --index --new --kept-dir job: its hard links change the
  // inputs' ctime; the next night finds nothing new, and signs nothing.
  for (const char* night : {"k1", "k2", "k3"}) {
    r = NewRun(dir, {"--kept-dir", dir / night});
    EXPECT_EQ(r.exit_code, 1) << night << ": " << r.err;
    EXPECT_EQ(r.pairs, 0u) << night;
    EXPECT_EQ(r.signed_now, 0u) << night;
    EXPECT_EQ(FileTree(dir / night).size(), 5u) << night;  // the deduplicated corpus
  }
  ExpectSameAsPlain(dir);
  EXPECT_EQ(RunNeardup({"index", "check", dir / "ix.db"}, dir.path()).exit_code, 0);
}

TEST(MetadataTest, AContentChangeOfTheSameSizeIsNewEvenWithItsMtimePutBack) {
  TempDir dir;
  MakeCorpus(dir);
  ASSERT_EQ(NewRun(dir).exit_code, 0);
  // lone1 becomes a near copy of lone0, at its old size, its mtime put
  // back: only its ctime and its bytes tell.
  const std::string lone1 = dir / "c/lone1.txt";
  struct stat before {};
  ASSERT_EQ(::stat(lone1.c_str(), &before), 0);
  const std::string near = Edited(40, "n");
  const size_t size = static_cast<size_t>(before.st_size);
  ASSERT_LE(near.size(), size);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  WriteFile(lone1, PaddedTo(near, size));
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, lone1.c_str(), times, 0), 0);
  Touch(dir / "c/p0a.txt");  // and a touch beside it, which is not a change
  Indexed r = NewRun(dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.pairs, 1u);
  EXPECT_EQ(r.signed_now, 1u);
  EXPECT_EQ(r.reused, 7u);
  ExpectSameAsPlain(dir);
}

// An index made before text files had a stored hash (raw_hash 0): a file
// whose stat changed is signed again, but its documents are the stored
// ones, so nothing is new; the next run then has the hash.
TEST(MetadataTest, EntriesWithoutAHashAreSignedAgainButAreNotNew) {
  TempDir dir;
  MakeCorpus(dir);
  ASSERT_EQ(NewRun(dir).exit_code, 0);
  ASSERT_EQ(RunProcess({"/usr/bin/sqlite3", dir / "ix.db", "UPDATE files SET raw_hash = 0"}, dir.path()).exit_code, 0);
  ASSERT_EQ(RunProcess({"/bin/chmod", "-R", "g+w", dir / "c"}, dir.path()).exit_code, 0);
  Indexed r = NewRun(dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.pairs, 0u);
  EXPECT_EQ(r.signed_now, 0u);  // read again, and found as stored: counted as reused
  EXPECT_EQ(r.reused, 8u);
  ASSERT_EQ(RunProcess({"/bin/chmod", "-R", "g-w", dir / "c"}, dir.path()).exit_code, 0);
  r = NewRun(dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.signed_now, 0u);
}

// An index whose signatures were made by MinHash definition 0 (before it was
// a parameter: no `minhash` row, schema version 3): the next run signs every
// file again, says so once, finds nothing new, and gives the plain scan's
// output even by signature alone (the stored signatures are made useless
// here, so reusing one would show); the run after it reuses everything.
TEST(MetadataTest, AnIndexOfTheOlderMinHashDefinitionIsSignedAgainOnceAndNothingIsNew) {
  TempDir dir;
  MakeCorpus(dir);
  ASSERT_EQ(NewRun(dir).exit_code, 0);
  ASSERT_EQ(RunProcess({"/usr/bin/sqlite3", dir / "ix.db",
                        "DELETE FROM meta WHERE key = 'minhash'; UPDATE documents SET signature = zeroblob(512); "
                        "PRAGMA user_version = 3;"},
                       dir.path())
                .exit_code,
            0);
  const std::string notice = "signed again as they are walked, this once";
  const RunResult upgrade =
      RunNeardup({"scan", "-f", "json", "--index", dir / "ix.db", "--new", dir / "c"}, dir.path());  // not -q
  EXPECT_EQ(upgrade.exit_code, 1) << upgrade.err;
  const nlohmann::json u = nlohmann::json::parse(upgrade.out, nullptr, false);
  ASSERT_TRUE(u.is_object()) << upgrade.out;
  EXPECT_EQ(u["pairs"].size(), 0u);
  EXPECT_EQ(u["index"]["signed"], 0);  // read again, and found as stored: counted as reused
  EXPECT_EQ(u["index"]["reused"], 8);
  const size_t at = upgrade.err.find(notice);
  EXPECT_NE(at, std::string::npos) << upgrade.err;
  EXPECT_EQ(upgrade.err.find(notice, at + 1), std::string::npos) << upgrade.err;
  const RunResult meta = RunProcess(
      {"/usr/bin/sqlite3", dir / "ix.db", "SELECT value FROM meta WHERE key = 'minhash'; PRAGMA user_version;"},
      dir.path());
  EXPECT_EQ(meta.out, "1\n" + std::to_string(kIndexSchemaVersion) + "\n");

  const Indexed r = NewRun(dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.reused, 8u);
  EXPECT_EQ(r.err.find(notice), std::string::npos) << r.err;
  const Args by_signature = {"scan", "-q", "-f", "json", "--verify", "signature"};
  const RunResult plain = RunNeardup(With(by_signature, {dir / "c"}), dir.path());
  const RunResult indexed = RunNeardup(With(by_signature, {"--index", dir / "ix.db", dir / "c"}), dir.path());
  nlohmann::json a = nlohmann::json::parse(indexed.out, nullptr, false);
  ASSERT_TRUE(a.is_object()) << indexed.out;
  EXPECT_EQ(a["index"]["signed"], 0) << indexed.out;
  a.erase("index");
  EXPECT_EQ(a.dump(), nlohmann::json::parse(plain.out).dump());
}

// --new with --kept-dir: stdout reports only what is new; the folder is the
// deduplicated corpus, the same as without --new (old duplicates left out).
TEST(MetadataTest, NewWithKeptDirWritesTheWholeDeduplicatedCorpus) {
  TempDir dir;
  MakeCorpus(dir);
  // A --new run: only runs of the index's --new job deliver (#42).
  ASSERT_EQ(RunNeardup({"scan", "-q", "--index", dir / "ix.db", "--new", dir / "c"}, dir.path()).exit_code, 0);
  WriteFile(dir / "c/q0a.txt", Text(60));
  WriteFile(dir / "c/q0b.txt", Edited(60, "q"));
  const RunResult plain =
      RunNeardup({"scan", "-q", "--mode", "duplicates", "--kept-dir", dir / "plain", dir / "c"}, dir.path());
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const RunResult news = RunNeardup(
      {"scan", "-q", "--mode", "duplicates", "--index", dir / "ix.db", "--new", "--kept-dir", dir / "new", dir / "c"},
      dir.path());
  ASSERT_EQ(news.exit_code, 0) << news.err;
  // Only the new duplicate is reported ...
  const std::vector<std::string> listed = testing::Lines(plain.out);
  ASSERT_EQ(listed.size(), 4u) << plain.out;
  std::string new_one;
  for (const std::string& line : listed) {
    if (line.find("/c/q0") != std::string::npos) new_one += line + "\n";
  }
  EXPECT_EQ(news.out, new_one);
  // ... and the folder holds the deduplicated corpus, old duplicates left out.
  EXPECT_EQ(FileTree(dir / "new"), FileTree(dir / "plain"));
  EXPECT_EQ(FileTree(dir / "new").size(), 6u);
  // Pairs mode too. The duplicates run was not of the index's --new job
  // (pairs mode), so its pair is still pending for it (#42).
  const RunResult pairs =
      RunNeardup({"scan", "-q", "--index", dir / "ix.db", "--new", "--kept-dir", dir / "new2", dir / "c"}, dir.path());
  EXPECT_EQ(pairs.exit_code, 0) << pairs.err;
  EXPECT_EQ(testing::Lines(pairs.out).size(), 1u) << pairs.out;
  EXPECT_NE(pairs.out.find("/c/q0a.txt\",\"b\":\"" + (dir / "c/q0b.txt")), std::string::npos) << pairs.out;
  EXPECT_EQ(FileTree(dir / "new2"), FileTree(dir / "plain"));
}

// A stage work folder used again after the inputs were hard-linked (stage
// filter, --kept-dir) or touched: the sign tasks count themselves done, the
// report is scan's, and the filter tasks write the same folder again. A
// change of content is refused, naming the file, by the one task whose share
// holds it.
TEST(MetadataTest, StageWorkFolderIsUsedAgainAfterHardLinksAndRefusesAChangedFileOnce) {
  TempDir dir;
  MakeCorpus(dir);
  const std::string work = dir / "work";
  auto sign = [&](int task) {
    return RunNeardup({"stage", "sign", "-v", "--task", std::to_string(task), "--tasks", "2", work, dir / "c"},
                      dir.path());
  };
  auto report = [&] {
    EXPECT_EQ(RunNeardup({"stage", "bucket", "--task", "0", "--tasks", "1", work}, dir.path()).exit_code, 0);
    EXPECT_EQ(RunNeardup({"stage", "verify", "--task", "0", "--tasks", "1", work}, dir.path()).exit_code, 0);
    return RunNeardup({"stage", "report", "-f", "json", work}, dir.path());
  };
  auto filter = [&](const std::string& kept) {
    for (int task : {0, 1}) {
      const RunResult r = RunNeardup(
          {"stage", "filter", "--task", std::to_string(task), "--tasks", "2", "--kept-dir", kept, work}, dir.path());
      EXPECT_EQ(r.exit_code, 0) << task << ": " << r.err;
    }
    return FileTree(kept);
  };
  ASSERT_EQ(sign(0).exit_code, 0);
  ASSERT_EQ(sign(1).exit_code, 0);
  const RunResult scan = RunNeardup({"scan", "-f", "json", dir / "c"}, dir.path());
  ASSERT_EQ(scan.exit_code, 0);
  EXPECT_EQ(report().out, scan.out);
  // The filter tasks hard-link the kept files: their ctimes change.
  const auto first = filter(dir / "f1");
  EXPECT_EQ(first.size(), 5u);

  // And a chmod (every ctime) and a touch (an mtime; the bytes are the same).
  ASSERT_EQ(RunProcess({"/bin/chmod", "-R", "g+w", dir / "c"}, dir.path()).exit_code, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  Touch(dir / "c/p2b.txt");
  Touch(dir / "c/p2a.txt");
  for (int task : {0, 1}) {
    const RunResult r = sign(task);
    EXPECT_EQ(r.exit_code, 0) << task << ": " << r.err;
    EXPECT_NE(r.err.find("done before, nothing to do"), std::string::npos) << r.err;
  }
  const RunResult again = report();
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, scan.out);
  EXPECT_EQ(filter(dir / "f2"), first);

  // A change of content at the same size: named, by one task only.
  const std::string changed = dir / "c/p2b.txt";
  const std::string text = testing::ReadFile(changed);
  std::string edited = text;
  edited[0] = edited[0] == 'q' ? 'r' : 'q';
  WriteFile(changed, edited);
  int refused = 0;
  for (int task : {0, 1}) {
    const RunResult r = sign(task);
    if (r.exit_code == 0) continue;
    ++refused;
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(changed + " changed since sign task " + std::to_string(task) + " read it"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("the inputs changed between sign tasks; run again in an empty work folder"), std::string::npos)
        << r.err;
  }
  EXPECT_EQ(refused, 1);

  // A file gone: every task refuses (the shares no longer fit), naming it.
  WriteFile(changed, text);
  std::filesystem::remove(dir / "c/lone0.txt");
  for (int task : {0, 1}) {
    const RunResult r = sign(task);
    EXPECT_EQ(r.exit_code, 2) << task;
    EXPECT_NE(r.err.find(dir / "c/lone0.txt: gone since sign task 0 walked it"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace neardup
