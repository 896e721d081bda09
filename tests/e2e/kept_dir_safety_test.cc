// End to end: what --kept-dir and stage filter write stays inside DIR and
// never widens a permission, whatever the work folder or DIR hold: a kept
// path rewritten in a shard's meta (its checksum recomputed) is refused
// naming the shard; a symbolic link planted in DIR redirects nothing; a
// setuid file is copied without its bits, owned by the writer; the folders
// made in DIR take their input folders' modes, DIR itself 0700.
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "distributed/stage_sign.h"
#include "e2e/kept_modes.h"
#include "e2e/run_neardup.h"
#include "neardup/quote.h"
#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::ExpectNoWiderModes;
using testing::FileTree;
using testing::Join;
using testing::RandomWords;
using testing::RunNeardup;
using testing::RunResult;
using testing::TempDir;
using testing::With;
using testing::WriteFile;

const std::string kBin = ::neardup::testing::NeardupBinary();
namespace fs = std::filesystem;
using Args = std::vector<std::string>;

// The process's umask (the binary inherits it), read without changing it for long.
mode_t Umask() {
  const mode_t mask = ::umask(022);
  ::umask(mask);
  return mask;
}

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

std::string Doc(const std::string& id, uint64_t seed) {
  return R"({"id": ")" + id + R"(", "text": ")" + Join(RandomWords(200, seed)) + "\"}\n";
}

// JSONL files in two folders of in/, with a copy to leave out.
void MakeJsonl(const TempDir& dir) {
  WriteFile(dir / "in/a.jsonl", Doc("a1", 1) + Doc("a2", 2));
  WriteFile(dir / "in/sub/b.jsonl", Doc("b1", 1) + Doc("b2", 3));
  WriteFile(dir / "in/sub/c.jsonl", Doc("c1", 4));
}

// Sign (N tasks), bucket, verify, report over dir/in into `work`.
void SignToReport(const TempDir& dir, const std::string& work, int n, const Args& options) {
  for (int i = 0; i < n; ++i) {
    Args a = {"--task", std::to_string(i), "--tasks", std::to_string(n)};
    a.insert(a.end(), options.begin(), options.end());
    a.insert(a.end(), {work, dir / "in"});
    ASSERT_EQ(RunNeardup(With({"stage", "sign"}, a), dir.path()).exit_code, 0);
  }
  for (const char* kind : {"bucket", "verify"}) {
    Args a = {"--task", "0", "--tasks", "1"};
    a.insert(a.end(), options.begin(), options.end());
    a.push_back(work);
    ASSERT_EQ(RunNeardup(With({"stage", kind}, a), dir.path()).exit_code, 0);
  }
  Args a = options;
  a.push_back(work);
  ASSERT_LE(RunNeardup(With({"stage", "report"}, a), dir.path()).exit_code, 1);
}

RunResult Filter(const TempDir& dir, const std::string& work, int task, int n, const Args& options,
                 const std::string& kept) {
  Args a = {"--task", std::to_string(task), "--tasks", std::to_string(n), "--kept-dir", kept};
  a.insert(a.end(), options.begin(), options.end());
  a.push_back(work);
  return RunNeardup(With({"stage", "filter"}, a), dir.path());
}

// Rewrites shard `shard`'s first kept path to `kept`, re-encoded with its
// checksum recomputed, as anyone who can write the work folder can.
void RewriteKeptPath(const std::string& work, int shard, const std::string& kept) {
  const std::string path = work + "/sign/" + std::to_string(shard) + ".meta";
  Result<ShardMeta> meta = DecodeShardMeta(testing::ReadFile(path));
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  ASSERT_FALSE(meta->kept_paths.empty());
  meta->kept_paths[0] = kept;
  WriteFile(path, EncodeShardMeta(*meta));
}

