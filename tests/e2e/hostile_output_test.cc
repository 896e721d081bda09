// End to end, hostile output: what -o writes over, closed standard fds,
// signals, cut records, refused options, path lists that never end.
//
// Each test runs the real binary. None asserts a duration: where a run must
// be caught in the middle, the test waits for an observable state (the
// temporary file exists, output has started) before it signals.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <climits>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli/output.h"
#include "e2e/run_neardup.h"
#include "test_paths.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::Join;
using testing::Lines;
using testing::RandomWords;
using testing::ReadFile;
using testing::RunNeardup;
using testing::RunOptions;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

const std::string kBin = ::neardup::testing::NeardupBinary();
using Args = std::vector<std::string>;

// Every signal neardup catches to clean up, with its exit status 128 + n
// (of the real-time signals, the first, a middle one and the last).
std::vector<int> CaughtSignals() {
  return {SIGINT,  SIGTERM,   SIGHUP,  SIGQUIT, SIGALRM, SIGUSR1,   SIGUSR2,  SIGXCPU,
          SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,   SIGPWR,  SIGSTKFLT, SIGRTMIN, (SIGRTMIN + SIGRTMAX) / 2,
          SIGRTMAX};
}

// docs/a.txt and docs/b.txt identical, docs/c.txt unrelated: one pair.
std::string MakeSmallCorpus(const TempDir& dir) {
  const std::string text = Join(RandomWords(200, 1));
  WriteFile(dir / "docs/a.txt", text);
  WriteFile(dir / "docs/b.txt", text);
  WriteFile(dir / "docs/c.txt", Join(RandomWords(200, 2)));
  return dir / "docs";
}

// The one pair of MakeSmallCorpus, as jsonl.
void ExpectSmallCorpusPair(const std::string& output, const TempDir& dir) {
  const auto lines = Lines(output);
  ASSERT_EQ(lines.size(), 1u) << output;
  ASSERT_TRUE(nlohmann::json::accept(lines[0])) << lines[0];
  const auto pair = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(pair["a"], dir / "docs/a.txt");
  EXPECT_EQ(pair["b"], dir / "docs/b.txt");
}

std::set<std::string> Names(const std::string& folder) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(folder)) names.insert(e.path().filename().string());
  return names;
}

// The names in `folder` that look like neardup's temporary files.
std::vector<std::string> TemporaryFiles(const std::string& folder) {
  std::vector<std::string> found;
  for (const std::string& name : Names(folder)) {
    if (name.find(".neardup-") != std::string::npos) found.push_back(name);
  }
  return found;
}

struct stat Lstat(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st;
}

// Starts `argv` with stdin, stdout and stderr on the given fds (-1: /dev/null;
// for stderr, kClosed closes it), default signal dispositions and no blocked
// signals. Returns the pid.
constexpr int kClosed = -2;
pid_t Spawn(const std::vector<std::string>& argv, int in_fd, int out_fd, int err_fd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  auto place = [&](int from, int to, int flags) {
    if (from == kClosed) {
      posix_spawn_file_actions_addclose(&actions, to);
    } else if (from < 0) {
      posix_spawn_file_actions_addopen(&actions, to, "/dev/null", flags, 0);
    } else {
      posix_spawn_file_actions_adddup2(&actions, from, to);
    }
  };
  place(in_fd, 0, O_RDONLY);
  place(out_fd, 1, O_WRONLY);
  place(err_fd, 2, O_WRONLY);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0].c_str(), &actions, &attr, args.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return pid;
}

