#include "walk/walk.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "test_util.h"

namespace neardup {
namespace {

// A temporary directory (removed at the end) with helpers to fill it.
class TempDir {
 public:
  const std::string& path() const { return dir_.path(); }
  std::string Path(const std::string& rel) const { return dir_ / rel; }

  // Creates the file and its missing parent directories.
  void File(const std::string& rel, const std::string& content = "text") const {
    testing::WriteFile(Path(rel), content);
    ASSERT_EQ(testing::ReadFile(Path(rel)), content) << rel;
  }
  void Dir(const std::string& rel) const {
    std::error_code ec;
    std::filesystem::create_directories(Path(rel), ec);
    ASSERT_FALSE(ec) << ec.message();
  }
  void Symlink(const std::string& target, const std::string& rel) const {
    ASSERT_EQ(::symlink(target.c_str(), Path(rel).c_str()), 0) << rel;
  }

 private:
  testing::TempDir dir_;
};

// Changes the working directory for the lifetime of the object.
class ScopedCwd {
 public:
  explicit ScopedCwd(const std::string& dir) {
    std::error_code ec;
    old_ = std::filesystem::current_path(ec);
    EXPECT_FALSE(ec);
    EXPECT_EQ(::chdir(dir.c_str()), 0);
  }
  ScopedCwd(const ScopedCwd&) = delete;
  ScopedCwd& operator=(const ScopedCwd&) = delete;
  ~ScopedCwd() { EXPECT_EQ(::chdir(old_.c_str()), 0); }

 private:
  std::filesystem::path old_;
};

WalkedCorpus Walk(const Options& options) {
  Result<WalkedCorpus> walked = WalkCorpus(options);
  EXPECT_TRUE(walked.ok()) << walked.status().message();
  return walked.ok() ? std::move(walked).value() : WalkedCorpus();
}

std::vector<std::string> Paths(const WalkedCorpus& walked) {
  std::vector<std::string> out;
  for (const InputFile& file : walked.files) out.push_back(file.path);
  return out;
}

std::vector<std::string> Messages(const WalkedCorpus& walked) {
  std::vector<std::string> out;
  for (const Status& status : walked.errors) out.push_back(status.message());
  return out;
}

// `prefix` + each of `rels`.
std::vector<std::string> Under(const std::string& prefix, const std::vector<std::string>& rels) {
  std::vector<std::string> out;
  for (const std::string& rel : rels) out.push_back(prefix + rel);
  return out;
}

TEST(WalkCorpusTest, WalksNestedDirectoriesInByteOrder) {
  TempDir tmp;
  tmp.File("r/b.txt");
  tmp.File("r/B.txt");
  tmp.File("r/a/x.txt");
  tmp.File("r/a-b/x.txt");  // '-' < '/': sorts before "a/x.txt"
  tmp.File("r/a/d/e/f.txt");
  tmp.File("r/empty/../z.txt");
  tmp.Dir("r/emptydir");
  Options options;
  options.paths = {tmp.Path("r")};
  const WalkedCorpus walked = Walk(options);
  EXPECT_EQ(Paths(walked), Under(tmp.Path("r/"), {"B.txt", "a-b/x.txt", "a/d/e/f.txt", "a/x.txt", "b.txt", "z.txt"}));
  EXPECT_TRUE(walked.errors.empty());
  for (const InputFile& file : walked.files) EXPECT_FALSE(file.reference);
}

// Files and directories whose names share prefixes, on one thread and on
// several: the files come in byte order of their whole paths, a directory's
// files merged with its subdirectories' (a directory "a" sorts as "a/":
// after "a-b.txt" and "a.txt", before "a0" and "ab").
TEST(WalkCorpusTest, FilesAmongDirectoriesComeInByteOrderOfTheirPaths) {
  TempDir tmp;
  const std::vector<std::string> rels = {"a-b.txt", "a.txt", "a/x",  "a/y/z", "a0",  "a2",
                                         "ab/c",    "ab0",   "b-/q", "b/p",   "c",   "x/a-b/1",
                                         "x/a.b/2", "x/a/3", "x/a0", "x/ab",  "zz/0"};
  std::vector<std::string> want;
  for (const std::string& rel : rels) {
    tmp.File("r/" + rel);
    want.push_back(tmp.Path("r/") + rel);
  }
  std::sort(want.begin(), want.end());
  for (const int threads : {1, 2, 4}) {
    for (const std::string& root : {tmp.Path("r"), tmp.Path("r") + "/"}) {
      Options options;
      options.paths = {root};
      options.threads = threads;
      EXPECT_EQ(Paths(Walk(options)), want) << threads << " " << root;
    }
  }
}

TEST(WalkCorpusTest, FillsSizeAndMtimeFromStat) {
  TempDir tmp;
  tmp.File("r/a.txt", "12345");
  const struct timespec times[2] = {{1'600'000'000, 0}, {1'650'000'000, 250'000'000}};
  ASSERT_EQ(::utimensat(AT_FDCWD, tmp.Path("r/a.txt").c_str(), times, 0), 0);
  Options options;
  options.paths = {tmp.Path("r"), tmp.Path("r/a.txt")};
  const WalkedCorpus walked = Walk(options);
  ASSERT_EQ(walked.files.size(), 1u);
  EXPECT_EQ(walked.files[0].path, tmp.Path("r/a.txt"));
  EXPECT_EQ(walked.files[0].size, 5u);
  EXPECT_EQ(walked.files[0].mtime_ns, int64_t{1'650'000'000'250'000'000});
}

TEST(WalkCorpusTest, DisplayPathJoinsTheArgumentAsFindDoes) {
  TempDir tmp;
  tmp.File("data/sample/a.txt");
  tmp.File("data/sample/s/b.txt");
  ScopedCwd cwd(tmp.path());
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"data/sample", {"data/sample/a.txt", "data/sample/s/b.txt"}},
      {"data/sample/", {"data/sample/a.txt", "data/sample/s/b.txt"}},
      {"./data/sample", {"./data/sample/a.txt", "./data/sample/s/b.txt"}},
      {"data/sample/s/../s", {"data/sample/s/../s/b.txt"}},
      {"data/sample/a.txt", {"data/sample/a.txt"}},
  };
  for (const auto& [arg, want] : cases) {
    Options options;
    options.paths = {arg};
    EXPECT_EQ(Paths(Walk(options)), want) << arg;
  }
  ScopedCwd inner("data/sample");
  Options options;
  options.paths = {"."};
  EXPECT_EQ(Paths(Walk(options)), (std::vector<std::string>{"./a.txt", "./s/b.txt"}));
}