TEST(KeptDirSafetyTest, FilterRefusesAKeptPathRewrittenOutOfDirNamingTheShard) {
  TempDir dir;
  MakeJsonl(dir);
  const Args options = {"--input", "jsonl"};
  const std::string work = dir / "work";
  SignToReport(dir, work, 2, options);
  const std::string victim = dir / "victim.txt";
  const std::vector<std::string> rewritten = {"../victim.txt", victim, "sub/../../victim.txt", "./a.jsonl",
                                              "other.jsonl"};
  for (const std::string& kept : rewritten) {
    SCOPED_TRACE(kept);
    WriteFile(victim, "the victim's own bytes\n");
    const std::string saved = testing::ReadFile(work + "/sign/0.meta");
    RewriteKeptPath(work, 0, kept);
    const RunResult r = Filter(dir, work, 0, 2, options, dir / "kept");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(ShellQuoted(work + "/sign/0.meta") + ": kept path " + ShellQuoted(kept) + " is not"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(testing::ReadFile(victim), "the victim's own bytes\n");
    EXPECT_TRUE(FileTree(dir / "kept").empty());
    WriteFile(work + "/sign/0.meta", saved);
  }
  // The shard as signed is written, inside DIR.
  for (int i = 0; i < 2; ++i) EXPECT_EQ(Filter(dir, work, i, 2, options, dir / "kept").exit_code, 0);
  EXPECT_EQ(FileTree(dir / "kept").size(), 3u);
  EXPECT_EQ(testing::ReadFile(victim), "the victim's own bytes\n");
  ExpectNoWiderModes(dir / "kept", {dir / "in"}, false);
}

TEST(KeptDirSafetyTest, SetuidFilesAreCopiedWithoutTheirBitsOwnedByTheWriter) {
  if (!testing::IsRoot()) GTEST_SKIP() << "a file of another user and a root writer: run as root";
  uid_t nobody = 0;
  gid_t nogroup = 0;
  testing::NobodyIds(&nobody, &nogroup);
  TempDir dir;
  WriteFile(dir / "in/notes.txt", Join(RandomWords(200, 1)));
  WriteFile(dir / "in/tool", Join(RandomWords(200, 2)));        // a user's setuid program
  WriteFile(dir / "in/group-tool", Join(RandomWords(200, 3)));  // root's, setgid
  WriteFile(dir / "in/theirs.txt", Join(RandomWords(200, 4)));  // a user's, plain
  ASSERT_EQ(::chown((dir / "in/tool").c_str(), nobody, nogroup), 0);
  ASSERT_EQ(::chmod((dir / "in/tool").c_str(), 04755), 0);
  ASSERT_EQ(::chmod((dir / "in/group-tool").c_str(), 02755), 0);
  ASSERT_EQ(::chown((dir / "in/theirs.txt").c_str(), nobody, nogroup), 0);
  // With --input jsonl, a file that is not JSONL is kept whole ("malformed
  // lines").
  WriteFile(dir / "jin/tool.jsonl", "not json at all\n");
  ASSERT_EQ(::chown((dir / "jin/tool.jsonl").c_str(), nobody, nogroup), 0);
  ASSERT_EQ(::chmod((dir / "jin/tool.jsonl").c_str(), 06755), 0);
  const RunResult r = RunNeardup({"scan", "--kept-dir", dir / "kept", dir / "in"}, dir.path());
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const RunResult j = RunNeardup({"scan", "--input", "jsonl", "--kept-dir", dir / "jkept", dir / "jin"}, dir.path());
  ASSERT_LE(j.exit_code, 2) << j.err;  // the malformed line: 2
  // The same by a stage filter task.
  SignToReport(dir, dir / "work", 1, {});
  const RunResult f = Filter(dir, dir / "work", 0, 1, {}, dir / "fkept");
  ASSERT_EQ(f.exit_code, 0) << f.err;
  for (const std::string rel : {"kept/tool", "kept/group-tool", "kept/theirs.txt", "jkept/tool.jsonl", "fkept/tool",
                                "fkept/group-tool", "fkept/theirs.txt"}) {
    SCOPED_TRACE(rel);
    const std::string below = rel.substr(rel.find('/'));
    const std::string from = dir / ((rel.starts_with("jkept") ? "jin" : "in") + below);
    struct stat in {};
    struct stat out {};
    ASSERT_EQ(::stat(from.c_str(), &in), 0);
    ASSERT_EQ(::lstat((dir / rel).c_str(), &out), 0);
    EXPECT_NE(out.st_ino, in.st_ino);  // a copy, not a link
    EXPECT_EQ(out.st_mode & 07777, in.st_mode & 0777);
    EXPECT_EQ(out.st_uid, 0u);
    EXPECT_EQ(testing::ReadFile(dir / rel), testing::ReadFile(from));
  }
  // root's own plain file is still linked.
  struct stat in {};
  struct stat out {};
  ASSERT_EQ(::stat((dir / "in/notes.txt").c_str(), &in), 0);
  for (const std::string kept : {"kept", "fkept"}) {
    ASSERT_EQ(::stat((dir / (kept + "/notes.txt")).c_str(), &out), 0);
    EXPECT_EQ(out.st_ino, in.st_ino) << kept;
    ExpectNoWiderModes(dir / kept, {dir / "in"}, true);
  }
  ExpectNoWiderModes(dir / "jkept", {dir / "jin"}, true);
}

TEST(KeptDirSafetyTest, FileReachedThroughALinkFromOutsideThePathsIsCopied) {
  TempDir dir;
  WriteFile(dir / "elsewhere/secret.txt", Join(RandomWords(200, 5)));
  fs::create_directories(dir / "in");
  fs::create_symlink(dir / "elsewhere/secret.txt", dir / "in/link.txt");
  WriteFile(dir / "in/own.txt", Join(RandomWords(200, 6)));
  const RunResult r = RunNeardup({"scan", "-L", "--kept-dir", dir / "kept", dir / "in"}, dir.path());
  ASSERT_EQ(r.exit_code, 1) << r.err;
  struct stat in {};
  struct stat out {};
  ASSERT_EQ(::stat((dir / "elsewhere/secret.txt").c_str(), &in), 0);
  ASSERT_EQ(::lstat((dir / "kept/link.txt").c_str(), &out), 0);
  EXPECT_TRUE(S_ISREG(out.st_mode));
  EXPECT_NE(out.st_ino, in.st_ino);
  EXPECT_EQ(in.st_nlink, 1u);
  ASSERT_EQ(::stat((dir / "in/own.txt").c_str(), &in), 0);
  ASSERT_EQ(::stat((dir / "kept/own.txt").c_str(), &out), 0);
  EXPECT_EQ(out.st_ino, in.st_ino);  // inside the PATH: linked
  ExpectNoWiderModes(dir / "kept", {dir / "in"}, true);
  // The same by a stage filter task.
  SignToReport(dir, dir / "work", 1, {"-L"});
  const RunResult f = Filter(dir, dir / "work", 0, 1, {"-L"}, dir / "fkept");
  ASSERT_EQ(f.exit_code, 0) << f.err;
  ASSERT_EQ(::lstat((dir / "fkept/link.txt").c_str(), &out), 0);
  EXPECT_TRUE(S_ISREG(out.st_mode));
  EXPECT_EQ(testing::ReadFile(dir / "fkept/link.txt"), testing::ReadFile(dir / "elsewhere/secret.txt"));
  ASSERT_EQ(::stat((dir / "elsewhere/secret.txt").c_str(), &in), 0);
  EXPECT_EQ(in.st_nlink, 1u);
  ExpectNoWiderModes(dir / "fkept", {dir / "in"}, true);
}

TEST(KeptDirSafetyTest, LinkPlantedInDirNeverRedirectsARetriedFilterTask) {
  TempDir dir;
  MakeJsonl(dir);
  const Args options = {"--input", "jsonl"};
  const std::string work = dir / "work";
  SignToReport(dir, work, 1, options);
  const std::string kept = dir / "kept";
  ASSERT_EQ(Filter(dir, work, 0, 1, options, kept).exit_code, 0);
  const auto first = FileTree(kept);
  ASSERT_EQ(first.size(), 3u);
  // DIR, begun, is writable by others: a folder and a file name become links
  // out of it.
  WriteFile(dir / "outside/b.jsonl", "not to be removed\n");
  WriteFile(dir / "outside/a.jsonl", "not to be replaced\n");
  fs::remove_all(kept + "/sub");
  fs::create_directory_symlink(dir / "outside", kept + "/sub");
  fs::remove(kept + "/a.jsonl");
  fs::create_symlink(dir / "outside/a.jsonl", kept + "/a.jsonl");
  const auto outside = FileTree(dir / "outside");
  const RunResult r = Filter(dir, work, 0, 1, options, kept);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(kept + "/sub/b.jsonl: a folder on its way in " + kept + " is a symbolic link"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(FileTree(dir / "outside"), outside);
  EXPECT_TRUE(fs::is_symlink(kept + "/sub"));
  EXPECT_TRUE(fs::is_symlink(kept + "/a.jsonl"));
  // DIR given as a link: refused, nothing written where it points.
  fs::create_directories(dir / "target");
  fs::create_directory_symlink(dir / "target", dir / "kept-link");
  const RunResult l = Filter(dir, work, 0, 1, options, dir / "kept-link");
  EXPECT_EQ(l.exit_code, 2) << l.err;
  EXPECT_TRUE(FileTree(dir / "target").empty());
}

// Whether a process other than this one holds `path` open (processes and
// descriptors that vanish meanwhile are passed over).
bool OpenedByAnotherProcess(const std::string& path) {
  const std::string self = std::to_string(::getpid());
  std::error_code ec;
  for (fs::directory_iterator proc("/proc", ec), end; !ec && proc != end; proc.increment(ec)) {
    const std::string pid = proc->path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos || pid == self) continue;
    // Only a process that runs the binary: a child between posix_spawn and
    // exec still holds this test's descriptors (closed on exec).
    std::error_code exe_ec;
    if (fs::read_symlink(proc->path() / "exe", exe_ec) != fs::canonical(kBin, exe_ec)) continue;
    std::error_code fd_ec;
    for (fs::directory_iterator fd(proc->path() / "fd", fd_ec); !fd_ec && fd != end; fd.increment(fd_ec)) {
      std::error_code link_ec;
      if (fs::read_symlink(fd->path(), link_ec) == path) return true;
    }
  }
  return false;
}

TEST(KeptDirSafetyTest, LinkPlantedInDirWhileScanWaitsNeverRedirectsAWrite) {
  TempDir dir;
  MakeJsonl(dir);
  const std::string index = dir / "i.db";
  ASSERT_LE(RunNeardup({"scan", "--input", "jsonl", "--index", index, dir / "in"}, dir.path()).exit_code, 1);
  // The run checks DIR (missing: fine), then waits for the index this test holds.
  const int lock = ::open(index.c_str(), O_RDONLY | O_CLOEXEC);  // not inherited by the run
  ASSERT_GE(lock, 0);
  ASSERT_EQ(::flock(lock, LOCK_EX), 0);
  const std::string kept = dir / "kept";
  RunResult r;
  std::thread run([&] {
    r = RunNeardup({"scan", "--input", "jsonl", "--index", index, "--lock-wait", "60", "--kept-dir", kept, dir / "in"},
                   dir.path());
  });
  // Once it has the index open, it has checked DIR and waits for the lock.
  // Seen twice, 50 ms apart: past the instant of exec that still holds them.
  bool waiting = false;
  for (int k = 0, seen = 0; k < 600 && !waiting; ++k) {
    seen = OpenedByAnotherProcess(index) ? seen + 1 : 0;
    waiting = seen >= 2;
    if (!waiting) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(waiting) << "the run never opened the index";
  fs::create_directories(dir / "outside");
  fs::create_directories(kept);
  fs::create_directory_symlink(dir / "outside", kept + "/sub");
  ::flock(lock, LOCK_UN);
  ::close(lock);
  run.join();
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("is a symbolic link or not a folder; not written"), std::string::npos) << r.err;
  EXPECT_TRUE(FileTree(dir / "outside").empty());
  EXPECT_EQ(FileTree(kept).size(), 1u);  // a.jsonl, beside the link
}

TEST(KeptDirSafetyTest, FoldersTakeTheirInputFoldersModesAndDirIsMade0700) {
  for (const bool jsonl : {false, true}) {
    SCOPED_TRACE(jsonl ? "jsonl" : "text");
    TempDir dir;
    const std::string ext = jsonl ? ".jsonl" : ".txt";
    uint64_t seed = 10;
    for (const std::string folder : {"private", "shared", "open", "private/deep"}) {
      const std::string text = jsonl ? Doc(folder, seed) : Join(RandomWords(200, seed));
      WriteFile(dir / ("in/" + folder + "/f" + ext), text);
      ++seed;
    }
    ::chmod((dir / "in/private").c_str(), 0700);
    ::chmod((dir / "in/private/deep").c_str(), 0750);
    ::chmod((dir / "in/shared").c_str(), 0750);
    ::chmod((dir / "in/open").c_str(), 0755);
    Args args = {"scan", "--kept-dir", dir / "kept/new"};
    if (jsonl) args.insert(args.end(), {"--input", "jsonl"});
    args.push_back(dir / "in");
    const RunResult r = RunNeardup(args, dir.path());
    ASSERT_EQ(r.exit_code, 1) << r.err;
    const mode_t keep = ~Umask() & 0777;
    EXPECT_EQ(ModeOf(dir / "kept/new"), 0700u & keep);
    EXPECT_EQ(ModeOf(dir / "kept/new/private"), 0700u & keep);
    EXPECT_EQ(ModeOf(dir / "kept/new/private/deep"), 0750u & keep);
    EXPECT_EQ(ModeOf(dir / "kept/new/shared"), 0750u & keep);
    EXPECT_EQ(ModeOf(dir / "kept/new/open"), 0755u & keep);
    EXPECT_EQ(FileTree(dir / "kept/new").size(), 4u);
    ExpectNoWiderModes(dir / "kept/new", {dir / "in"}, true);
  }
  // The same for the filter tasks.
  TempDir dir;
  MakeJsonl(dir);
  ::chmod((dir / "in/sub").c_str(), 0700);
  const Args options = {"--input", "jsonl"};
  SignToReport(dir, dir / "work", 2, options);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(Filter(dir, dir / "work", i, 2, options, dir / "kept").exit_code, 0);
  EXPECT_EQ(ModeOf(dir / "kept"), 0700u & ~Umask());
  EXPECT_EQ(ModeOf(dir / "kept/sub"), 0700u & ~Umask());
  ExpectNoWiderModes(dir / "kept", {dir / "in"}, true);
}

}  // namespace
}  // namespace neardup