// Waits for `pid`; returns the exit status, or 1000 + n for a death by signal n.
int Wait(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

// Polls until `ready()` holds or the child has exited; true when ready.
template <typename Ready>
bool WaitUntil(pid_t pid, Ready ready) {
  for (int i = 0; i < 120000; ++i) {  // ten minutes at most: a hang, not slowness
    if (ready()) return true;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      ADD_FAILURE() << "the run ended before the test could act, status " << status;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

// ------------------------------------------------------------------ -o targets

// A private device node (as /dev/null, /dev/full), or "" where nodes cannot
// be made or used (not root, a nodev mount).
std::string MakeDevice(const TempDir& dir, const std::string& name, unsigned minor) {
  const std::string path = dir / name;
  if (::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, minor)) != 0) return "";
  const int fd = ::open(path.c_str(), O_WRONLY);
  if (fd < 0) return "";
  ::close(fd);
  return path;
}

TEST(HostileOutputTest, DeviceTargetIsWrittenInPlaceNotReplaced) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  const std::string null = MakeDevice(dir, "null", 3);
  if (null.empty()) GTEST_SKIP() << "cannot make a device node here (needs root and a dev mount)";
  const RunResult r = RunNeardup({"scan", "-o", null, docs}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const struct stat st = Lstat(null);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(st.st_rdev, makedev(1, 3));
  EXPECT_TRUE(TemporaryFiles(dir.path()).empty());
}

TEST(HostileOutputTest, FullDeviceIsAnErrorAndStaysADevice) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  const std::string full = MakeDevice(dir, "full", 7);
  if (full.empty()) GTEST_SKIP() << "cannot make a device node here (needs root and a dev mount)";
  const RunResult r = RunNeardup({"scan", "-o", full, docs}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_TRUE(S_ISCHR(Lstat(full).st_mode));
  EXPECT_TRUE(TemporaryFiles(dir.path()).empty());
}

TEST(HostileOutputTest, FifoTargetReceivesTheOutputAndStaysAFifo) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  const std::string fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A reader is there before the run (so opening for writing does not wait);
  // the output is small enough to sit in the pipe until read.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const RunResult r = RunNeardup({"scan", "-o", fifo, docs}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string got;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(reader, buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
  ::close(reader);
  ExpectSmallCorpusPair(got, dir);
  EXPECT_TRUE(S_ISFIFO(Lstat(fifo).st_mode));
  EXPECT_TRUE(TemporaryFiles(dir.path()).empty());
}

TEST(HostileOutputTest, SymlinkIsFollowedAndItsTargetReplaced) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  WriteFile(dir / "real/out.jsonl", "old\n");
  std::filesystem::create_directories(dir / "links");
  // links/first -> second -> ../real/out.jsonl, relative at each step.
  std::filesystem::create_symlink("second", dir / "links/first");
  std::filesystem::create_symlink("../real/out.jsonl", dir / "links/second");
  const RunResult r = RunNeardup({"scan", "-o", dir / "links/first", docs}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(S_ISLNK(Lstat(dir / "links/first").st_mode));
  EXPECT_TRUE(S_ISLNK(Lstat(dir / "links/second").st_mode));
  EXPECT_EQ(std::filesystem::read_symlink(dir / "links/first"), "second");
  ExpectSmallCorpusPair(ReadFile(dir / "real/out.jsonl"), dir);
  EXPECT_TRUE(TemporaryFiles(dir / "links").empty());
  EXPECT_TRUE(TemporaryFiles(dir / "real").empty());
}

TEST(HostileOutputTest, DanglingSymlinkCreatesItsTarget) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  std::filesystem::create_directories(dir / "real");
  std::filesystem::create_symlink("real/new.jsonl", dir / "link");
  const RunResult r = RunNeardup({"scan", "-o", dir / "link", docs}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(S_ISLNK(Lstat(dir / "link").st_mode));
  ExpectSmallCorpusPair(ReadFile(dir / "real/new.jsonl"), dir);
}

TEST(HostileOutputTest, SymlinkLoopIsAnError) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  std::filesystem::create_symlink("b", dir / "a");
  std::filesystem::create_symlink("a", dir / "b");
  const RunResult r = RunNeardup({"scan", "-o", dir / "a", docs}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Too many levels of symbolic links"), std::string::npos) << r.err;
  EXPECT_TRUE(S_ISLNK(Lstat(dir / "a").st_mode));
}