TEST(WalkCorpusTest, HiddenEntriesAreSkippedAndCounted) {
  TempDir tmp;
  tmp.File(".r/visible.txt");
  tmp.File(".r/.hidden.txt");
  tmp.File(".r/.git/config");
  tmp.File(".r/d/.x/y.txt");
  Options options;
  options.paths = {tmp.Path(".r")};  // a hidden PATH argument is still walked
  WalkedCorpus walked = Walk(options);
  EXPECT_EQ(Paths(walked), Under(tmp.Path(".r/"), {"visible.txt"}));
  EXPECT_EQ(walked.counts.hidden, 3u);  // .hidden.txt, .git, d/.x

  options.hidden = true;
  walked = Walk(options);
  EXPECT_EQ(Paths(walked), Under(tmp.Path(".r/"), {".git/config", ".hidden.txt", "d/.x/y.txt", "visible.txt"}));
  EXPECT_EQ(walked.counts.hidden, 0u);
}

TEST(WalkCorpusTest, GlobsIncludeAndExcludeRelativeToTheArgument) {
  TempDir tmp;
  tmp.File("r/a.txt");
  tmp.File("r/b.md");
  tmp.File("r/sub/c.txt");
  tmp.File("r/sub/secret.txt");
  tmp.File("r/node_modules/d.txt");
  tmp.File("r/node_modules/e.txt");
  Options options;
  options.paths = {tmp.Path("r")};
  options.globs = {"*.txt", "!secret.txt", "!node_modules"};
  WalkedCorpus walked = Walk(options);
  EXPECT_EQ(Paths(walked), Under(tmp.Path("r/"), {"a.txt", "sub/c.txt"}));
  EXPECT_EQ(walked.counts.glob, 3u);  // b.md, secret.txt, the node_modules directory

  // A glob with '/' is matched against the path below the argument.
  options.globs = {"sub/*"};
  walked = Walk(options);
  EXPECT_EQ(Paths(walked), Under(tmp.Path("r/"), {"sub/c.txt", "sub/secret.txt"}));
  EXPECT_EQ(walked.counts.glob, 4u);

  options.globs = {"!sub/**"};
  walked = Walk(options);
  EXPECT_EQ(Paths(walked), Under(tmp.Path("r/"), {"a.txt", "b.md", "node_modules/d.txt", "node_modules/e.txt"}));
}

// .gitignore and .ignore files, as ripgrep honours them (#41): relative to
// their folder, nested ones below it, '!', trailing '/', '**', comments;
// .ignore before .gitignore; counted with the --glob exclusions; the same on
// one thread and several.
TEST(WalkCorpusTest, IgnoreFilesAreHonouredAsRipgrepDoes) {
  TempDir tmp;
  tmp.File("r/.gitignore", "# build output\n*.log\n!keep.log\nbuild/\n/top.txt\ndocs/**/draft*\n");
  tmp.File("r/a.txt");
  tmp.File("r/top.txt");  // anchored: ignored here only
  tmp.File("r/sub/top.txt");
  tmp.File("r/x.log");
  tmp.File("r/keep.log");     // re-included
  tmp.File("r/build/b.txt");  // directory ignored: not entered
  tmp.File("r/sub/build");    // a file named build: "build/" matches directories only
  tmp.File("r/sub/y.log");    // *.log at any depth
  tmp.File("r/docs/a/b/draft1.txt");
  tmp.File("r/docs/final.txt");
  tmp.File("r/sub/.gitignore", "*.txt\n");  // nested: applies below sub/ only
  tmp.File("r/sub/deeper/z.txt");
  tmp.File("r/sub/z.md");
  tmp.File("r/n/.gitignore", "*.md\n");
  tmp.File("r/n/.ignore", "!special.md\n");  // .ignore decides before .gitignore
  tmp.File("r/n/special.md");
  tmp.File("r/n/other.md");
  const std::vector<std::string> kept = {"a.txt",        "docs/final.txt", "keep.log",
                                         "n/special.md", "sub/build",      "sub/z.md"};
  for (const int threads : {1, 4}) {
    SCOPED_TRACE(threads);
    Options options;
    options.paths = {tmp.Path("r")};
    options.threads = threads;
    WalkedCorpus walked = Walk(options);
    EXPECT_EQ(Paths(walked), Under(tmp.Path("r/"), kept));
    // top.txt, x.log, build/, sub/top.txt, sub/y.log, sub/deeper/z.txt, docs/a/b/draft1.txt, n/other.md
    EXPECT_EQ(walked.counts.ignored, 8u);
    EXPECT_EQ(walked.counts.glob, 8u);
    EXPECT_EQ(walked.counts.hidden, 4u);  // the ignore files themselves
    options.no_ignore = true;
    walked = Walk(options);
    EXPECT_EQ(walked.files.size(), 14u);
    EXPECT_EQ(walked.counts.ignored, 0u);
  }
}

