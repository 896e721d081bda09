// End to end: `scan --index`. The central promise: with the same PATHs and
// options, stdout and the exit status of a run with an index are
// byte-identical to a run without one (json: once the top-level "index"
// object, present only with --index, is dropped), on the first run and
// whatever changed since. Also --new, the lock, broken or foreign index
// files, and runs killed at random moments.
#include "neardup/index.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "e2e/run_neardup.h"
#include "index/sign_indexed.h"
#include "index/signature_index.h"
#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::RandomWords;
using testing::ReadFile;
using testing::RunNeardup;
using testing::RunOptions;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::With;
using testing::WriteFile;

const std::string kBin = ::neardup::testing::NeardupBinary();

// Drops the "index" object (json with --index) so the rest compares byte
// for byte with a run without --index.
std::string WithoutIndex(const std::string& json) {
  const size_t at = json.find("\n  \"index\": {");
  if (at == std::string::npos) return json;
  const size_t end = json.find("\n  },", at);
  return json.substr(0, at) + json.substr(end + 5);
}

struct IndexCounts {
  uint64_t reused = 0, signed_now = 0, removed = 0;
};

IndexCounts CountsOf(const std::string& json) {
  const nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  IndexCounts c;
  if (!j.is_object() || !j.contains("index")) return {~0ull, ~0ull, ~0ull};
  c.reused = j["index"]["reused"];
  c.signed_now = j["index"]["signed"];
  c.removed = j["index"]["removed"];
  return c;
}

// Runs every mode and format with and without the index and expects the same
// stdout and exit status. Returns the index counts of the first run.
IndexCounts ExpectSameAsPlain(const TempDir& dir, const std::vector<std::string>& args, const std::string& step) {
  IndexCounts first;
  bool have_first = false;
  for (const char* mode : {"pairs", "clusters", "duplicates"}) {
    for (const char* format : {"json", "jsonl", "csv"}) {
      std::vector<std::string> a = {"--mode", mode, "-f", format};
      a.insert(a.end(), args.begin(), args.end());
      const RunResult plain = RunNeardup(With({"scan", "-q"}, a), dir.path());
      a.insert(a.begin(), {"--index", dir / "ix.db"});
      const RunResult indexed = RunNeardup(With({"scan", "-q"}, a), dir.path());
      EXPECT_EQ(indexed.exit_code, plain.exit_code) << step << " " << mode << " " << format << ": " << indexed.err;
      EXPECT_EQ(WithoutIndex(indexed.out), plain.out) << step << " " << mode << " " << format;
      if (!have_first && std::string(format) == "json") {
        first = CountsOf(indexed.out);
        have_first = true;
      }
    }
  }
  return first;
}

std::string Text(uint64_t seed, size_t words = 300) { return Join(RandomWords(words, seed)); }

// Text(seed) with every 100th word replaced: a near duplicate (J about 0.9).
std::string Edited(uint64_t seed, const std::string& tag) {
  auto w = RandomWords(300, seed);
  for (size_t i = 7; i < w.size(); i += 100) w[i] = tag + std::to_string(i);
  return Join(w);
}