TEST(HostileOutputTest, ExistingFileKeepsItsMode) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  const std::string target = dir / "out.jsonl";
  for (const mode_t mode : {0600, 0640, 0604, 0660}) {
    WriteFile(target, "old\n");
    ASSERT_EQ(::chmod(target.c_str(), mode), 0);
    const RunResult r = RunNeardup({"scan", "-o", target, docs}, dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ExpectSmallCorpusPair(ReadFile(target), dir);
    EXPECT_EQ(Lstat(target).st_mode & 07777, mode) << std::oct << mode;
  }
}

TEST(HostileOutputTest, ExistingFileKeepsItsOwnerWherePermitted) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root may give a file to another owner";
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  const std::string target = dir / "out.jsonl";
  WriteFile(target, "old\n");
  ASSERT_EQ(::chown(target.c_str(), 65534, 65534), 0);  // nobody
  ASSERT_EQ(::chmod(target.c_str(), 0600), 0);
  const RunResult r = RunNeardup({"scan", "-o", target, docs}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectSmallCorpusPair(ReadFile(target), dir);
  const struct stat st = Lstat(target);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_gid, 65534u);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST(HostileOutputTest, NewFileGetsTheUmaskMode) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  for (const auto& [umask, mode] : {std::pair<std::string, mode_t>{"027", 0640}, {"077", 0600}, {"002", 0664}}) {
    const std::string target = dir / ("new" + umask);
    const RunResult r = RunProcess(
        {"/bin/sh", "-c", "umask " + umask + "; exec \"$0\" scan -o \"$1\" \"$2\"", kBin, target, docs}, dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(Lstat(target).st_mode & 07777, mode) << umask;
  }
}

TEST(HostileOutputTest, HardLinkReplacesOnlyTheNameGiven) {
  // Atomic replacement gives the name a new file; the other name keeps the
  // old data (as docs/options.md says, and as mv or `sort -o` through rename do).
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  WriteFile(dir / "out.jsonl", "old\n");
  ASSERT_EQ(::chmod((dir / "out.jsonl").c_str(), 0640), 0);
  ASSERT_EQ(::link((dir / "out.jsonl").c_str(), (dir / "other.jsonl").c_str()), 0);
  const RunResult r = RunNeardup({"scan", "-o", dir / "out.jsonl", docs}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectSmallCorpusPair(ReadFile(dir / "out.jsonl"), dir);
  EXPECT_EQ(Lstat(dir / "out.jsonl").st_mode & 07777, 0640u);
  EXPECT_EQ(ReadFile(dir / "other.jsonl"), "old\n");
}

TEST(HostileOutputTest, LongestFileNameWorks) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  for (const size_t length : {251, 255}) {
    const std::string target = dir / std::string(length, 'x');
    const RunResult r = RunNeardup({"scan", "-o", target, docs}, dir.path());
    ASSERT_EQ(r.exit_code, 0) << length << ": " << r.err;
    ExpectSmallCorpusPair(ReadFile(target), dir);
  }
  EXPECT_TRUE(TemporaryFiles(dir.path()).empty());
}

TEST(HostileOutputTest, TemporaryNameFitsInNameMaxAndKeepsWholeCharacters) {
  // 84 three-byte characters: 252 bytes; the cut must not split one.
  std::string base;
  for (int i = 0; i < 84; ++i) base += "\xE2\x82\xAC";  // U+20AC
  const std::string temp = cli::TemporaryName("some/dir/" + base);
  ASSERT_EQ(temp.rfind("some/dir/.", 0), 0u) << temp;
  const std::string name = temp.substr(std::string("some/dir/").size());
  EXPECT_LE(name.size(), static_cast<size_t>(NAME_MAX));
  EXPECT_TRUE(name.ends_with(".neardup-XXXXXX")) << name;
  const std::string kept = name.substr(1, name.size() - 1 - std::string(".neardup-XXXXXX").size());
  EXPECT_EQ(kept.size() % 3, 0u);
  EXPECT_EQ(base.rfind(kept, 0), 0u);
  EXPECT_EQ(cli::TemporaryName("out.jsonl"), ".out.jsonl.neardup-XXXXXX");
}