// --ignore-file: matched below each PATH, after .ignore and .gitignore; a
// -g glob that matches a file decides over every ignore file (#41).
TEST(WalkCorpusTest, IgnoreFileOptionAndGlobsOverrideIt) {
  TempDir tmp;
  tmp.File("list", "*.md\nsecret/\n");
  tmp.File("r/a.txt");
  tmp.File("r/b.md");
  tmp.File("r/secret/c.txt");
  tmp.File("r/.gitignore", "!b.md\n");
  tmp.File("s/d.md");
  Options options;
  options.paths = {tmp.Path("r"), tmp.Path("s")};
  options.ignore_files = {tmp.Path("list")};
  WalkedCorpus walked = Walk(options);
  EXPECT_EQ(Paths(walked), (std::vector<std::string>{tmp.Path("r/a.txt"), tmp.Path("r/b.md")}));
  EXPECT_EQ(walked.counts.ignored, 2u);  // secret/, s/d.md
  options.globs = {"*.md"};
  walked = Walk(options);
  EXPECT_EQ(Paths(walked), (std::vector<std::string>{tmp.Path("r/b.md"), tmp.Path("s/d.md")}));
  options.globs = {};
  options.ignore_files = {tmp.Path("missing")};
  EXPECT_FALSE(WalkCorpus(options).ok());
}

TEST(WalkCorpusTest, ExplicitFileArgumentsIgnoreGlobsAndHidden) {
  TempDir tmp;
  tmp.File("r/.h.md");
  tmp.File("r/b.md");
  tmp.File("r/c.txt");
  Options options;
  options.paths = {tmp.Path("r/.h.md"), tmp.Path("r/b.md"), tmp.Path("r/c.txt")};
  options.globs = {"*.txt"};
  const WalkedCorpus walked = Walk(options);
  EXPECT_EQ(Paths(walked), Under(tmp.Path("r/"), {".h.md", "b.md", "c.txt"}));
  EXPECT_EQ(walked.counts.glob, 0u);
  EXPECT_EQ(walked.counts.hidden, 0u);
}

TEST(WalkCorpusTest, SymlinksAreNotFollowedByDefault) {
  TempDir tmp;
  tmp.File("r/a.txt");
  tmp.File("outside/o.txt");
  tmp.Symlink("a.txt", "r/file_link");
  tmp.Symlink("../outside", "r/dir_link");
  tmp.Symlink("missing", "r/dangling");
  Options options;
  options.paths = {tmp.Path("r")};
  const WalkedCorpus walked = Walk(options);
  EXPECT_EQ(Paths(walked), Under(tmp.Path("r/"), {"a.txt"}));
  EXPECT_EQ(walked.counts.symlinks, 3u);
  EXPECT_TRUE(walked.errors.empty());
}

TEST(WalkCorpusTest, SymlinkArgumentIsFollowed) {
  TempDir tmp;
  tmp.File("r/a.txt");
  tmp.Symlink("r", "dir_link");
  tmp.Symlink("r/a.txt", "file_link");
  Options options;
  options.paths = {tmp.Path("dir_link"), tmp.Path("file_link")};
  const WalkedCorpus walked = Walk(options);
  // The same file by both arguments: listed once, under the smaller path.
  EXPECT_EQ(Paths(walked), Under(tmp.path(), {"/dir_link/a.txt"}));
  EXPECT_EQ(walked.counts.symlinks, 0u);
}

TEST(WalkCorpusTest, FollowEntersLinkedFilesAndDirectories) {
  TempDir tmp;
  tmp.File("r/a.txt");
  tmp.File("outside/o.txt");
  tmp.File("outside/deep/p.txt");
  tmp.File("other.txt");
  tmp.Symlink("../other.txt", "r/file_link");
  tmp.Symlink("../outside", "r/dir_link");
  Options options;
  options.paths = {tmp.Path("r")};
  options.follow = true;
  const WalkedCorpus walked = Walk(options);
  EXPECT_EQ(Paths(walked), Under(tmp.Path("r/"), {"a.txt", "dir_link/deep/p.txt", "dir_link/o.txt", "file_link"}));
  EXPECT_EQ(walked.counts.symlinks, 0u);
  EXPECT_TRUE(walked.errors.empty());
  // A followed link reports its target's size.
  EXPECT_EQ(walked.files.back().size, 4u);
}

TEST(WalkCorpusTest, DanglingLinkIsAWarningOfItsOwnKindWithFollow) {
  TempDir tmp;
  tmp.File("r/a.txt");
  tmp.Symlink("missing", "r/dangling");
  Options options;
  options.paths = {tmp.Path("r")};
  options.follow = true;
  const WalkedCorpus walked = Walk(options);
  EXPECT_EQ(Paths(walked), Under(tmp.Path("r/"), {"a.txt"}));
  EXPECT_EQ(walked.counts.dangling, 1u);
  ASSERT_EQ(walked.errors.size(), 1u);
  EXPECT_EQ(walked.errors[0].code(), Status::Code::kNotFound);
  EXPECT_EQ(walked.errors[0].message(),
            tmp.Path("r/dangling") + ": dangling symbolic link, not followed (No such file or directory)");
}