void SetTimes(const std::string& path, const struct stat& from) {
  const struct timespec times[2] = {from.st_atim, from.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

TEST(IndexTest, TextOutputEqualsPlainScanThroughEveryChange) {
  TempDir dir;
  for (int i = 0; i < 12; ++i) {
    WriteFile(dir / (std::string("c/doc").append(std::to_string(i)) + ".txt"),
              Text(100 + static_cast<uint64_t>(i % 6)));
  }
  WriteFile(dir / "c/near.txt", Edited(100, "x"));
  WriteFile(dir / "c/empty.txt", "");
  WriteFile(dir / "c/short.txt", "two words");
  WriteFile(dir / "c/binary.bin", std::string("\0\1\2binary", 9));
  WriteFile(dir / "c/latin.txt", "caf\xe9 " + Text(7));  // invalid UTF-8, replaced and counted
  const std::vector<std::string> args = {"--min-words", "3", dir / "c"};

  IndexCounts c = ExpectSameAsPlain(dir, args, "first run");
  EXPECT_EQ(c.reused, 0u);
  EXPECT_EQ(c.signed_now, 17u);
  c = ExpectSameAsPlain(dir, args, "unchanged");
  EXPECT_EQ(c.reused, 17u);
  EXPECT_EQ(c.signed_now, 0u);

  WriteFile(dir / "c/added.txt", Edited(101, "y"));
  c = ExpectSameAsPlain(dir, args, "added");
  EXPECT_EQ(c.signed_now, 1u);
  EXPECT_EQ(c.reused, 17u);

  WriteFile(dir / "c/doc3.txt", Edited(103, "z"));
  c = ExpectSameAsPlain(dir, args, "edited");
  EXPECT_EQ(c.signed_now, 1u);

  // An edit of the same size whose mtime is put back: only ctime tells.
  struct stat before {};
  ASSERT_EQ(::stat((dir / "c/doc4.txt").c_str(), &before), 0);
  std::string same_size = Text(104);
  same_size[0] = same_size[0] == 'q' ? 'r' : 'q';
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  WriteFile(dir / "c/doc4.txt", same_size);
  SetTimes(dir / "c/doc4.txt", before);
  c = ExpectSameAsPlain(dir, args, "edited, mtime restored");
  EXPECT_EQ(c.signed_now, 1u);

  std::filesystem::remove(dir / "c/doc5.txt");
  c = ExpectSameAsPlain(dir, args, "deleted");
  EXPECT_EQ(c.removed, 1u);
  EXPECT_EQ(c.signed_now, 0u);

  std::filesystem::rename(dir / "c/doc6.txt", dir / "c/renamed.txt");
  c = ExpectSameAsPlain(dir, args, "renamed");
  EXPECT_EQ(c.removed, 1u);
  EXPECT_EQ(c.signed_now, 1u);

  // In one run, a file added first in path order, two removed in the middle
  // and one added last: the stored rows move up, then down, within the
  // matrix read from the index.
  WriteFile(dir / "c/a0.txt", Text(201));
  std::filesystem::remove(dir / "c/doc8.txt");
  std::filesystem::remove(dir / "c/doc9.txt");
  WriteFile(dir / "c/zz.txt", Edited(102, "w"));
  c = ExpectSameAsPlain(dir, args, "added around, removed between");
  EXPECT_EQ(c.signed_now, 2u);
  EXPECT_EQ(c.removed, 2u);

  const RunResult check = RunNeardup({"index", "check", dir / "ix.db"}, dir.path());
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

std::string JsonlLine(const std::string& id, const std::string& text) {
  nlohmann::json j;
  if (!id.empty()) j["id"] = id;
  j["text"] = text;
  return j.dump() + "\n";
}

TEST(IndexTest, JsonlThatGrewSignsOnlyItsNewLines) {
  TempDir dir;
  std::string a;
  for (int i = 0; i < 30; ++i)
    a += JsonlLine(i % 7 == 3 ? "" : std::string("a").append(std::to_string(i)), Text(200 + i % 10));
  a += "{not json\n";
  a += JsonlLine("dup", Text(300));
  a += "\n";
  WriteFile(dir / "j/a.jsonl", a);
  WriteFile(dir / "j/b.jsonl", JsonlLine("b1", Edited(201, "q")) + JsonlLine("dup", Text(301)));
  const std::vector<std::string> args = {"--input", "jsonl", dir / "j"};

  IndexCounts c = ExpectSameAsPlain(dir, args, "first run");
  EXPECT_EQ(c.signed_now, 33u);
  c = ExpectSameAsPlain(dir, args, "unchanged");
  EXPECT_EQ(c.reused, 33u);

  // Appended: 3 documents, a malformed line, a duplicate id.
  {
    std::ofstream out(dir / "j/a.jsonl", std::ios::app | std::ios::binary);
    out << JsonlLine("a100", Edited(202, "w")) << "[1,\n" << JsonlLine("dup", Text(302)) << JsonlLine("", Text(303));
  }
  c = ExpectSameAsPlain(dir, args, "appended");
  EXPECT_EQ(c.signed_now, 3u);
  EXPECT_EQ(c.reused, 33u);

  // Appended to a file whose last line had no newline: signed whole.
  WriteFile(dir / "j/c.jsonl", JsonlLine("c1", Text(210)) + R"({"id":"c2","text":"partial line)");
  ExpectSameAsPlain(dir, args, "partial");
  {
    std::ofstream out(dir / "j/c.jsonl", std::ios::app | std::ios::binary);
    out << " ends now\"}\n" << JsonlLine("c3", Text(211));
  }
  c = ExpectSameAsPlain(dir, args, "partial line completed");
  EXPECT_EQ(c.signed_now, 3u);

  // Rewritten (not appended): its old bytes differ, so it is signed whole.
  std::string rewritten = JsonlLine("b1", Text(220)) + JsonlLine("b2", Text(221)) + JsonlLine("b3", Text(222));
  WriteFile(dir / "j/b.jsonl", rewritten);
  c = ExpectSameAsPlain(dir, args, "rewritten");
  EXPECT_EQ(c.signed_now, 3u);

  const RunResult check = RunNeardup({"index", "check", dir / "ix.db"}, dir.path());
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

// A corpus that grows past the room the matrix read from the index has
// (half its documents plus 65536) is copied into a new one: the same answer.
TEST(IndexTest, GrowthPastTheReservedRoomGivesTheSameAnswer) {
  TempDir dir;
  std::string small;
  for (int i = 0; i < 4; ++i)
    small += JsonlLine(std::string("s").append(std::to_string(i)), Text(500 + static_cast<uint64_t>(i), 40));
  WriteFile(dir / "j/a.jsonl", small);
  const std::vector<std::string> args = {"--input", "jsonl", "-f", "json", dir / "j"};
  const std::vector<std::string> indexed = {"--input", "jsonl", "-f", "json", "--index", dir / "ix.db", dir / "j"};
  ASSERT_EQ(RunNeardup(With({"scan", "-q"}, indexed), dir.path()).exit_code, 1);
  std::string grown;
  for (int i = 0; i < 70000; ++i) {
    // Every 1000th line a near copy of line 0, so that pairs are found.
    grown += i % 1000 == 0 ? JsonlLine(std::string("g").append(std::to_string(i)), Text(500, 40) + " more")
                           : JsonlLine("", std::string("w").append(std::to_string(i)).append(" x y z"));
  }
  WriteFile(dir / "j/b.jsonl", grown);  // a new file of 70,000 documents
  const RunResult plain = RunNeardup(With({"scan", "-q"}, args), dir.path());
  const RunResult again = RunNeardup(With({"scan", "-q"}, indexed), dir.path());
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(again.exit_code, plain.exit_code) << again.err;
  EXPECT_EQ(WithoutIndex(again.out), plain.out);
  EXPECT_EQ(CountsOf(again.out).signed_now, 70000u);
  EXPECT_NE(plain.out.find("g69000"), std::string::npos);
}

TEST(IndexTest, AgainstKeepsArchiveEntriesAndSignsOnlyWhatIsNew) {
  TempDir dir;
  for (int i = 0; i < 6; ++i)
    WriteFile(dir / (std::string("archive/a").append(std::to_string(i))), Text(400 + static_cast<uint64_t>(i)));
  WriteFile(dir / "incoming/n0", Edited(401, "n"));
  IndexCounts c = ExpectSameAsPlain(dir, {"--against", dir / "archive", dir / "incoming"}, "first");
  EXPECT_EQ(c.signed_now, 7u);
  WriteFile(dir / "incoming/n1", Edited(403, "m"));
  c = ExpectSameAsPlain(dir, {"--against", dir / "archive", dir / "incoming"}, "new incoming");
  EXPECT_EQ(c.signed_now, 1u);
  EXPECT_EQ(c.reused, 7u);
  // A scan of incoming/ alone keeps archive/'s entries.
  c = ExpectSameAsPlain(dir, {dir / "incoming"}, "incoming only");
  EXPECT_EQ(c.removed, 0u);
  c = ExpectSameAsPlain(dir, {"--against", dir / "archive", dir / "incoming"}, "again");
  EXPECT_EQ(c.signed_now, 0u);
  EXPECT_EQ(c.reused, 8u);
}

TEST(IndexTest, NewReportsWhatInvolvesDocumentsSignedInThisRun) {
  TempDir dir;
  for (int i = 0; i < 8; ++i)
    WriteFile(dir / (std::string("c/old").append(std::to_string(i))), Text(500 + static_cast<uint64_t>(i % 4)));
  const std::string ix = dir / "ix.db";
  // A --new run: only runs of the index's --new job deliver (#42).
  ASSERT_EQ(RunNeardup({"scan", "-q", "--index", ix, "--new", dir / "c"}, dir.path()).exit_code, 0);
  WriteFile(dir / "c/new0", Edited(501, "n"));
  WriteFile(dir / "c/new1", Text(600));
  std::set<std::string> fresh = {dir / "c/new0", dir / "c/new1"};

  const RunResult plain = RunNeardup({"scan", "-q", "-f", "json", dir / "c"}, dir.path());
  const RunResult news = RunNeardup({"scan", "-q", "-f", "json", "--index", ix, "--new", dir / "c"}, dir.path());
  ASSERT_EQ(news.exit_code, 0) << news.err;
  const auto all = nlohmann::json::parse(plain.out);
  const auto got = nlohmann::json::parse(news.out);
  std::vector<nlohmann::json> want;
  for (const auto& p : all["pairs"]) {
    if (fresh.count(p["a"]) != 0 || fresh.count(p["b"]) != 0) want.push_back(p);
  }
  ASSERT_FALSE(want.empty());
  EXPECT_LT(want.size(), all["pairs"].size());
  EXPECT_EQ(got["pairs"], nlohmann::json(want));
  EXPECT_EQ(got["stats"]["pairs"], want.size());

  // Nothing new now: nothing reported, exit 1.
  const RunResult again = RunNeardup({"scan", "-q", "--index", ix, "--new", dir / "c"}, dir.path());
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.out, "");

  // Clusters: those with a new member.
  WriteFile(dir / "c/new2", Edited(502, "k"));
  const RunResult plain_c = RunNeardup({"scan", "-q", "-f", "json", "--mode", "clusters", dir / "c"}, dir.path());
  const RunResult new_c =
      RunNeardup({"scan", "-q", "-f", "json", "--mode", "clusters", "--index", ix, "--new", dir / "c"}, dir.path());
  std::vector<nlohmann::json> want_c;
  const nlohmann::json all_c = nlohmann::json::parse(plain_c.out);
  const nlohmann::json got_cj = nlohmann::json::parse(new_c.out);
  for (const auto& cl : all_c["clusters"]) {
    bool has = false;
    for (const auto& m : cl["members"]) has = has || m.get<std::string>() == dir / "c/new2";
    if (has) want_c.push_back(cl["members"]);
  }
  std::vector<nlohmann::json> got_c;
  for (const auto& cl : got_cj["clusters"]) got_c.push_back(cl["members"]);
  ASSERT_EQ(want_c.size(), 1u) << plain_c.out;
  EXPECT_EQ(got_c, want_c);

  const RunResult usage = RunNeardup({"scan", "-q", "--new", dir / "c"}, dir.path());
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_NE(usage.err.find("--new needs --index"), std::string::npos) << usage.err;
}

TEST(IndexTest, SecondRunOnAnIndexInUseExitsNamingTheHolder) {
  TempDir dir;
  WriteFile(dir / "c/a", Text(1));
  WriteFile(dir / "c/b", Text(1));
  const std::string ix = dir / "ix.db";
  Options o;
  o.index = ix;
  {
    Result<std::unique_ptr<SignatureIndex>> held = OpenIndexFor(o);
    ASSERT_TRUE(held.ok()) << held.status().message();
    const RunResult r = RunNeardup({"scan", "-q", "--index", ix, dir / "c"}, dir.path());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(std::string("in use by pid ").append(std::to_string(::getpid())) + " on "), std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "");
    // --lock-wait: waits until the holder lets go.
    std::thread release([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      held->reset();
    });
    const RunResult waited = RunNeardup({"scan", "-q", "--index", ix, "--lock-wait", "20", dir / "c"}, dir.path());
    release.join();
    EXPECT_EQ(waited.exit_code, 0) << waited.err;
  }
  // A holder killed with SIGKILL never blocks the next run.
  const pid_t child = ::fork();
  if (child == 0) {
    Result<std::unique_ptr<SignatureIndex>> held = OpenIndexFor(o);
    if (!held.ok()) ::_exit(3);
    ::pause();
    ::_exit(0);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  const RunResult after = RunNeardup({"scan", "-q", "--index", ix, dir / "c"}, dir.path());
  EXPECT_EQ(after.exit_code, 0) << after.err;
}

TEST(IndexTest, TwoRunsStartedAtOnceOneWorksTheOtherSaysWhoHoldsIt) {
  TempDir dir;
  for (int i = 0; i < 3000; ++i)
    WriteFile(dir / (std::string("c/").append(std::to_string(i))), Text(static_cast<uint64_t>(i), 120));
  const std::string ix = dir / "ix.db";
  // Both started together; repeated until they overlap (a fast first run
  // may be done before the second starts).
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::filesystem::remove(ix);
    RunResult r1, r2;
    TempDir d1, d2;
    std::thread t1([&] { r1 = RunNeardup({"scan", "-q", "-j", "1", "--index", ix, dir / "c"}, d1.path()); });
    std::thread t2([&] { r2 = RunNeardup({"scan", "-q", "-j", "1", "--index", ix, dir / "c"}, d2.path()); });
    t1.join();
    t2.join();
    ASSERT_TRUE(r1.exit_code == 0 || r1.exit_code == 1 || r1.exit_code == 2) << r1.err;
    if (r1.exit_code == 2 || r2.exit_code == 2) {
      const RunResult& loser = r1.exit_code == 2 ? r1 : r2;
      const RunResult& winner = r1.exit_code == 2 ? r2 : r1;
      EXPECT_NE(winner.exit_code, 2) << winner.err;
      EXPECT_NE(loser.err.find("in use by pid "), std::string::npos) << loser.err;
      EXPECT_EQ(loser.out, "");
      return;
    }
  }
  GTEST_SKIP() << "the two runs never overlapped";
}

TEST(IndexTest, BrokenOrForeignIndexFilesGiveOneLineErrors) {
  TempDir dir;
  WriteFile(dir / "c/a", Text(1));
  WriteFile(dir / "c/b", Edited(1, "e"));
  auto expect_error = [&](const std::string& ix, const std::string& words, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--index", ix};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(dir / "c");
    const RunResult r = RunNeardup(With({"scan", "-q"}, args), dir.path());
    EXPECT_EQ(r.exit_code, 2) << ix;
    EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "");
  };
  WriteFile(dir / "text.db", "just some text, not a database at all\n");
  expect_error(dir / "text.db", "not a neardup index (not an SQLite database)");
  EXPECT_EQ(testing::ReadFile(dir / "text.db"), "just some text, not a database at all\n");

  const RunResult made =
      RunProcess({"/usr/bin/sqlite3", dir / "other.db", "CREATE TABLE t(x); INSERT INTO t VALUES(1);"}, dir.path());
  ASSERT_EQ(made.exit_code, 0) << made.err;
  expect_error(dir / "other.db", "another application");

  const std::string ix = dir / "ix.db";
  ASSERT_EQ(RunNeardup({"scan", "-q", "--index", ix, dir / "c"}, dir.path()).exit_code, 0);
  expect_error(ix, "--ngram: 7 here, 5 in the index", {"-k", "7"});
  expect_error(ix, "--num-perm: 64 here, 128 in the index", {"--num-perm", "64", "--seed", "3"});
  expect_error(ix, "--seed: 3 here, 1 in the index", {"--num-perm", "64", "--seed", "3"});
  expect_error(ix, "to start a new index", {"--shingle", "char"});

  std::filesystem::copy_file(ix, dir / "newer.db");
  const std::string newer = std::to_string(kIndexSchemaVersion + 1);
  ASSERT_EQ(
      RunProcess({"/usr/bin/sqlite3", dir / "newer.db", "PRAGMA user_version = " + newer + ";"}, dir.path()).exit_code,
      0);
  expect_error(dir / "newer.db", "schema version " + newer + " is newer");

  // Read-only: as nobody when root (root may write anything).
  std::filesystem::permissions(ix, std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                       std::filesystem::perms::others_read);
  testing::OpenToEveryone(dir.path());
  testing::OpenToEveryone(dir / "c");
  const RunResult ro = testing::RunProcessUnprivileged({kBin, "scan", "-q", "--index", ix, dir / "c"}, dir.path());
  EXPECT_EQ(ro.exit_code, 2);
  EXPECT_NE(ro.err.find("read-only"), std::string::npos) << ro.err;
  std::filesystem::permissions(ix, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);

  // Corrupt: every page after the first overwritten.
  std::filesystem::copy_file(ix, dir / "corrupt.db");
  {
    std::fstream f(dir / "corrupt.db", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096);
    const std::string junk(std::filesystem::file_size(dir / "corrupt.db") - 4096, '\x5a');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  expect_error(dir / "corrupt.db", "corrupt");
  const RunResult check = RunNeardup({"index", "check", dir / "corrupt.db"}, dir.path());
  EXPECT_EQ(check.exit_code, 2);
  const RunResult check_ok = RunNeardup({"index", "check", ix}, dir.path());
  EXPECT_EQ(check_ok.exit_code, 0) << check_ok.err;
}

TEST(IndexTest, FullDiskIsAOneLineErrorAndTheIndexStaysUsable) {
  TempDir dir;
  for (int i = 0; i < 400; ++i)
    WriteFile(dir / (std::string("c/").append(std::to_string(i))), Text(static_cast<uint64_t>(i), 80));
  const std::string ix = dir / "ix.db";
  // A file size limit stands for a full disk (SIGXFSZ ignored, so that
  // writes past it fail with EFBIG; ignored signals survive exec).
  ::signal(SIGXFSZ, SIG_IGN);
  const RunResult full =
      RunProcess({"/usr/bin/prlimit", "--fsize=65536", kBin, "scan", "-q", "--index", ix, dir / "c"}, dir.path());
  ::signal(SIGXFSZ, SIG_DFL);
  EXPECT_EQ(full.exit_code, 2) << full.err;
  EXPECT_NE(full.err.find("disk full"), std::string::npos) << full.err;
  EXPECT_EQ(std::count(full.err.begin(), full.err.end(), '\n'), 1) << full.err;
  const RunResult again = RunNeardup({"scan", "-q", "-f", "json", "--index", ix, dir / "c"}, dir.path());
  const RunResult plain = RunNeardup({"scan", "-q", "-f", "json", dir / "c"}, dir.path());
  EXPECT_EQ(WithoutIndex(again.out), plain.out);
  EXPECT_EQ(RunNeardup({"index", "check", ix}, dir.path()).exit_code, 0);
}

TEST(IndexTest, RunsKilledAtRandomMomentsLeaveAUsableIndex) {
  TempDir dir;
  for (int i = 0; i < 2500; ++i) {
    WriteFile(dir / (std::string("c/").append(std::to_string(i))), Text(static_cast<uint64_t>(i % 1800), 150));
  }
  const std::string ix = dir / "ix.db";
  std::mt19937 rng(42);
  for (int round = 0; round < 8; ++round) {
    // Change a few files between rounds, so that later runs write too.
    for (int k = 0; k < 50; ++k) {
      const int i = static_cast<int>(rng() % 2500);
      WriteFile(dir / (std::string("c/").append(std::to_string(i))),
                Edited(static_cast<uint64_t>(i), std::string("r").append(std::to_string(round))));
    }
    const std::string out = dir / ".killed-out";
    pid_t pid = 0;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    std::vector<std::string> argv = {kBin, "scan", "-q", "--index", ix, dir / "c"};
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ASSERT_EQ(posix_spawn(&pid, kBin.c_str(), &actions, nullptr, args.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    std::this_thread::sleep_for(std::chrono::milliseconds(20 + rng() % 400));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  const RunResult plain = RunNeardup({"scan", "-q", "-f", "json", dir / "c"}, dir.path());
  const RunResult indexed = RunNeardup({"scan", "-q", "-f", "json", "--index", ix, dir / "c"}, dir.path());
  EXPECT_EQ(indexed.exit_code, plain.exit_code) << indexed.err;
  EXPECT_EQ(WithoutIndex(indexed.out), plain.out);
  const RunResult check = RunNeardup({"index", "check", ix}, dir.path());
  EXPECT_EQ(check.exit_code, 0) << check.err;
  const RunResult info = RunNeardup({"index", "info", ix}, dir.path());
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("documents 2500"), std::string::npos) << info.out;
}

// A run killed between creating an index's tables and storing the parameters
// that sign into them (possible before both were one transaction) left tables
// with no parameters, and every later run refused the index. With no file
// signed, such an index is taken as new; with files, it is still refused.
TEST(IndexTest, TablesWithoutParametersAndNoFilesAreTakenAsANewIndex) {
  TempDir dir;
  WriteFile(dir / "c/a", Text(1));
  WriteFile(dir / "c/b", Edited(1, "e"));
  const std::string ix = dir / "ix.db";
  std::filesystem::create_directories(dir / "none");
  // Exit 1: an empty folder has no pairs.
  ASSERT_EQ(RunNeardup({"scan", "-q", "--index", ix, dir / "none"}, dir.path()).exit_code, 1);
  ASSERT_EQ(RunProcess({"/usr/bin/sqlite3", ix, "DELETE FROM meta"}, dir.path()).exit_code, 0);
  const RunResult plain = RunNeardup({"scan", "-q", "-f", "json", dir / "c"}, dir.path());
  const RunResult indexed = RunNeardup({"scan", "-q", "-f", "json", "--index", ix, dir / "c"}, dir.path());
  EXPECT_EQ(indexed.exit_code, 0) << indexed.err;
  EXPECT_EQ(WithoutIndex(indexed.out), plain.out);
  const RunResult info = RunNeardup({"index", "info", ix}, dir.path());
  EXPECT_NE(info.out.find("--ngram 5"), std::string::npos) << info.out;

  ASSERT_EQ(RunProcess({"/usr/bin/sqlite3", ix, "DELETE FROM meta"}, dir.path()).exit_code, 0);
  const RunResult refused = RunNeardup({"scan", "-q", "--index", ix, dir / "c"}, dir.path());
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("none in the index"), std::string::npos) << refused.err;
}

// --- Issue #23, "Every removal right" ----------------------------------------

// Runs `sql` on the SQLite file `db` with the sqlite3 shell; its exit status.
int Sql(const TempDir& dir, const std::string& db, const std::string& sql) {
  return RunProcess({"/usr/bin/sqlite3", db, sql}, dir.path()).exit_code;
}

// "R reused, S signed" from the summary line on stderr.
std::string ReusedSigned(const std::string& err) {
  const size_t at = err.find("index: ");
  if (at == std::string::npos) return "no index counts in: " + err;
  const size_t end = err.find(" signed", at);
  return err.substr(at + 7, end + 7 - (at + 7));
}

int64_t Ns(const struct timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; }

// `text` with spaces appended to `size` bytes: the same words.
std::string PaddedTo(std::string text, size_t size) {
  if (text.size() < size) text.append(size - text.size(), ' ');
  return text;
}

// Makes the index entry of `file` hold the file's current stat, as a file
// system with 1-second timestamps would have stored it had the change come
// within that second: the stat no longer tells that the file changed.
void StoreCurrentStat(const TempDir& dir, const std::string& ix, const std::string& file) {
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  const std::string name = std::filesystem::path(file).filename().string();
  ASSERT_EQ(Sql(dir, ix,
                "UPDATE files SET mtime_ns = " + std::to_string(Ns(st.st_mtim)) +
                    ", ctime_ns = " + std::to_string(Ns(st.st_ctim)) + " WHERE path LIKE '%/" + name + "'"),
            0);
}

TEST(IndexTest, EveryOptionThatDecidesTheDocumentsMayChangeBetweenRuns) {
  TempDir dir;
  // big.txt.gz: 300 words and 20,000 spaces, a few KB compressed but over
  // --max-filesize 8000 decompressed; copy.txt, its near copy, under it.
  WriteFile(dir / "c/big.txt", Text(1) + std::string(20000, ' '));
  ASSERT_EQ(RunProcess({"/usr/bin/gzip", dir / "c/big.txt"}, dir.path()).exit_code, 0);
  ASSERT_LT(std::filesystem::file_size(dir / "c/big.txt.gz"), 8000u);
  WriteFile(dir / "c/copy.txt", Edited(1, "x"));
  WriteFile(dir / "c/short1.txt", Text(9, 20));
  WriteFile(dir / "c/short2.txt", Text(9, 20) + " extra");
  WriteFile(dir / "c/.hidden.txt", Edited(1, "h"));
  const std::string c = dir / "c";
  const std::vector<std::vector<std::string>> steps = {
      {c},
      {"--max-filesize", "8000", c},  // big.txt.gz is skipped now: no pair with copy.txt
      {c},
      {"--min-words", "3", c},
      {"--min-words", "50", c},
      {"--hidden", c},
      {"--glob", "*.gz", c},
      {"--max-filesize", "8000", "--hidden", c},
      {c},
  };
  for (const auto& args : steps) ExpectSameAsPlain(dir, args, Join(args));
  EXPECT_EQ(RunNeardup({"index", "check", dir / "ix.db"}, dir.path()).exit_code, 0);
}

TEST(IndexTest, EveryJsonlReadingOptionMayChangeBetweenRuns) {
  TempDir dir;
  std::string a;
  for (int i = 0; i < 6; ++i) {
    nlohmann::json j;
    j["id"] = std::string("id").append(std::to_string(i));
    j["name"] = std::string("n").append(std::to_string(i % 3));
    j["text"] = i < 3 ? Text(30) : Edited(30, "t");
    j["body"] = i % 2 == 0 ? Text(31) : Edited(31, "b");
    a += j.dump() + "\n";
  }
  WriteFile(dir / "j/a.jsonl", a);
  WriteFile(dir / "j/long.jsonl", JsonlLine("long", Text(32, 2000)));
  WriteFile(dir / "j/big.jsonl", JsonlLine("big", Edited(30, "z")) + std::string(20000, '\n'));
  ASSERT_EQ(RunProcess({"/usr/bin/gzip", dir / "j/big.jsonl"}, dir.path()).exit_code, 0);
  const std::string j = dir / "j";
  const std::vector<std::vector<std::string>> steps = {
      {"--input", "jsonl", j},
      {"--input", "jsonl", "--max-filesize", "8000", j},  // big.jsonl.gz is skipped now
      {"--input", "jsonl", "--text-key", "body", j},
      {"--input", "jsonl", "--id-key", "name", j},
      {"--input", "jsonl", "--max-line", "5000", j},
      {"--input", "jsonl", "--min-words", "100", j},
      {"--input", "text", j},
      {"--input", "jsonl", j},
  };
  for (const auto& args : steps) ExpectSameAsPlain(dir, args, Join(args));
  EXPECT_EQ(RunNeardup({"index", "check", dir / "ix.db"}, dir.path()).exit_code, 0);
}

TEST(IndexTest, RacyRewriteThatLeavesTheStatAsStoredIsNoticed) {
  TempDir dir;
  const std::string near = Edited(1, "x");
  const size_t size = std::max(near.size(), Text(2).size());
  WriteFile(dir / "c/a", Text(1));
  WriteFile(dir / "c/b", PaddedTo(Text(2), size));
  const std::string ix = dir / "ix.db";
  ASSERT_EQ(RunNeardup({"scan", "-q", "--index", ix, dir / "c"}, dir.path()).exit_code, 1);
  // Rewritten in place within the second the index saw it: same inode,
  // same size, mtime put back, and (1-second timestamps) the same ctime.
  struct stat before {
  }, after{};
  ASSERT_EQ(::stat((dir / "c/b").c_str(), &before), 0);
  WriteFile(dir / "c/b", PaddedTo(near, size));
  SetTimes(dir / "c/b", before);
  ASSERT_EQ(::stat((dir / "c/b").c_str(), &after), 0);
  ASSERT_EQ(after.st_ino, before.st_ino);
  ASSERT_EQ(after.st_size, before.st_size);
  StoreCurrentStat(dir, ix, dir / "c/b");

  const RunResult plain = RunNeardup({"scan", "-q", "-f", "json", dir / "c"}, dir.path());
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const RunResult indexed = RunNeardup({"scan", "-q", "-f", "json", "--index", ix, dir / "c"}, dir.path());
  EXPECT_EQ(indexed.exit_code, 0) << indexed.err;
  EXPECT_EQ(WithoutIndex(indexed.out), plain.out);
  // Read again, b is new; a, read again as well (as racy), is not.
  EXPECT_EQ(CountsOf(indexed.out).signed_now, 1u);
  EXPECT_EQ(CountsOf(indexed.out).reused, 1u);
}

// The same on a real file system with 1-second timestamps: ext4 with
// 128-byte inodes, loop-mounted (root only; skipped where mounting fails).
TEST(IndexTest, RacyRewriteOnAFileSystemWithOneSecondTimestamps) {
  if (!testing::IsRoot()) GTEST_SKIP() << "mounting a file system needs root";
  TempDir dir;
  const std::string img = dir / "fs.img";
  const std::string mnt = dir / "mnt";
  std::filesystem::create_directories(mnt);
  ASSERT_EQ(RunProcess({"/usr/bin/truncate", "-s", "16M", img}, dir.path()).exit_code, 0);
  if (RunProcess({"/usr/sbin/mkfs.ext4", "-q", "-F", "-I", "128", img}, dir.path()).exit_code != 0) {
    GTEST_SKIP() << "mkfs.ext4 failed";
  }
  if (RunProcess({"/usr/bin/mount", "-o", "loop", img, mnt}, dir.path()).exit_code != 0) {
    GTEST_SKIP() << "cannot mount a loop device here";
  }
  struct Unmount {
    std::string mnt, dir;
    ~Unmount() { RunProcess({"/usr/bin/umount", mnt}, dir); }
  } unmount{mnt, dir.path()};
  const std::string near = Edited(1, "x");
  const size_t size = std::max(near.size(), Text(2).size());
  const std::string ix = dir / "ix.db";
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::filesystem::remove(ix);
    WriteFile(mnt + "/c/a", Text(1));
    // Just past the start of a second: the write, the indexed run and the
    // rewrite fit in it.
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    std::this_thread::sleep_for(std::chrono::seconds(1) - now % std::chrono::seconds(1) +
                                std::chrono::milliseconds(20));
    WriteFile(mnt + "/c/b", PaddedTo(Text(2), size));
    struct stat before {
    }, after{};
    ASSERT_EQ(::stat((mnt + "/c/b").c_str(), &before), 0);
    ASSERT_EQ(before.st_mtim.tv_nsec, 0) << "not a file system with 1-second timestamps";
    ASSERT_EQ(RunNeardup({"scan", "-q", "--index", ix, mnt + "/c"}, dir.path()).exit_code, 1);
    WriteFile(mnt + "/c/b", PaddedTo(near, size));
    SetTimes(mnt + "/c/b", before);
    ASSERT_EQ(::stat((mnt + "/c/b").c_str(), &after), 0);
    if (Ns(after.st_ctim) != Ns(before.st_ctim)) continue;  // the second ended: again
    ASSERT_EQ(after.st_ino, before.st_ino);
    const RunResult plain = RunNeardup({"scan", "-q", "-f", "json", mnt + "/c"}, dir.path());
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    const RunResult indexed = RunNeardup({"scan", "-q", "-f", "json", "--index", ix, mnt + "/c"}, dir.path());
    EXPECT_EQ(indexed.exit_code, 0) << indexed.err;
    EXPECT_EQ(WithoutIndex(indexed.out), plain.out);
    return;
  }
  GTEST_SKIP() << "the run never fit within one second";
}

TEST(IndexTest, ExactSignsAFileItFoundChangedAgainOnTheNextRun) {
  TempDir dir;
  const std::string near = Edited(1, "x");
  const size_t size = std::max(near.size(), Text(2).size());
  WriteFile(dir / "c/a", Text(1));
  WriteFile(dir / "c/b", PaddedTo(near, size));
  const std::string ix = dir / "ix.db";
  ASSERT_EQ(RunNeardup({"scan", "-q", "--index", ix, dir / "c"}, dir.path()).exit_code, 0);
  // b changes while its entry still looks right and old enough to trust:
  // a stale signature (a pair with a that is not there any more).
  struct stat before {};
  ASSERT_EQ(::stat((dir / "c/b").c_str(), &before), 0);
  WriteFile(dir / "c/b", PaddedTo(Text(2), size));
  SetTimes(dir / "c/b", before);
  StoreCurrentStat(dir, ix, dir / "c/b");
  const int64_t hour_on = (static_cast<int64_t>(std::time(nullptr)) + 3600) * 1000000000;
  Sql(dir, ix, "UPDATE files SET seen_ns = " + std::to_string(hour_on));  // (a version 1 index has none)

  const RunResult plain = RunNeardup({"scan", "-q", "-f", "json", "--exact", dir / "c"}, dir.path());
  ASSERT_EQ(plain.exit_code, 1) << plain.err;
  const RunResult stale =
      RunNeardup({"scan", "-f", "json", "--exact", "--index", ix, dir / "c"}, dir.path(), RunOptions().In(dir.path()));
  EXPECT_EQ(stale.exit_code, 2);
  EXPECT_NE(stale.err.find("changed during the run"), std::string::npos) << stale.err;
  // The next runs sign b again: the plain run's answer, exit 1.
  for (int run = 0; run < 2; ++run) {
    const RunResult healed = RunNeardup({"scan", "-q", "-f", "json", "--exact", "--index", ix, dir / "c"}, dir.path());
    EXPECT_EQ(healed.exit_code, 1) << healed.err;
    EXPECT_EQ(WithoutIndex(healed.out), plain.out);
  }
  EXPECT_EQ(RunNeardup({"index", "check", ix}, dir.path()).exit_code, 0);
}

TEST(IndexTest, EverySpellingOfAPathSharesTheIndexEntries) {
  TempDir dir;
  for (int i = 0; i < 6; ++i)
    WriteFile(dir / (std::string("grow/doc").append(std::to_string(i))), Text(700 + static_cast<uint64_t>(i % 3)));
  WriteFile(dir / "grow/near", Edited(700, "n"));
  std::string lines;
  for (int i = 0; i < 4; ++i)
    lines += JsonlLine(i % 2 == 0 ? "" : std::string("id").append(std::to_string(i)), Text(710));
  lines += "{not json\n";
  WriteFile(dir / "j/a.jsonl", lines);
  const std::string ix = dir / "ix.db", jx = dir / "jx.db";
  const std::string cwd = dir.path();
  // A --new run, whose job every spelling below shares (#42).
  RunResult first =
      RunNeardup({"scan", "-f", "json", "--index", ix, "--new", "grow"}, dir.path(), RunOptions().In(cwd));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(ReusedSigned(first.err), "0 reused, 7 signed");
  first = RunNeardup({"scan", "-f", "json", "--input", "jsonl", "--index", jx, "j"}, dir.path(), RunOptions().In(cwd));
  ASSERT_EQ(first.exit_code, 2) << first.err;  // the malformed line
  for (const std::string& spelling :
       std::vector<std::string>{"./grow", "grow/", "grow/../grow", cwd + "/grow", cwd + "//grow/."}) {
    const RunResult plain = RunNeardup({"scan", "-f", "json", spelling}, dir.path(), RunOptions().In(cwd));
    const RunResult indexed =
        RunNeardup({"scan", "-f", "json", "--index", ix, spelling}, dir.path(), RunOptions().In(cwd));
    EXPECT_EQ(ReusedSigned(indexed.err), "7 reused, 0 signed") << spelling;
    EXPECT_EQ(indexed.exit_code, plain.exit_code) << spelling;
    EXPECT_EQ(WithoutIndex(indexed.out), plain.out) << spelling;  // names as spelled
    const RunResult news = RunNeardup({"scan", "--index", ix, "--new", spelling}, dir.path(), RunOptions().In(cwd));
    EXPECT_EQ(news.exit_code, 1) << spelling << ": " << news.err;
    EXPECT_EQ(news.out, "") << spelling;
  }
  // JSONL: names made from the path (FILE:LINE) and problem messages follow
  // the spelling too.
  for (const std::string& spelling : std::vector<std::string>{"./j", cwd + "/j"}) {
    const RunResult plain =
        RunNeardup({"scan", "-f", "json", "--input", "jsonl", spelling}, dir.path(), RunOptions().In(cwd));
    const RunResult indexed = RunNeardup({"scan", "-f", "json", "--input", "jsonl", "--index", jx, spelling},
                                         dir.path(), RunOptions().In(cwd));
    EXPECT_EQ(ReusedSigned(indexed.err), "4 reused, 0 signed") << spelling;
    EXPECT_EQ(indexed.exit_code, plain.exit_code) << spelling;
    EXPECT_EQ(WithoutIndex(indexed.out), plain.out) << spelling;
    EXPECT_NE(plain.out.find(spelling + "/a.jsonl:1"), std::string::npos) << plain.out;
  }
}

TEST(IndexTest, AVersion1IndexIsMigratedInPlace) {
  TempDir dir;
  for (int i = 0; i < 4; ++i)
    WriteFile(dir / (std::string("c/doc").append(std::to_string(i))), Text(800 + static_cast<uint64_t>(i % 2)));
  const std::string ix = dir / "ix.db";
  ASSERT_EQ(RunNeardup({"scan", "-q", "--index", ix, dir / "c"}, dir.path()).exit_code, 0);
  // Back to version 1: no seen_ns, and one entry keyed by a relative path
  // (as version 1 stored a path spelled relative to its run's directory).
  ASSERT_EQ(Sql(dir, ix,
                "ALTER TABLE files DROP COLUMN seen_ns; UPDATE files SET path = 'c/doc0' WHERE path LIKE '%/c/doc0';"
                "ALTER TABLE files DROP COLUMN pending; ALTER TABLE runs DROP COLUMN delivered; DROP TABLE run_files;"
                "DROP TABLE bitmaps; PRAGMA user_version = 1;"),
            0);
  RunResult info = RunNeardup({"index", "info", ix}, dir.path());
  EXPECT_NE(info.out.find("(schema 1)"), std::string::npos) << info.out << info.err;
  EXPECT_EQ(RunNeardup({"index", "check", ix}, dir.path()).exit_code, 0);

  const RunResult plain = RunNeardup({"scan", "-q", "-f", "json", dir / "c"}, dir.path());
  const RunResult indexed = RunNeardup({"scan", "-q", "-f", "json", "--index", ix, dir / "c"}, dir.path());
  EXPECT_EQ(indexed.exit_code, plain.exit_code) << indexed.err;
  EXPECT_EQ(WithoutIndex(indexed.out), plain.out);
  // The relative entry was dropped (its file signed again); the others were
  // read again once (stored at an unknown time) and found unchanged.
  EXPECT_EQ(CountsOf(indexed.out).signed_now, 1u);
  EXPECT_EQ(CountsOf(indexed.out).reused, 3u);
  info = RunNeardup({"index", "info", ix}, dir.path());
  EXPECT_NE(info.out.find("(schema " + std::to_string(kIndexSchemaVersion) + ")"), std::string::npos) << info.out;
  const RunResult check = RunNeardup({"index", "check", ix}, dir.path());
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_EQ(Sql(dir, ix, "SELECT count(*) FROM files WHERE path NOT LIKE '/%'"), 0);
}

// --- Issue #23, "--new at least once" ------------------------------------------

// Starts `argv` with stdout to `out` (a path) or, when `out` is empty, to a
// pipe whose reading end is closed at once; stderr to /dev/null.
pid_t Spawn(std::vector<std::string> argv, const std::string& out) {
  int fds[2] = {-1, -1};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (out.empty()) {
    if (::pipe(fds) != 0) return -1;
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  if (out.empty()) {
    ::close(fds[0]);  // the reader is gone before the run writes anything
    ::close(fds[1]);
  }
  return pid;
}

// The pairs of a json report, each "a\nb" with a < b.
std::set<std::string> PairsOf(const std::string& json) {
  std::set<std::string> out;
  const nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (!j.is_object() || !j.contains("pairs")) return out;
  for (const auto& p : j["pairs"]) {
    std::string a = p["a"], b = p["b"];
    out.insert(a < b ? a + "\n" + b : b + "\n" + a);
  }
  return out;
}

TEST(IndexTest, NewReportsAgainWhatAFailedRunDidNotDeliver) {
  TempDir dir;
  for (int i = 0; i < 8; ++i)
    WriteFile(dir / (std::string("c/old").append(std::to_string(i))), Text(500 + static_cast<uint64_t>(i % 4)));
  const std::string ix = dir / "ix.db";
  ASSERT_EQ(RunNeardup({"scan", "-q", "--index", ix, "--new", dir / "c"}, dir.path()).exit_code, 0);

  // A reader that is gone (`| head -c 0`): an error with --new, not a quiet end.
  WriteFile(dir / "c/new0", Edited(501, "n"));
  pid_t pid = Spawn({kBin, "scan", "-q", "-f", "json", "--index", ix, "--new", dir / "c"}, "");
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  RunResult info = RunNeardup({"index", "info", ix}, dir.path());
  EXPECT_NE(info.out.find("exit 2, not delivered"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("exit 0, delivered"), std::string::npos) << info.out;

  // -o on a full disk: exit 2, nothing delivered.
  WriteFile(dir / "c/new1", Edited(502, "m"));
  const RunResult full =
      RunNeardup({"scan", "-q", "-f", "json", "-o", "/dev/full", "--index", ix, "--new", dir / "c"}, dir.path());
  EXPECT_EQ(full.exit_code, 2) << full.err;

  // The next run reports what both failed runs signed, and it alone.
  const std::set<std::string> fresh = {dir / "c/new0", dir / "c/new1"};
  std::set<std::string> want;
  for (const std::string& p : PairsOf(RunNeardup({"scan", "-q", "-f", "json", dir / "c"}, dir.path()).out)) {
    const std::string a = p.substr(0, p.find('\n')), b = p.substr(p.find('\n') + 1);
    if (fresh.count(a) != 0 || fresh.count(b) != 0) want.insert(p);
  }
  ASSERT_GE(want.size(), 2u);
  const RunResult next = RunNeardup({"scan", "-q", "-f", "json", "--index", ix, "--new", dir / "c"}, dir.path());
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_EQ(PairsOf(next.out), want);
  // Delivered now: the run after reports nothing.
  const RunResult after = RunNeardup({"scan", "-q", "--index", ix, "--new", dir / "c"}, dir.path());
  EXPECT_EQ(after.exit_code, 1) << after.err;
  EXPECT_EQ(after.out, "");
}

// The newest run row of the index: its id, and whether it has ended.
std::pair<int64_t, bool> NewestRun(const std::string& ix) {
  Result<IndexInfo> info = ReadIndexInfo(ix, 1);
  if (!info.ok() || info->runs.empty()) return {0, false};
  return {info->runs[0].id, !info->runs[0].ended.empty()};
}

// Whether the run after run `before` recorded in the index `ix` that it
// delivered its output.
bool DeliveredBeforeKilled(const TempDir& dir, const std::string& ix, int64_t before) {
  const RunResult r = RunProcess(
      {"/usr/bin/sqlite3", ix, "SELECT count(*) FROM runs WHERE id > " + std::to_string(before) + " AND delivered = 1"},
      dir.path());
  return r.exit_code == 0 && r.out == "1\n";
}

TEST(IndexTest, NewRunsKilledAtAnyMomentMissNoPair) {
  TempDir dir;
  constexpr int kOld = 1500;
  for (int i = 0; i < kOld; ++i)
    WriteFile(dir / (std::string("c/").append(std::to_string(i))), Text(static_cast<uint64_t>(i)));
  const std::string ix = dir / "ix.db";
  ASSERT_EQ(RunNeardup({"scan", "-q", "--index", ix, "--new", dir / "c"}, dir.path()).exit_code,
            1);  // the first complete run
  std::set<std::string> added;
  std::set<std::string> reported;
  const std::string out = dir / ".run-out";
  constexpr int kDelaysMs[] = {0, 3, 10, 25, 60, 120, 250};
  for (int k = 0; k < 20; ++k) {
    // Each round adds near duplicates of an old document.
    for (int j = 0; j < 2; ++j) {
      const std::string name =
          dir / (std::string("c/added").append(std::to_string(k)).append("-").append(std::to_string(j)));
      WriteFile(name, Edited(static_cast<uint64_t>((k * 71 + j * 13) % kOld), std::string(j == 0 ? "a0-" : "a1-")));
      added.insert(name);
    }
    const int64_t before = NewestRun(ix).first;
    const pid_t pid = Spawn({kBin, "scan", "-q", "-f", "json", "--index", ix, "--new", dir / "c"}, out);
    ASSERT_GT(pid, 0);
    int status = 0;
    if (k % 3 == 0) {
      // Killed once its signatures are committed, while it finds and writes its pairs.
      while (::waitpid(pid, &status, WNOHANG) == 0) {
        const auto [id, ended] = NewestRun(ix);
        if (id > before && ended) {
          ::kill(pid, SIGKILL);
          break;
        }
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(kDelaysMs[k % 7]));
      ::kill(pid, k % 3 == 1 ? SIGTERM : SIGKILL);
    }
    ::waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) <= 1) {
      for (const std::string& p : PairsOf(ReadFile(out))) reported.insert(p);
    } else if (DeliveredBeforeKilled(dir, ix, before)) {
      // Killed after it recorded that its whole output was written, between
      // that record and its exit (no program can close that window for
      // SIGKILL): its output is whole, and kept, as `>>` in cron keeps it.
      const std::string whole = ReadFile(out);
      ASSERT_TRUE(nlohmann::json::parse(whole, nullptr, false).is_object()) << whole;
      for (const std::string& p : PairsOf(whole)) reported.insert(p);
    }
  }
  // The cron job runs once more, undisturbed.
  const RunResult last = RunNeardup({"scan", "-q", "-f", "json", "--index", ix, "--new", dir / "c"}, dir.path());
  ASSERT_LE(last.exit_code, 1) << last.err;
  for (const std::string& p : PairsOf(last.out)) reported.insert(p);

  size_t wanted = 0;
  for (const std::string& p : PairsOf(RunNeardup({"scan", "-q", "-f", "json", dir / "c"}, dir.path()).out)) {
    const std::string a = p.substr(0, p.find('\n')), b = p.substr(p.find('\n') + 1);
    if (added.count(a) == 0 && added.count(b) == 0) continue;
    ++wanted;
    EXPECT_EQ(reported.count(p), 1u) << "never reported: " << p;
  }
  EXPECT_GE(wanted, 40u);
}

// --- Issue #24, "No crash from what is read" ---------------------------------

// A text corpus and a JSONL one (with a malformed line and a compressed file)
// indexed in dir/good_text.db and dir/good_jsonl.db.
void MakeIndexes(const TempDir& dir) {
  WriteFile(dir / "c/a.txt", Text(1));
  WriteFile(dir / "c/b.txt", Edited(1, "e"));
  WriteFile(dir / "c/c.txt", Text(2));
  WriteFile(dir / "j/a.jsonl", JsonlLine("x", Text(3)) + "{bad\n" + JsonlLine("y", Edited(3, "j")));
  ASSERT_EQ(RunNeardup({"scan", "-q", "--index", dir / "good_text.db", dir / "c"}, dir.path()).exit_code, 0);
  ASSERT_EQ(
      RunNeardup({"scan", "-q", "--index", dir / "good_jsonl.db", "--input", "jsonl", dir / "j"}, dir.path()).exit_code,
      2);  // {bad
}

// A damaged value in a copy of a good index: `scan --index` exits 2 (no
// signal) with one line naming the index file, the row and `index check`,
// in bounded memory; `index check` names the same row.
void ExpectDamageCaught(const TempDir& dir, const std::string& good, const std::string& sql, const std::string& row,
                        const std::vector<std::string>& args) {
  const std::string ix = dir / "damaged.db";
  std::filesystem::remove(ix);
  std::filesystem::copy_file(dir / good, ix);
  ASSERT_EQ(Sql(dir, ix, sql), 0) << sql;
  std::vector<std::string> argv = {"scan", "-q", "--index", ix};
  argv.insert(argv.end(), args.begin(), args.end());
  long rss_kb = 0;
  const RunResult r = RunNeardup(argv, dir.path(), RunOptions().MaxRss(&rss_kb));
  EXPECT_EQ(r.exit_code, 2) << sql << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << sql << ": " << r.err;
  EXPECT_EQ(r.err.rfind("neardup: " + ix + ": corrupt index: " + row, 0), 0u) << sql << ": " << r.err;
  EXPECT_NE(r.err.find("`neardup index check " + ix + "`"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "") << sql;
  EXPECT_LT(rss_kb, 100 * 1024) << sql << ": peak RSS " << rss_kb / 1024 << " MB";
  const RunResult check = RunNeardup({"index", "check", ix}, dir.path());
  EXPECT_EQ(check.exit_code, 2) << sql;
  EXPECT_NE(check.err.find(ix + ": " + row), std::string::npos) << sql << ": " << check.err;
}

TEST(IndexTest, DamagedFileRowsAreOneLineErrorsNamingTheRow) {
  TempDir dir;
  MakeIndexes(dir);
  const std::vector<std::string> text = {dir / "c"};
  const std::string b = "files row 2 (" + dir.path() + "/c/b.txt)";
  const std::string where_b = " WHERE path LIKE '%/b.txt'";
  // Found on main: a SIGSEGV, a SIGABRT (std::length_error), 24 GB then the
  // OOM killer, 1.7 GB then "out of memory".
  ExpectDamageCaught(dir, "good_text.db", "UPDATE files SET documents = -1" + where_b, b + ": documents is -1", text);
  ExpectDamageCaught(dir, "good_text.db", "UPDATE files SET id = 9223372036854775807" + where_b,
                     "files row 9223372036854775807 (" + dir.path() + "/c/b.txt): id is", text);
  ExpectDamageCaught(dir, "good_text.db", "UPDATE files SET documents = 1e9" + where_b, b + ": documents is 1000000000",
                     text);
  ExpectDamageCaught(dir, "good_text.db", "UPDATE files SET documents = 2e7" + where_b, b + ": documents is 20000000",
                     text);
  const std::string j = "files row 1 (" + dir.path() + "/j/a.jsonl)";
  const std::vector<std::string> jsonl = {"--input", "jsonl", dir / "j"};
  ExpectDamageCaught(dir, "good_jsonl.db", "UPDATE files SET documents = 20000000", j + ": documents is 20000000",
                     jsonl);
  ExpectDamageCaught(dir, "good_jsonl.db", "UPDATE files SET documents = 1",
                     "documents row 4294967299 (" + dir.path() + "/j/a.jsonl:3): more documents than its " + j, jsonl);
  ExpectDamageCaught(dir, "good_jsonl.db", "UPDATE files SET documents = 3", j + ": documents is 3, but it has 2",
                     jsonl);
  ExpectDamageCaught(dir, "good_jsonl.db", "UPDATE files SET lines = 1000000", j + ": lines is 1000000", jsonl);
  ExpectDamageCaught(dir, "good_jsonl.db", "UPDATE files SET documents = 'many'", j + ": documents is not an integer",
                     jsonl);
  ExpectDamageCaught(dir, "good_jsonl.db", "UPDATE files SET path = 'a.jsonl'",
                     "files row 1 (a.jsonl): path is not an absolute path", jsonl);
}

TEST(IndexTest, DamagedDocumentAndProblemRowsAreOneLineErrorsNamingTheRow) {
  TempDir dir;
  MakeIndexes(dir);
  const std::vector<std::string> text = {dir / "c"};
  const std::string b = "documents row 8589934592 (" + dir.path() + "/c/b.txt)";
  const std::string where_b = " WHERE key = 8589934592";
  // Found on main: the document vanished from the answer.
  ExpectDamageCaught(dir, "good_text.db", "UPDATE documents SET kind = 99" + where_b, b + ": kind is 99", text);
  ExpectDamageCaught(dir, "good_text.db", "UPDATE documents SET kind = -1" + where_b, b + ": kind is -1", text);
  ExpectDamageCaught(dir, "good_text.db", "UPDATE documents SET signature = x'0102'" + where_b,
                     b + ": signature is 2 bytes, not 128 values", text);
  ExpectDamageCaught(dir, "good_text.db", "UPDATE documents SET signature = 'text'" + where_b,
                     b + ": signature is not a BLOB", text);
  ExpectDamageCaught(dir, "good_text.db", "UPDATE documents SET content = x'00'" + where_b,
                     b + ": content is not a 16-byte BLOB", text);
  ExpectDamageCaught(dir, "good_text.db", "UPDATE documents SET size = -5" + where_b, b + ": size is -5", text);
  ExpectDamageCaught(dir, "good_text.db", "UPDATE documents SET key = key + 7" + where_b,
                     "documents row 8589934599 (" + dir.path() + "/c/b.txt): line is 7, not 0", text);
  const std::vector<std::string> jsonl = {"--input", "jsonl", dir / "j"};
  const std::string a = dir.path() + "/j/a.jsonl";
  ExpectDamageCaught(dir, "good_jsonl.db", "UPDATE documents SET key = 4294967296 + 900 WHERE key = 4294967299",
                     "documents row 4294968196 (" + a + ":900): line is 900, not 1 to 4", jsonl);
  ExpectDamageCaught(dir, "good_jsonl.db", "UPDATE documents SET name = x'00' WHERE key = 4294967297",
                     "documents row 4294967297 (" + a + ":1): name is neither text nor NULL", jsonl);
  ExpectDamageCaught(dir, "good_jsonl.db", "UPDATE problems SET line = -3",
                     "problems row (1, -3) of files row 1 (" + a + "): line is -3", jsonl);
}

// Runs `first`, then `second`, on one index whose entries are trusted by
// their stat in between (seen an hour on: no file is racily clean), and
// expects the second run's output to be a plain run's: the reading options
// are part of what an entry is reused for. The two runs' plain answers
// differ, so an entry reused across them would show.
void ExpectReadingOptionChecked(const TempDir& dir, std::vector<std::string> first, std::vector<std::string> second) {
  const std::string ix = dir / "options.db";
  std::filesystem::remove(ix);
  first.insert(first.begin(), {"-f", "json"});
  second.insert(second.begin(), {"-f", "json"});
  const RunResult plain_first = RunNeardup(With({"scan", "-q"}, first), dir.path());
  const RunResult plain = RunNeardup(With({"scan", "-q"}, second), dir.path());
  ASSERT_NE(plain_first.out, plain.out) << Join(second) << ": the option changes nothing here";
  std::vector<std::string> indexed = {"--index", ix};
  indexed.insert(indexed.end(), first.begin(), first.end());
  EXPECT_EQ(RunNeardup(With({"scan", "-q"}, indexed), dir.path()).exit_code, plain_first.exit_code);
  const int64_t hour_on = (static_cast<int64_t>(std::time(nullptr)) + 3600) * 1000000000;
  ASSERT_EQ(Sql(dir, ix, "UPDATE files SET seen_ns = " + std::to_string(hour_on)), 0);
  indexed = {"--index", ix};
  indexed.insert(indexed.end(), second.begin(), second.end());
  const RunResult r = RunNeardup(With({"scan", "-q"}, indexed), dir.path());
  EXPECT_EQ(r.exit_code, plain.exit_code) << Join(second) << ": " << r.err;
  EXPECT_EQ(WithoutIndex(r.out), plain.out) << Join(first) << " then " << Join(second);
}

TEST(IndexTest, AnEntryIsReusedOnlyForTheOptionsItWasReadWith) {
  TempDir dir;
  WriteFile(dir / "c/a.txt", Text(1, 40));
  WriteFile(dir / "c/b.txt", Edited(1, "x").substr(0, Text(1, 40).size()));
  const std::string c = dir / "c";
  ExpectReadingOptionChecked(dir, {"--min-words", "3", c}, {"--min-words", "50", c});
  ExpectReadingOptionChecked(dir, {"--min-words", "50", c}, {"--min-words", "3", c});
  // big.txt.gz: over --max-filesize 8000 only once decompressed.
  WriteFile(dir / "z/big.txt", Text(2) + std::string(20000, ' '));
  ASSERT_EQ(RunProcess({"/usr/bin/gzip", dir / "z/big.txt"}, dir.path()).exit_code, 0);
  WriteFile(dir / "z/copy.txt", Edited(2, "z"));
  ExpectReadingOptionChecked(dir, {dir / "z"}, {"--max-filesize", "8000", dir / "z"});

  std::string a;
  for (int i = 0; i < 4; ++i) {
    nlohmann::json line;
    line["id"] = std::string("id").append(std::to_string(i));
    line["name"] = std::string("n").append(std::to_string(i % 2));
    line["text"] = i < 2 ? Text(30) : Edited(30, "t");
    line["body"] = i % 2 == 0 ? Text(31) : Edited(31, "b");
    a += line.dump() + "\n";
  }
  a += JsonlLine("long", Text(32, 2000)) + JsonlLine("long2", Edited(32, "l"));
  WriteFile(dir / "j/a.jsonl", a);
  const std::string j = dir / "j";
  ExpectReadingOptionChecked(dir, {"--input", "jsonl", j}, {"--input", "jsonl", "--text-key", "body", j});
  ExpectReadingOptionChecked(dir, {"--input", "jsonl", j}, {"--input", "jsonl", "--id-key", "name", j});
  ExpectReadingOptionChecked(dir, {"--input", "jsonl", j}, {"--input", "jsonl", "--max-line", "5000", j});
  ExpectReadingOptionChecked(dir, {"--input", "jsonl", j}, {"--input", "jsonl", "--min-words", "1000", j});
  ExpectReadingOptionChecked(dir, {"--input", "jsonl", j}, {"--input", "text", j});
  ExpectReadingOptionChecked(dir, {"--input", "text", j}, {"--input", "jsonl", j});
}

// Unmounts `path` when it goes.
struct Unmount {
  std::string path;
  ~Unmount() { RunProcess({"/usr/bin/umount", path}, "/tmp"); }
};

TEST(IndexTest, InfoAndCheckReadAnIndexOnAReadOnlyMount) {
  if (!testing::IsRoot()) GTEST_SKIP() << "needs root to mount (root ignores permission bits: chmod proves nothing)";
  TempDir dir;
  MakeIndexes(dir);
  std::filesystem::create_directories(dir / "ro");
  std::filesystem::create_directories(dir / "mnt");
  std::filesystem::copy_file(dir / "good_text.db", dir / "ro/ix.db");
  if (RunProcess({"/usr/bin/mount", "--bind", dir / "ro", dir / "mnt"}, dir.path()).exit_code != 0) {
    GTEST_SKIP() << "mount --bind is not permitted here";
  }
  const Unmount unmount{dir / "mnt"};
  ASSERT_EQ(RunProcess({"/usr/bin/mount", "-o", "remount,ro,bind", dir / "mnt"}, dir.path()).exit_code, 0);
  const std::string ix = dir / "mnt/ix.db";
  ASSERT_NE(::access((dir / "mnt").c_str(), W_OK), 0);  // read-only, even for root
  const RunResult info = RunNeardup({"index", "info", ix}, dir.path());
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("files 3, documents 3"), std::string::npos) << info.out;
  const RunResult check = RunNeardup({"index", "check", ix}, dir.path());
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_EQ(check.out, ix + ": ok\n");
  // A scan writes: one line, read-only.
  const RunResult scan = RunNeardup({"scan", "-q", "--index", ix, dir / "c"}, dir.path());
  EXPECT_EQ(scan.exit_code, 2);
  EXPECT_NE(scan.err.find("read-only"), std::string::npos) << scan.err;
}

// --- Issue #42, "An index is one file" ------------------------------------------

// SQLite names an index's journal after the name it was opened by: two runs
// through two hard-linked names write two journals into one file. A second
// name is refused before anything is written, under either name, by runs
// killed at any moment too; the file is left as it was.
TEST(IndexTest, AnIndexWithASecondHardLinkedNameIsRefusedAndLeftUntouched) {
  TempDir dir;
  for (int i = 0; i < 200; ++i)
    WriteFile(dir / (std::string("c/").append(std::to_string(i))), Text(static_cast<uint64_t>(i)));
  const std::string ix = dir / "ix.db";
  ASSERT_EQ(RunNeardup({"scan", "-q", "--index", ix, dir / "c"}, dir.path()).exit_code, 1);
  WriteFile(dir / "c/new", Edited(7, "n"));
  const std::string before = ReadFile(ix);
  const std::string other = dir / "other.db";
  ASSERT_EQ(::link(ix.c_str(), other.c_str()), 0);

  for (const std::string& name : {ix, other}) {
    const RunResult r = RunNeardup({"scan", "--index", name, "--new", "-o", dir / "out.jsonl", dir / "c"}, dir.path());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err, "neardup: " + name +
                         ": the index has 2 names (hard links); SQLite keeps its journal by name, "
                         "so writing it under two names can corrupt it: remove the other names, or give a copy (cp) "
                         "as --index FILE\n");
    EXPECT_EQ(r.out, "");
  }
  // Runs through both names at once, killed at moments from at once to after their end.
  constexpr int kDelaysMs[] = {0, 1, 3, 10, 30, 100};
  for (int k = 0; k < 12; ++k) {
    const pid_t a = Spawn({kBin, "scan", "-q", "--index", ix, dir / "c"}, dir / ".a");
    const pid_t b = Spawn({kBin, "scan", "-q", "--index", other, "--new", dir / "c"}, dir / ".b");
    ASSERT_GT(a, 0);
    ASSERT_GT(b, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(kDelaysMs[k % 6]));
    ::kill(k % 2 == 0 ? a : b, SIGKILL);
    int status = 0;
    for (const pid_t pid : {a, b}) {
      ::waitpid(pid, &status, 0);
      EXPECT_TRUE(!WIFEXITED(status) || WEXITSTATUS(status) == 2) << "a run was not refused";
    }
  }
  EXPECT_TRUE(ReadFile(ix) == before) << "the index changed";
  for (const char* tail : {"-wal", "-shm", "-journal"}) {
    EXPECT_FALSE(std::filesystem::exists(ix + tail)) << tail;
    EXPECT_FALSE(std::filesystem::exists(other + tail)) << tail;
  }
  // Reading it is harmless: info and check still work.
  EXPECT_EQ(RunNeardup({"index", "check", other}, dir.path()).out, other + ": ok\n");

  // One name again: the index works, and the new file is signed.
  ASSERT_EQ(::unlink(other.c_str()), 0);
  const RunResult r = RunNeardup({"scan", "-q", "--index", ix, "--new", dir / "c"}, dir.path());
  EXPECT_LE(r.exit_code, 1) << r.err;
  EXPECT_EQ(RunNeardup({"index", "check", ix}, dir.path()).out, ix + ": ok\n");
}

// --- Issue #41, bitmaps kept in the index --------------------------------------

// N from "neardup: N documents read again to verify" (-v); -1 when absent.
long ReadAgain(const std::string& err) {
  const size_t at = err.find(" read again to verify");
  if (at == std::string::npos) return -1;
  const size_t from = err.rfind("neardup: ", at);
  if (from == std::string::npos) return -1;
  return std::stol(err.substr(from + 9));
}

// A re-run with --index at -t 0.5 reuses every document and gets their
// bitmaps back from the index: --exact rules out the candidate pairs a plain
// scan rules out, so it reads the same documents again, and reports the
// same pairs. (An index without the bitmaps reads more again: 198 documents
// here instead of 117.)
TEST(IndexTest, AReRunAtALowThresholdReadsAgainWhatAPlainScanReads) {
  TempDir dir;
  const RunResult g = RunProcess(
      {::neardup::testing::GenMailBinary(), "--mails", "300", "--seed", "7", "--out", dir / "m"}, dir.path());
  ASSERT_EQ(g.exit_code, 0) << g.err;
  // A minute ahead: no run gives a kept output again, yet an hour on (below)
  // every file is older than the run that stored it.
  testing::MtimesAhead(dir / "m", 60);
  const std::string ix = dir / "ix.db";
  const std::vector<std::string> args = {"scan", "-v", "-t", "0.5", "-f", "tsv", dir / "m"};
  const RunResult plain = RunNeardup(args, dir.path());
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const long plain_reads = ReadAgain(plain.err);
  ASSERT_GT(plain_reads, 0) << plain.err;
  std::vector<std::string> indexed = args;
  indexed.insert(indexed.begin() + 1, {"--index", ix});
  const RunResult first = RunNeardup(indexed, dir.path());
  EXPECT_EQ(first.out, plain.out);
  EXPECT_EQ(ReadAgain(first.err), plain_reads) << first.err;
  // Seen an hour on: no file is racily clean, each is reused by its stat.
  const int64_t hour_on = (static_cast<int64_t>(std::time(nullptr)) + 3600) * 1000000000;
  ASSERT_EQ(Sql(dir, ix, "UPDATE files SET seen_ns = " + std::to_string(hour_on)), 0);
  const RunResult again = RunNeardup(indexed, dir.path());
  EXPECT_EQ(again.exit_code, plain.exit_code) << again.err;
  EXPECT_NE(again.err.find("index: 300 reused, 0 signed"), std::string::npos) << again.err;
  EXPECT_EQ(again.out, plain.out);
  EXPECT_EQ(ReadAgain(again.err), plain_reads) << again.err;
  // Only the bitmaps of documents in candidate pairs are read.
  const size_t at = again.err.find(" bitmaps of reused documents read from the index");
  ASSERT_NE(at, std::string::npos) << again.err;
  const long bitmaps = std::stol(again.err.substr(again.err.rfind("neardup: ", at) + 9));
  EXPECT_GT(bitmaps, 0);
  EXPECT_LT(bitmaps, 300);
  // A run that wants no bitmaps reads none.
  indexed[5] = "0.8";  // after "scan", "--index", ix, "-v", "-t"
  const RunResult high = RunNeardup(indexed, dir.path());
  EXPECT_NE(high.err.find("index: 300 reused, 0 signed"), std::string::npos) << high.err;
  EXPECT_EQ(high.err.find("read from the index"), std::string::npos) << high.err;
}

}  // namespace
}  // namespace neardup