TEST(HostileOutputTest, DirectoryTargetFailsBeforeAnyWork) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  std::filesystem::create_directories(dir / "folder");
  // -v logs the parameters once the scan is done: they must not appear.
  const RunResult r = RunNeardup({"scan", "-v", "-o", dir / "folder", docs}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "neardup: " + dir / "folder" + ": Is a directory\n");
  EXPECT_TRUE(std::filesystem::is_directory(dir / "folder"));
  EXPECT_TRUE(TemporaryFiles(dir.path()).empty());
}

TEST(HostileOutputTest, EmptyOutputNameIsAUsageError) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  const RunResult r = RunNeardup({"scan", "-o", "", docs}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "neardup: --output needs a file name ('-' for stdout), got ''\n");
}

// ------------------------------------------------------------ standard fds

TEST(HostileOutputTest, ClosedStderrNeverWritesLogsIntoTheOutputFile) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  const std::string target = dir / "out.jsonl";
  // -v logs the parameters; the missing path adds a warning.
  const pid_t pid = Spawn({kBin, "scan", "-v", "-o", target, docs, dir / "missing"}, -1, -1, kClosed);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(Wait(pid), 2);
  ExpectSmallCorpusPair(ReadFile(target), dir);
}

TEST(HostileOutputTest, ClosedStdinReadsAnEmptyPathList) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  const std::string target = dir / "out.jsonl";
  const pid_t pid = Spawn({kBin, "scan", "-o", target, "--files-from", "-", docs}, kClosed, -1, -1);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(Wait(pid), 0);
  ExpectSmallCorpusPair(ReadFile(target), dir);
}

// ----------------------------------------------------------------- signals

// Starts a run with -o `target` that waits on a path list from stdin, and
// waits until its temporary file exists. Returns the pid; *list is the write
// end of its stdin.
pid_t StartWaitingRun(const std::string& target, const std::string& folder, int* list,
                      const std::vector<std::string>& wrapper = {}) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return -1;
  std::vector<std::string> argv = wrapper;
  for (const std::string& a :
       {kBin, std::string("scan"), std::string("-o"), target, std::string("--files-from"), std::string("-")}) {
    argv.push_back(a);
  }
  const pid_t pid = Spawn(argv, fds[0], -1, -1);
  ::close(fds[0]);
  *list = fds[1];
  if (pid < 0) return -1;
  if (!WaitUntil(pid, [&] { return !TemporaryFiles(folder).empty(); })) {
    ::kill(pid, SIGKILL);
    Wait(pid);
    return -1;
  }
  return pid;
}

TEST(HostileOutputTest, EveryCaughtSignalRemovesTheTemporaryFile) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  const std::string target = dir / "out/pairs.jsonl";
  WriteFile(target, "old\n");
  for (const int sig : CaughtSignals()) {
    int list = -1;
    const pid_t pid = StartWaitingRun(target, dir / "out", &list);
    ASSERT_GT(pid, 0) << strsignal(sig);
    ASSERT_EQ(::kill(pid, sig), 0);
    EXPECT_EQ(Wait(pid), 128 + sig) << strsignal(sig);
    ::close(list);
    EXPECT_EQ(ReadFile(target), "old\n") << strsignal(sig);
    EXPECT_EQ(Names(dir / "out"), std::set<std::string>{"pairs.jsonl"}) << strsignal(sig);
  }
}