TEST(WalkCorpusTest, SymlinkLoopIsReportedOnceAndTheWalkFinishes) {
  TempDir tmp;
  tmp.File("r/a.txt");
  tmp.File("r/sub/b.txt");
  tmp.Symlink("..", "r/sub/up");
  tmp.Symlink(".", "r/sub/self");
  Options options;
  options.paths = {tmp.Path("r")};
  options.follow = true;
  const WalkedCorpus walked = Walk(options);
  EXPECT_EQ(Paths(walked), Under(tmp.Path("r/"), {"a.txt", "sub/b.txt"}));
  EXPECT_EQ(walked.counts.loops, 2u);
  EXPECT_EQ(Messages(walked), (std::vector<std::string>{tmp.Path("r/sub/self") + ": symlink loop, not followed",
                                                        tmp.Path("r/sub/up") + ": symlink loop, not followed"}));
  for (const Status& error : walked.errors) EXPECT_EQ(error.code(), Status::Code::kIoError);

  // Without --follow the links are just counted.
  options.follow = false;
  const WalkedCorpus plain = Walk(options);
  EXPECT_EQ(Paths(plain), Paths(walked));
  EXPECT_EQ(plain.counts.symlinks, 2u);
  EXPECT_EQ(plain.counts.loops, 0u);
  EXPECT_TRUE(plain.errors.empty());
}

TEST(WalkCorpusTest, FileReachedTwiceIsListedOnceUnderItsSmallestPath) {
  TempDir tmp;
  tmp.File("r/m.txt");
  tmp.Symlink("m.txt", "r/z_link");
  tmp.Dir("r/zz");
  tmp.Symlink("../m.txt", "r/zz/l2");
  tmp.File("r/real/x.txt");
  tmp.File("r/real/in/y.txt");
  tmp.Symlink("real", "r/alias");   // sorts before "real": its paths win
  tmp.Symlink("real", "r/zalias");  // sorts after
  Options options;
  options.paths = {tmp.Path("r")};
  options.follow = true;
  const WalkedCorpus walked = Walk(options);
  EXPECT_EQ(Paths(walked), Under(tmp.Path("r/"), {"alias/in/y.txt", "alias/x.txt", "m.txt"}));
  EXPECT_EQ(walked.counts.loops, 0u);
  EXPECT_TRUE(walked.errors.empty());
}

TEST(WalkCorpusTest, HardLinksAreOneFile) {
  TempDir tmp;
  tmp.File("r/b.txt");
  ASSERT_EQ(::link(tmp.Path("r/b.txt").c_str(), tmp.Path("r/a.txt").c_str()), 0);
  Options options;
  options.paths = {tmp.Path("r")};
  EXPECT_EQ(Paths(Walk(options)), Under(tmp.Path("r/"), {"a.txt"}));
}

TEST(WalkCorpusTest, FilesOverMaxFilesizeAreSkippedAndCounted) {
  TempDir tmp;
  tmp.File("r/ten.txt", std::string(10, 'x'));
  tmp.File("r/eleven.txt", std::string(11, 'x'));
  tmp.File("big.txt", std::string(100, 'x'));
  Options options;
  options.paths = {tmp.Path("r"), tmp.Path("big.txt")};
  options.max_filesize = 10;
  WalkedCorpus walked = Walk(options);
  EXPECT_EQ(Paths(walked), Under(tmp.Path("r/"), {"ten.txt"}));
  EXPECT_EQ(walked.counts.too_large, 2u);

  options.max_filesize = 0;  // no limit
  walked = Walk(options);
  EXPECT_EQ(walked.files.size(), 3u);
  EXPECT_EQ(walked.counts.too_large, 0u);
}

// Below a directory, a FIFO is counted and never opened; named as a PATH
// argument, it is a stream document.
TEST(WalkCorpusTest, SpecialFilesInADirectoryAreSkippedAndNamedOnesAreStreams) {
  TempDir tmp;
  tmp.File("r/a.txt");
  ASSERT_EQ(::mkfifo(tmp.Path("r/fifo").c_str(), 0644), 0);
  ASSERT_EQ(::mkfifo(tmp.Path("top_fifo").c_str(), 0644), 0);
  Options options;
  options.paths = {tmp.Path("r"), tmp.Path("top_fifo")};
  const WalkedCorpus walked = Walk(options);
  EXPECT_EQ(Paths(walked), (std::vector<std::string>{tmp.Path("r/a.txt"), tmp.Path("top_fifo")}));
  EXPECT_EQ(walked.counts.special, 1u);
  ASSERT_EQ(walked.files.size(), 2u);
  EXPECT_FALSE(walked.files[0].identity.stream);
  EXPECT_TRUE(walked.files[1].identity.stream);
  EXPECT_EQ(walked.files[1].size, 0u);
  struct stat st {};
  ASSERT_EQ(::stat(tmp.Path("top_fifo").c_str(), &st), 0);
  EXPECT_EQ(walked.files[1].identity.ino, static_cast<uint64_t>(st.st_ino));
  EXPECT_TRUE(walked.errors.empty());
}