// While a run writes, its temporary file is ".NAME.neardup-" and six
// characters from mkstemp, hidden, beside the target; a long NAME is cut so
// that the whole name stays within NAME_MAX.
TEST(HostileOutputTest, TemporaryFileIsHiddenBesideTheTargetWhileTheRunWrites) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  for (const std::string& name : {std::string("pairs.jsonl"), std::string(255, 'n')}) {
    std::filesystem::create_directories(dir / "out");
    const std::string target = dir / ("out/" + name);
    int list = -1;
    const pid_t pid = StartWaitingRun(target, dir / "out", &list);
    ASSERT_GT(pid, 0);
    const std::vector<std::string> temps = TemporaryFiles(dir / "out");
    ASSERT_EQ(temps.size(), 1u);
    const std::string& temp = temps[0];
    EXPECT_LE(temp.size(), static_cast<size_t>(NAME_MAX));
    const std::string suffix = ".neardup-";
    ASSERT_GT(temp.size(), 1 + suffix.size() + 6) << temp;
    const std::string kept = temp.substr(1, temp.size() - 1 - suffix.size() - 6);
    EXPECT_EQ(temp[0], '.') << temp;
    EXPECT_EQ(name.rfind(kept, 0), 0u) << temp;
    EXPECT_EQ(kept.size(), std::min(name.size(), NAME_MAX - 1 - suffix.size() - 6)) << temp;
    EXPECT_EQ(temp.substr(1 + kept.size(), suffix.size()), suffix) << temp;
    for (const char c : temp.substr(temp.size() - 6)) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c))) << temp;
    // The run finishes normally: the file is renamed over the target.
    const std::string paths = dir / "docs/a.txt\n" + dir / "docs/b.txt\n";
    ASSERT_EQ(::write(list, paths.data(), paths.size()), static_cast<ssize_t>(paths.size()));
    ::close(list);
    EXPECT_EQ(Wait(pid), 0);
    ExpectSmallCorpusPair(ReadFile(target), dir);
    EXPECT_EQ(Names(dir / "out"), std::set<std::string>{name});
    std::filesystem::remove_all(dir / "out");
  }
}

TEST(HostileOutputTest, SignalIgnoredAtStartStaysIgnored) {
  // nohup: a hang-up must not end the run.
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  const std::string target = dir / "out/pairs.jsonl";
  std::filesystem::create_directories(dir / "out");
  int list = -1;
  const pid_t pid = StartWaitingRun(target, dir / "out", &list, {"/bin/sh", "-c", "trap '' HUP; exec \"$@\"", "sh"});
  ASSERT_GT(pid, 0);
  ASSERT_EQ(::kill(pid, SIGHUP), 0);
  const std::string paths = dir / "docs/a.txt\n" + dir / "docs/b.txt\n";
  ASSERT_EQ(::write(list, paths.data(), paths.size()), static_cast<ssize_t>(paths.size()));
  ::close(list);
  EXPECT_EQ(Wait(pid), 0);
  ExpectSmallCorpusPair(ReadFile(target), dir);
}

// Many identical documents with long names: pairs mode writes tens of MB.
std::string MakeManyCopies(const TempDir& dir, int copies) {
  const std::string text = Join(RandomWords(50, 7));
  const std::string pad(120, 'p');
  for (int i = 0; i < copies; ++i) WriteFile(dir / ("many/" + pad + std::to_string(i) + ".txt"), text);
  return dir / "many";
}

// Reads from `fd` into *out until EOF.
void ReadToEnd(int fd, std::string* out) {
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    out->append(buf, static_cast<size_t>(n));
  }
}

void ExpectWholeJsonLines(const std::string& out) {
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), '\n') << "the last record is cut: ..."
                              << out.substr(out.size() - std::min<size_t>(200, out.size()));
  size_t bad = 0;
  for (const std::string& line : Lines(out)) {
    if (!nlohmann::json::accept(line)) ++bad;
  }
  EXPECT_EQ(bad, 0u);
}

TEST(HostileOutputTest, InterruptOnStdoutNeverCutsARecord) {
  TempDir dir;
  const std::string docs = MakeManyCopies(dir, 600);  // 179,700 pairs, about 60 MB
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  const pid_t pid = Spawn({kBin, "scan", docs}, -1, fds[1], -1);
  ::close(fds[1]);
  ASSERT_GT(pid, 0);
  // Take the first bytes, then stop reading: the pipe fills and the run
  // blocks inside a write, where the signal arrives.
  std::string out;
  char buf[1 << 16];
  while (out.size() < 100000) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    ASSERT_GT(n, 0) << "output ended early";
    out.append(buf, static_cast<size_t>(n));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  ReadToEnd(fds[0], &out);
  ::close(fds[0]);
  EXPECT_EQ(Wait(pid), 130);
  EXPECT_LT(out.size(), 50000000u) << "the run was not interrupted";
  ExpectWholeJsonLines(out);
}

TEST(HostileOutputTest, SecondSignalEndsAWriteNobodyReads) {
  TempDir dir;
  const std::string docs = MakeManyCopies(dir, 600);
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  const pid_t pid = Spawn({kBin, "scan", docs}, -1, fds[1], -1);
  ::close(fds[1]);
  ASSERT_GT(pid, 0);
  char byte;
  ASSERT_EQ(::read(fds[0], &byte, 1), 1);  // output has started; nothing more is read
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  EXPECT_EQ(Wait(pid), 130);  // the first signal's status
  ::close(fds[0]);
}

// ----------------------------------------------------------------- options

TEST(HostileOutputTest, RefusedOptionsLeaveTheOldFileAndSayWhyInOneLine) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  const std::string target = dir / "out.jsonl";
  WriteFile(target, "old\n");
  const std::vector<std::vector<std::string>> bad = {
      {"--seed", "-1"},
      {"--seed", ""},
      {"--max-filesize", ""},
      {"--max-filesize", "0"},
      {"-0"},
      {"--mode", "1"},
      {"--shingle", "1"},
      {"--threshold", "-0.5"},
      {"--bands", "65536", "--rows", "65536"},
      {"--threshold", "1.7976931348623157e308"},
  };
  for (const auto& options : bad) {
    std::vector<std::string> argv = {kBin, "scan", "-o", target};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(docs);
    const RunResult r = RunProcess(argv, dir.path());
    EXPECT_EQ(r.exit_code, 2) << options[0];
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_LT(r.err.size(), 120u) << r.err;
    EXPECT_EQ(r.err.rfind("neardup: " + options[0], 0), 0u) << r.err;
    EXPECT_EQ(ReadFile(target), "old\n");
  }
}

TEST(HostileOutputTest, KeepInPairsModeIsAWarning) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  RunResult r = RunNeardup({"scan", "--keep", "longest", "--cluster-by", "keep", docs}, dir.path());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("neardup: --keep has no effect in pairs mode"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("neardup: --cluster-by has no effect in pairs mode"), std::string::npos) << r.err;
  r = RunNeardup({"scan", "-q", "--keep", "longest", docs}, dir.path());
  EXPECT_EQ(r.err, "");
  r = RunNeardup({"scan", "--mode", "clusters", "--keep", "longest", docs}, dir.path());
  EXPECT_EQ(r.err.find("no effect"), std::string::npos) << r.err;
}

// ------------------------------------------------------------- path lists

TEST(HostileOutputTest, PathListThatIsADirectorySaysSo) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  const RunResult r = RunNeardup({"scan", "--files-from", docs}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "neardup: " + docs + ": is a directory, not a list of paths\n");
}