// The walk keeps its own stack: a tree far deeper than a recursive walk could
// take on a small stack is listed whole, in the same order as a shallow one.
TEST(WalkCorpusTest, DeepTreeIsWalkedInPathOrder) {
  TempDir tmp;
  std::string rel = "r";
  for (int depth = 0; depth < 300; ++depth) {
    rel += "/d";
    tmp.File(rel + "/f.txt");
    tmp.File(rel + "-x.txt");
  }
  Options options;
  options.paths = {tmp.Path("r")};
  const WalkedCorpus walked = Walk(options);
  ASSERT_EQ(walked.files.size(), 600u);
  EXPECT_TRUE(walked.errors.empty());
  std::vector<std::string> sorted = Paths(walked);
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(Paths(walked), sorted);
  size_t longest = 0;
  for (const InputFile& f : walked.files) longest = std::max(longest, f.path.size());
  EXPECT_EQ(longest, tmp.Path("r").size() + 300 * 2 + 6);
}

TEST(WalkCorpusTest, MissingPathIsNotFoundAndTheWalkGoesOn) {
  TempDir tmp;
  tmp.File("r/a.txt");
  tmp.File("file.txt");
  Options options;
  options.paths = {tmp.Path("missing"), tmp.Path("r"), tmp.Path("file.txt/x")};
  const WalkedCorpus walked = Walk(options);
  EXPECT_EQ(Paths(walked), Under(tmp.Path("r/"), {"a.txt"}));
  ASSERT_EQ(walked.errors.size(), 2u);
  EXPECT_EQ(walked.errors[0].code(), Status::Code::kNotFound);
  EXPECT_EQ(walked.errors[0].message(), tmp.Path("missing") + ": No such file or directory");
  EXPECT_EQ(walked.errors[1].code(), Status::Code::kNotFound);
  EXPECT_EQ(walked.errors[1].message(), tmp.Path("file.txt/x") + ": Not a directory");
}

// As root the walk is made by a child running as nobody: root enters any directory.
TEST(WalkCorpusTest, UnreadableDirectoryIsAnErrorAndTheWalkGoesOn) {
  TempDir tmp;
  tmp.File("r/a.txt");
  tmp.File("r/locked/b.txt");
  testing::OpenToEveryone(tmp.path());
  ASSERT_EQ(::chmod(tmp.Path("r/locked").c_str(), 0), 0);
  Options options;
  options.paths = {tmp.Path("r")};
  // Files, then each error as "code message", one a line.
  const std::string got = testing::RunUnprivileged([&] {
    std::string out;
    Result<WalkedCorpus> walked = WalkCorpus(options);
    if (!walked.ok()) return "walk failed: " + walked.status().message();
    for (const InputFile& file : walked->files) out += "file " + file.path + "\n";
    for (const Status& e : walked->errors) {
      out += e.code() == Status::Code::kIoError ? "IoError " : "other ";
      out += e.message() + "\n";
    }
    return out;
  });
  EXPECT_EQ(::chmod(tmp.Path("r/locked").c_str(), 0755), 0);
  EXPECT_EQ(got, "file " + tmp.Path("r/a.txt") + "\nIoError " + tmp.Path("r/locked") + ": Permission denied\n");
}

TEST(WalkCorpusTest, AgainstPathsAreReferenceAndWinOverlaps) {
  TempDir tmp;
  tmp.File("corpus/a.txt");
  tmp.File("corpus/ref/r.txt");
  tmp.File("other/o.txt");
  ScopedCwd cwd(tmp.path());
  Options options;
  options.paths = {"corpus"};
  options.against = {"corpus/ref", "./other"};
  WalkedCorpus walked = Walk(options);
  ASSERT_EQ(Paths(walked), (std::vector<std::string>{"./other/o.txt", "corpus/a.txt", "corpus/ref/r.txt"}));
  EXPECT_TRUE(walked.files[0].reference);
  EXPECT_FALSE(walked.files[1].reference);
  EXPECT_TRUE(walked.files[2].reference);

  // Different spellings of one file: listed once, still a reference.
  ScopedCwd inner("corpus");
  options.paths = {"."};
  options.against = {"ref"};
  walked = Walk(options);
  ASSERT_EQ(Paths(walked), (std::vector<std::string>{"./a.txt", "./ref/r.txt"}));
  EXPECT_FALSE(walked.files[0].reference);
  EXPECT_TRUE(walked.files[1].reference);
}

TEST(WalkCorpusTest, ListedPathsAreWalkedLikeArguments) {
  TempDir tmp;
  tmp.File("r/a.txt");
  tmp.File("r/d/b.md");
  tmp.File("c.md");
  Options options;
  options.paths = {tmp.Path("r")};
  options.listed_paths = {tmp.Path("r/d"), tmp.Path("c.md"), tmp.Path("nope")};
  options.globs = {"*.txt"};
  const WalkedCorpus walked = Walk(options);
  // c.md is explicit, so globs do not apply; r/d/b.md was found by walking.
  EXPECT_EQ(Paths(walked), (std::vector<std::string>{tmp.Path("c.md"), tmp.Path("r/a.txt")}));
  ASSERT_EQ(walked.errors.size(), 1u);
  EXPECT_EQ(walked.errors[0].code(), Status::Code::kNotFound);
}

TEST(WalkCorpusTest, RepeatedArgumentsGiveUniquePaths) {
  TempDir tmp;
  tmp.File("r/a.txt");
  tmp.File("r/b/c.txt");
  Options options;
  options.paths = {tmp.Path("r"), tmp.Path("r/b"), tmp.Path("r"), tmp.Path("r/a.txt")};
  EXPECT_EQ(Paths(Walk(options)), Under(tmp.Path("r/"), {"a.txt", "b/c.txt"}));
}

// One file named by arguments in a row comes in path order twice: the walk
// keeps it once, and the paths around it as they are.
TEST(WalkCorpusTest, FileNamedTwiceInARowIsOneFile) {
  TempDir tmp;
  tmp.File("r/a.txt");
  tmp.File("r/b.txt");
  Options options;
  options.paths = {tmp.Path("r/a.txt"), tmp.Path("r/a.txt"), tmp.Path("r/b.txt"), tmp.Path("r/b.txt")};
  EXPECT_EQ(Paths(Walk(options)), Under(tmp.Path("r/"), {"a.txt", "b.txt"}));
}

// A Parquet file among text files is left out and counted, whatever the
// case of its suffix; names that only come close to ".parquet" are read.
TEST(WalkCorpusTest, ParquetFilesAreLeftOutByTheirSuffixInAnyCase) {
  TempDir tmp;
  for (const char* name : {"a.parquet", "b.PaRqUeT", "c.parquez", "d\x0eparquet", "e\x0EPARQUET", "f.txt",
                           "g.parquet.txt", "parquet", ".parquet"}) {
    tmp.File(std::string("r/") + name);
  }
  Options options;
  options.paths = {tmp.Path("r")};
  const WalkedCorpus walked = Walk(options);
  EXPECT_EQ(Paths(walked),
            Under(tmp.Path("r/"), {"c.parquez", "d\x0eparquet", "e\x0EPARQUET", "f.txt", "g.parquet.txt", "parquet"}));
  EXPECT_EQ(walked.counts.parquet, 2u);
  EXPECT_EQ(walked.counts.hidden, 1u);  // .parquet
}

// A walk tells its watch once, of the first regular file whose mtime or
// ctime is at or after the watch's moment: not of older files, nor of a
// directory newer than it (a file added and removed again), on one thread
// or several.
TEST(WalkCorpusTest, WatchIsToldOnceOfAFileChangedSinceItsMoment) {
  auto now_ns = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  TempDir tmp;
  tmp.File("r/a.txt");
  tmp.File("r/sub/b.txt");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // past the file system's clock tick
  std::atomic<int> told{0};
  const WalkWatch watch{.from_ns = now_ns(), .changed = [&told] { ++told; }};
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::filesystem::create_directories(tmp.Path("r/sub/new"));
  tmp.File("r/gone.txt");
  std::filesystem::remove(tmp.Path("r/gone.txt"));
  auto walk = [&](int threads) {
    told = 0;
    Options options;
    options.paths = {tmp.Path("r")};
    options.threads = threads;
    Result<WalkedCorpus> walked = WalkCorpus(options, FileSystem::Default(), &watch);
    EXPECT_TRUE(walked.ok());
    return told.load();
  };
  for (const int threads : {1, 2, 4}) EXPECT_EQ(walk(threads), 0) << threads;
  tmp.File("r/sub/c.txt");
  tmp.File("r/d.txt");
  for (const int threads : {1, 2, 4}) EXPECT_EQ(walk(threads), 1) << threads;
  // A file named as a PATH argument is watched too.
  Options one;
  one.paths = {tmp.Path("r/d.txt")};
  told = 0;
  ASSERT_TRUE(WalkCorpus(one, FileSystem::Default(), &watch).ok());
  EXPECT_EQ(told.load(), 1);
}

// ------------------------------------------------------- injected faults

// The real file system with faults injected by path: a directory whose
// listing fails after `keep` entries, a directory that cannot be opened, an
// entry whose stat fails, a PATH argument whose stat fails; and optionally
// listings that never give an entry's type (as DT_UNKNOWN file systems do).
class FaultyFs : public FileSystem {
 public:
  std::string list_fails;  // directory path
  size_t keep = 0;         // entries it gives before failing
  std::string open_fails;  // directory path
  std::string stat_fails;  // entry path, DIR/NAME
  std::string root_stat_fails;
  bool types_unknown = false;
  std::vector<std::string> kept;  // names the failing listing gave

  Result<std::unique_ptr<ByteReader>> Open(const std::string& path) override {
    return FileSystem::Default().Open(path);
  }
  Result<FileStat> Stat(const std::string& path) override {
    if (path == root_stat_fails) return Status::IoError(path + ": Input/output error");
    return FileSystem::Default().Stat(path);
  }
  Result<std::unique_ptr<Directory>> OpenDir(const std::string& path, bool follow_symlink) override {
    if (path == open_fails) return Status::IoError(path + ": Permission denied");
    Result<std::unique_ptr<Directory>> real = FileSystem::Default().OpenDir(path, follow_symlink);
    if (!real.ok()) return real;
    return std::unique_ptr<Directory>(std::make_unique<FaultyDir>(this, path, std::move(*real)));
  }

 private:
  class FaultyDir final : public Directory {
   public:
    FaultyDir(FaultyFs* fs, std::string path, std::unique_ptr<Directory> real)
        : fs_(fs), path_(std::move(path)), real_(std::move(real)) {}
    Status List(std::vector<DirEntry>* entries) override {
      std::vector<DirEntry> all;
      Status s = real_->List(&all);
      if (fs_->types_unknown) {
        for (DirEntry& e : all) e.type = FileType::kUnknown;
      }
      if (path_ == fs_->list_fails) {
        all.resize(std::min(all.size(), fs_->keep));
        for (const DirEntry& e : all) fs_->kept.push_back(e.name);
        s = Status::IoError(path_ + ": Input/output error");
      }
      entries->insert(entries->end(), all.begin(), all.end());
      return s;
    }
    Result<FileStat> StatEntry(const std::string& name, bool follow_symlink) override {
      const std::string path = path_ + "/" + name;
      if (path == fs_->stat_fails) return Status::IoError(path + ": Input/output error");
      return real_->StatEntry(name, follow_symlink);
    }