TEST(HostileOutputTest, EndlessPathListStopsAtTheFirstOverlongEntry) {
  TempDir dir;
  RunResult r = RunNeardup({"scan", "--files-from", "/dev/zero"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "neardup: /dev/zero: line 1 is longer than 4095 bytes, not a path\n");
  r = RunNeardup({"scan", "--files0-from", "/dev/zero"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "neardup: /dev/zero: entry 1 is an empty file name\n");
  r = RunNeardup({"scan", "--files-from", "-"}, dir.path(), RunOptions().Stdin("/dev/zero"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "neardup: stdin: line 1 is longer than 4095 bytes, not a path\n");
}

TEST(HostileOutputTest, PathListsAreReadAcrossBlocks) {
  // Entries that straddle the 64 KiB read blocks, CR LF line ends, a path of
  // the longest length accepted, empty lines.
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  std::string list;
  while (list.size() < 70000) list += "\r\n" + dir / "docs/a.txt\r\n\n";
  list += dir / "docs/b.txt";  // no final newline
  WriteFile(dir / "list", list);
  RunResult r = RunNeardup({"scan", "--files-from", dir / "list"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectSmallCorpusPair(r.out, dir);

  std::string nul_list = dir / "docs/a.txt";
  nul_list += '\0';
  nul_list += std::string(4095, 'y');  // not a file: a warning, but accepted as a path
  nul_list += '\0';
  nul_list += dir / "docs/b.txt";
  nul_list += '\0';
  WriteFile(dir / "list0", nul_list);
  r = RunNeardup({"scan", "--files0-from", dir / "list0"}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.find("longer than"), std::string::npos) << r.err;
  ExpectSmallCorpusPair(r.out, dir);
}

// ------------------------------------------- -o never over an input (#23)

// "Every removal right" (#23): -o naming an input would replace it with the
// report (and the next `xargs rm` would act on a corpus that lost a file).
// Refused before anything is read, in one line that says the way out.
TEST(HostileOutputTest, OutputNamingAnInputIsRefusedBeforeAnythingIsRead) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  const std::string before = ReadFile(dir / "docs/a.txt");
  for (const Args& argv :
       {Args{kBin, "scan", "-o", dir / "docs/a.txt", docs},
        Args{kBin, "scan", "-o", dir / "docs/a.txt", dir / "docs/a.txt", dir / "docs/b.txt"},
        Args{kBin, "scan", "-o", dir / "docs/../docs/a.txt", docs},
        Args{"/bin/sh", "-c",
             "cd '" + dir.path() + "' && exec '" + kBin + "' scan --mode duplicates -o docs/a.txt docs/"}}) {
    const RunResult r = RunProcess(argv, dir.path());
    EXPECT_EQ(r.exit_code, 2) << Join(argv);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(Lines(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find("write it outside the scanned"), std::string::npos) << r.err;
    EXPECT_EQ(ReadFile(dir / "docs/a.txt"), before);
    EXPECT_TRUE(TemporaryFiles(docs).empty());
  }
}

// A file inside a scanned folder, new or an earlier output, would be read
// as a document by the next scan of that folder: refused, and nothing is
// created or replaced there. --against folders and listed folders alike.
TEST(HostileOutputTest, OutputInsideAScannedFolderIsRefused) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  WriteFile(dir / "ref/r.txt", Join(RandomWords(200, 3)));
  WriteFile(dir / "docs/old.jsonl", "earlier output\n");
  WriteFile(dir / "list", docs + "\n");
  for (const Args& argv : {Args{kBin, "scan", "-o", dir / "docs/new.jsonl", docs},
                           Args{kBin, "scan", "-o", dir / "docs/sub/new.jsonl", docs},
                           Args{kBin, "scan", "-o", dir / "docs/old.jsonl", docs},
                           Args{kBin, "scan", "-o", dir / "ref/out.jsonl", "--against", dir / "ref", docs},
                           Args{kBin, "scan", "-o", dir / "docs/new.jsonl", "--files-from", dir / "list"}}) {
    const RunResult r = RunProcess(argv, dir.path());
    EXPECT_EQ(r.exit_code, 2) << Join(argv);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(Lines(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find("is inside the scanned folder"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("write it outside the scanned folders"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "docs/new.jsonl"));
  EXPECT_FALSE(std::filesystem::exists(dir / "ref/out.jsonl"));
  EXPECT_EQ(ReadFile(dir / "docs/old.jsonl"), "earlier output\n");
  EXPECT_TRUE(TemporaryFiles(docs).empty());
  // A link to a scanned folder is seen through.
  std::filesystem::create_directory_symlink(docs, dir / "docs_link");
  const RunResult r = RunNeardup({"scan", "-o", dir / "docs_link/x.jsonl", docs}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "docs/x.jsonl"));
}

// -o over the --index file would replace the signatures with a report.
TEST(HostileOutputTest, OutputOverTheIndexIsRefused) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  const std::string index = dir / "i.db";
  RunResult r = RunNeardup({"scan", "--index", index, "-o", index, docs}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is the --index file"), std::string::npos) << r.err;
  EXPECT_EQ(Lines(r.err).size(), 1u) << r.err;
  EXPECT_FALSE(std::filesystem::exists(index));
  ASSERT_EQ(RunNeardup({"scan", "--index", index, docs}, dir.path()).exit_code, 0);
  const std::string stored = ReadFile(index);
  r = RunNeardup({"scan", "--index", index, "-o", dir / "./i.db", docs}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is the --index file"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFile(index), stored);
  EXPECT_EQ(RunNeardup({"index", "check", index}, dir.path()).exit_code, 0);
}

// An --index file inside a scanned folder is left out of the documents with
// a warning (and its journals with it), so the answer is the one without
// the index; the warning alone does not make the exit status 2.
TEST(HostileOutputTest, IndexInsideAScannedFolderIsLeftOutWithAWarning) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  const RunResult plain = RunNeardup({"scan", docs}, dir.path());
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const std::string index = dir / "docs/i.db";
  for (int run = 0; run < 2; ++run) {
    const RunResult r = RunNeardup({"scan", "--index", index, docs}, dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, plain.out);
    EXPECT_NE(r.err.find(index + ": the --index file"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("keep the index outside the scanned paths"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("binary"), std::string::npos) << r.err;  // not read as a document
    EXPECT_NE(r.err.find("3 documents"), std::string::npos) << r.err;
  }
  EXPECT_TRUE(std::filesystem::exists(index));
}

// What stays allowed: -o outside the scanned folders, /dev/stdout, and a
// FIFO even inside a scanned folder (written in place; a walk never reads a
// FIFO it finds).
TEST(HostileOutputTest, OutputOutsideTheInputsStdoutAndFifoStillWork) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  RunResult r = RunNeardup({"scan", "-o", dir / "out.jsonl", docs}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectSmallCorpusPair(ReadFile(dir / "out.jsonl"), dir);
  r = RunNeardup({"scan", "-o", dir / "out.jsonl", "--index", dir / "i.db", docs}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = RunNeardup({"scan", "-o", "/dev/stdout", docs}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectSmallCorpusPair(r.out, dir);
  const std::string fifo = dir / "docs/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  r = RunNeardup({"scan", "-o", fifo, docs}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string got;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(reader, buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
  ::close(reader);
  ExpectSmallCorpusPair(got, dir);
}

// --------------------------------------------------------- json duplicates

TEST(HostileOutputTest, JsonDuplicatesModeIsADocumentWithRemovable) {
  TempDir dir;
  const std::string docs = MakeSmallCorpus(dir);
  const RunResult r = RunNeardup({"scan", "--mode", "duplicates", "-f", "json", docs}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(nlohmann::json::accept(r.out)) << r.out;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["params"]["mode"], "duplicates");
  EXPECT_EQ(doc["stats"]["removable"], 1);
  ASSERT_EQ(doc["removable"].size(), 1u);
  EXPECT_EQ(doc["removable"][0]["path"], dir / "docs/b.txt");
  EXPECT_EQ(doc["removable"][0]["kept"], dir / "docs/a.txt");
  // Without -f, the bare paths; with -f csv, a record per removable path.
  const RunResult paths = RunNeardup({"scan", "--mode", "duplicates", docs}, dir.path());
  EXPECT_EQ(paths.out, dir / "docs/b.txt\n");
  const RunResult list = RunNeardup({"scan", "--mode", "duplicates", "-f", "csv", docs}, dir.path());
  EXPECT_EQ(list.out, "path,kept,estimate,jaccard\n" + dir / "docs/b.txt," + dir / "docs/a.txt,1,1\n");
}

}  // namespace
}  // namespace neardup