   private:
    FaultyFs* fs_;
    std::string path_;
    std::unique_ptr<Directory> real_;
  };
};

WalkedCorpus Walk(const Options& options, FileSystem& fs) {
  Result<WalkedCorpus> walked = WalkCorpus(options, fs);
  EXPECT_TRUE(walked.ok()) << walked.status().message();
  return walked.ok() ? std::move(walked).value() : WalkedCorpus();
}

TEST(WalkCorpusFaultTest, ListingThatFailsMidwayIsOneProblemAndTheRestIsWalked) {
  TempDir tmp;
  for (const char* name : {"a.txt", "b.txt", "c.txt", "d.txt"}) tmp.File(std::string("r/big/") + name);
  tmp.File("r/big/sub/deep.txt");
  tmp.File("r/other/x.txt");
  tmp.File("r/z.txt");
  FaultyFs fs;
  fs.list_fails = tmp.Path("r/big");
  fs.keep = 2;
  Options options;
  options.paths = {tmp.Path("r")};
  const WalkedCorpus walked = Walk(options, fs);
  ASSERT_EQ(fs.kept.size(), 2u);
  // What the listing gave before failing is walked (a kept "sub" is entered).
  std::vector<std::string> want = {tmp.Path("r/other/x.txt"), tmp.Path("r/z.txt")};
  for (const std::string& name : fs.kept) {
    want.push_back(tmp.Path("r/big/" + (name == "sub" ? std::string("sub/deep.txt") : name)));
  }
  std::sort(want.begin(), want.end());
  EXPECT_EQ(Paths(walked), want);
  EXPECT_EQ(Messages(walked), std::vector<std::string>{tmp.Path("r/big") + ": Input/output error"});
  EXPECT_EQ(walked.errors[0].code(), Status::Code::kIoError);
}

TEST(WalkCorpusFaultTest, DirectoryThatCannotBeOpenedIsOneProblem) {
  TempDir tmp;
  tmp.File("r/a.txt");
  tmp.File("r/locked/b.txt");
  tmp.File("r/locked/in/c.txt");
  tmp.File("r/z/d.txt");
  FaultyFs fs;
  fs.open_fails = tmp.Path("r/locked");
  Options options;
  options.paths = {tmp.Path("r")};
  const WalkedCorpus walked = Walk(options, fs);
  EXPECT_EQ(Paths(walked), Under(tmp.Path("r/"), {"a.txt", "z/d.txt"}));
  EXPECT_EQ(Messages(walked), std::vector<std::string>{tmp.Path("r/locked") + ": Permission denied"});
}

TEST(WalkCorpusFaultTest, StatThatFailsIsOneProblemAndTheRestIsWalked) {
  TempDir tmp;
  tmp.File("r/a.txt");
  tmp.File("r/b.txt");
  tmp.File("r/d/c.txt");
  for (const bool types_unknown : {false, true}) {
    FaultyFs fs;
    fs.stat_fails = tmp.Path("r/b.txt");
    fs.types_unknown = types_unknown;
    Options options;
    options.paths = {tmp.Path("r")};
    const WalkedCorpus walked = Walk(options, fs);
    EXPECT_EQ(Paths(walked), Under(tmp.Path("r/"), {"a.txt", "d/c.txt"})) << types_unknown;
    EXPECT_EQ(Messages(walked), std::vector<std::string>{tmp.Path("r/b.txt") + ": Input/output error"});
  }
}

TEST(WalkCorpusFaultTest, StatOfAPathArgumentThatFailsIsOneProblem) {
  TempDir tmp;
  tmp.File("r/a.txt");
  tmp.File("s/b.txt");
  FaultyFs fs;
  fs.root_stat_fails = tmp.Path("r");
  Options options;
  options.paths = {tmp.Path("r"), tmp.Path("s")};
  const WalkedCorpus walked = Walk(options, fs);
  EXPECT_EQ(Paths(walked), Under(tmp.Path("s/"), {"b.txt"}));
  EXPECT_EQ(Messages(walked), std::vector<std::string>{tmp.Path("r") + ": Input/output error"});
}

// File systems that do not fill d_type (DT_UNKNOWN) walk as those that do:
// every entry is stat'ed instead, and links, hidden names, globs and
// directories come out the same.
TEST(WalkCorpusFaultTest, ListingsWithoutTypesGiveTheSameWalk) {
  TempDir tmp;
  tmp.File("r/a.txt");
  tmp.File("r/.hidden.txt");
  tmp.File("r/d/b.md");
  tmp.File("r/d/e/c.txt");
  tmp.Symlink("a.txt", "r/link.txt");
  tmp.Symlink("d", "r/dlink");
  ASSERT_EQ(::mkfifo(tmp.Path("r/fifo").c_str(), 0600), 0);
  for (const bool follow : {false, true}) {
    Options options;
    options.paths = {tmp.Path("r")};
    options.globs = {"*.txt"};
    options.follow = follow;
    FaultyFs fs;
    fs.types_unknown = true;
    const WalkedCorpus typed = Walk(options);
    const WalkedCorpus untyped = Walk(options, fs);
    EXPECT_EQ(Paths(untyped), Paths(typed)) << follow;
    EXPECT_EQ(Messages(untyped), Messages(typed)) << follow;
    EXPECT_EQ(untyped.counts.hidden, typed.counts.hidden);
    EXPECT_EQ(untyped.counts.glob, typed.counts.glob);
    EXPECT_EQ(untyped.counts.symlinks, typed.counts.symlinks);
    EXPECT_EQ(untyped.counts.special, 1u);
    EXPECT_EQ(typed.counts.special, 1u);
  }
}

// A walk on several threads (directories listed at once, without --follow)
// gives what the walk on one thread gives: the same files, the same problems
// in the same order (a directory's, then its subdirectories' in path order),
// the same counts.
TEST(WalkCorpusFaultTest, WalkOnSeveralThreadsEqualsTheWalkOnOne) {
  TempDir tmp;
  for (int d = 0; d < 10; ++d) {
    for (int e = 0; e < 4; ++e) {
      const std::string dir = "r/d" + std::to_string(d) + "/e" + std::to_string(e) + "/";
      for (int f = 0; f < 5; ++f)
        tmp.File(dir + "f" + std::to_string(f) + ".txt", std::string(static_cast<size_t>(f), 'x'));
      tmp.File(dir + ".hidden.txt");
      tmp.File(dir + "skip.md");
    }
    tmp.Symlink("../r", "r/d" + std::to_string(d) + "/link");
  }
  tmp.File("r/top.txt");
  tmp.File("r/a-b/x.txt");  // "a-b" sorts before "a/" as paths do
  tmp.File("r/a/y.txt");
  ASSERT_EQ(::mkfifo(tmp.Path("r/d3/fifo").c_str(), 0600), 0);
  for (const bool types_unknown : {false, true}) {
    auto walk = [&](int threads) {
      FaultyFs fs;
      fs.open_fails = tmp.Path("r/d9");
      fs.stat_fails = tmp.Path("r/d1/e3/f2.txt");
      fs.list_fails = tmp.Path("r/d5/e0");
      fs.keep = 3;
      fs.types_unknown = types_unknown;
      Options options;
      options.paths = {tmp.Path("r")};
      options.globs = {"*.txt"};
      options.threads = threads;
      return Walk(options, fs);
    };
    const WalkedCorpus one = walk(1);
    ASSERT_EQ(one.errors.size(), 3u);
    EXPECT_EQ(one.errors[0].message(), tmp.Path("r/d1/e3/f2.txt") + ": Input/output error");
    EXPECT_EQ(one.errors[2].message(), tmp.Path("r/d9") + ": Permission denied");
    for (const int threads : {2, 4, 8}) {
      const WalkedCorpus many = walk(threads);
      EXPECT_EQ(Paths(many), Paths(one)) << threads;
      EXPECT_EQ(Messages(many), Messages(one)) << threads;
      for (size_t i = 0; i < std::min(many.files.size(), one.files.size()); ++i) {
        EXPECT_EQ(many.files[i].size, one.files[i].size);
        EXPECT_EQ(many.files[i].mtime_ns, one.files[i].mtime_ns);
        EXPECT_EQ(many.files[i].identity.ino, one.files[i].identity.ino);
      }
      EXPECT_EQ(many.counts.hidden, one.counts.hidden);
      EXPECT_EQ(many.counts.glob, one.counts.glob);
      EXPECT_EQ(many.counts.symlinks, one.counts.symlinks);
      EXPECT_EQ(many.counts.special, one.counts.special);
      EXPECT_EQ(many.counts.symlinks, 9u);  // not d9's, which cannot be opened
    }
  }
}

// ------------------------------------------------ one file, several paths

TEST(WalkCorpusTest, FileNamedByTwoArgumentsIsOneFile) {
  TempDir tmp;
  tmp.File("r/x.txt");
  tmp.File("r/y.txt", "other");
  Options options;
  options.paths = {tmp.Path("r/x.txt"), tmp.Path("r")};
  EXPECT_EQ(Paths(Walk(options)), Under(tmp.Path("r/"), {"x.txt", "y.txt"}));
  // The same file under two spellings: one document, under the smaller path.
  ScopedCwd cwd(tmp.path());
  options.paths = {"r/x.txt", "./r/x.txt", "r//x.txt"};
  EXPECT_EQ(Paths(Walk(options)), (std::vector<std::string>{"./r/x.txt"}));
}

TEST(WalkCorpusTest, HardLinksInTwoArgumentsAreOneFileUnderTheSmallestPath) {
  TempDir tmp;
  tmp.File("s/b.txt");
  tmp.Dir("r");
  ASSERT_EQ(::link(tmp.Path("s/b.txt").c_str(), tmp.Path("r/z.txt").c_str()), 0);
  Options options;
  options.paths = {tmp.Path("s"), tmp.Path("r/z.txt")};
  EXPECT_EQ(Paths(Walk(options)), Under(tmp.Path("r/"), {"z.txt"}));
}

TEST(WalkCorpusTest, MalformedGlobIsInvalidArgument) {
  Options options;
  options.paths = {"."};
  options.globs = {"[abc"};
  Result<WalkedCorpus> walked = WalkCorpus(options);
  ASSERT_FALSE(walked.ok());
  EXPECT_EQ(walked.status().code(), Status::Code::kInvalidArgument);
}

TEST(WalkCorpusTest, NoPathsGiveNothing) {
  const WalkedCorpus walked = Walk(Options());
  EXPECT_TRUE(walked.files.empty());
  EXPECT_TRUE(walked.errors.empty());
}

}  // namespace
}  // namespace neardup
