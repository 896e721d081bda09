// Helpers shared by the tests: temporary directories, files, running the binary.
#pragma once

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace neardup::testing {

// A fresh directory under /tmp, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "neardup-test-XXXXXX").string();
    char* made = ::mkdtemp(tmpl.data());
    path_ = made != nullptr ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

inline void WriteFile(const std::string& path, const std::string& content) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out << content;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every regular file under `root` by its path below it, with its bytes
// (empty when `root` is missing): a folder to compare whole.
inline std::map<std::string, std::string> FileTree(const std::string& root) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file()) out[fs::relative(it->path(), root).string()] = ReadFile(it->path().string());
  }
  return out;
}

// Sets the mtime of every regular file under `root` `seconds` ahead of now.
// Files that young never let an --index run keep its output for a later run
// to give again (the 2 s rule of src/index/stored_result.h), so each run over
// them goes through the index itself, however slow the machine running the
// test: for tests of the index's reuse, not of the kept output.
inline void MtimesAhead(const std::string& root, int seconds) {
  namespace fs = std::filesystem;
  timespec times[2] = {};
  ::clock_gettime(CLOCK_REALTIME, &times[1]);
  times[1].tv_sec += seconds;
  times[0] = times[1];
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file()) ::utimensat(AT_FDCWD, it->path().c_str(), times, 0);
  }
}

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `argv` (argv[0] is the program path) with stdin from `stdin_path`
// (or /dev/null), capturing stdout and stderr through files in `dir`. When
// `max_rss_kb` is set, it receives the child's peak resident set (KiB),
// measured by GNU time from a small process of its own: a child spawned
// straight from the test would count the test process's size too
// (posix_spawn shares its address space until exec, and the kernel carries
// that peak over). Exit codes are the same either way (128 + N for signal N).
inline RunResult RunProcess(const std::vector<std::string>& argv, const std::string& dir,
                            const std::string& stdin_path = "/dev/null", long* max_rss_kb = nullptr) {
  const std::string out_path = dir + "/.stdout";
  const std::string err_path = dir + "/.stderr";
  const std::string rss_path = dir + "/.maxrss";
  std::vector<std::string> command;
  if (max_rss_kb != nullptr) command = {"/usr/bin/time", "-f", "%M", "-o", rss_path};
  command.insert(command.end(), argv.begin(), argv.end());
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, stdin_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const auto& a : command) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  RunResult r;
  if (posix_spawn(&pid, command[0].c_str(), &actions, nullptr, args.data(), environ) == 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  posix_spawn_file_actions_destroy(&actions);
  if (max_rss_kb != nullptr) {
    // The last line; GNU time writes "Command exited with ..." before it.
    std::string rss = ReadFile(rss_path);
    while (!rss.empty() && rss.back() == '\n') rss.pop_back();
    *max_rss_kb = std::atol(rss.substr(rss.rfind('\n') == std::string::npos ? 0 : rss.rfind('\n') + 1).c_str());
    if (*max_rss_kb <= 0) *max_rss_kb = LONG_MAX;  // not measured: no bound can pass
    std::filesystem::remove(rss_path);
  }
  r.out = ReadFile(out_path);
  r.err = ReadFile(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return r;
}

// --- Running as an unprivileged user ----------------------------------------
// Root reads any file and enters any directory, so a test of what happens
// when a file cannot be read would check nothing as root. These helpers run
// such a check as the user "nobody" when the suite runs as root (in a forked
// child that drops its privileges), and as the current user otherwise.

inline bool IsRoot() { return ::geteuid() == 0; }

// The uid and gid of "nobody" (65534 when there is no such user).
inline void NobodyIds(uid_t* uid, gid_t* gid) {
  *uid = 65534;
  *gid = 65534;
  if (const struct passwd* pw = ::getpwnam("nobody"); pw != nullptr) {
    *uid = pw->pw_uid;
    *gid = pw->pw_gid;
  }
}

// In a child process: drops every privilege for those of nobody. True when
// done (setgroups first, then the gid, then the uid, as setpriv does).
inline bool DropToNobody() {
  uid_t uid = 0;
  gid_t gid = 0;
  NobodyIds(&uid, &gid);
  return ::setgroups(0, nullptr) == 0 && ::setresgid(gid, gid, gid) == 0 && ::setresuid(uid, uid, uid) == 0 &&
         ::geteuid() == uid;
}

// Lets nobody enter `dir` and read what is in it (mkdtemp makes 0700 dirs).
inline void OpenToEveryone(const std::string& dir) { ::chmod(dir.c_str(), 0755); }

// Runs `fn` and returns its result. As root, `fn` runs in a forked child with
// the uid and gid of nobody and its result comes back through a pipe; a child
// that cannot drop its privileges or dies returns "<child failed: ...>".
// Every directory on the way to what `fn` reads must be open to nobody.
inline std::string RunUnprivileged(const std::function<std::string()>& fn) {
  if (!IsRoot()) return fn();
  int fds[2];
  if (::pipe(fds) != 0) return "<child failed: pipe>";
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return "<child failed: fork>";
  }
  if (pid == 0) {
    ::close(fds[0]);
    const std::string result = DropToNobody() ? fn() : "<child failed: cannot become nobody>";
    size_t done = 0;
    while (done < result.size()) {
      const ssize_t n = ::write(fds[1], result.data() + done, result.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string failed = "<child failed: status ";
    failed.append(std::to_string(status)).append(">");
    return failed;
  }
  return out;
}

// RunProcess as nobody when root (as the current user otherwise). The program
// is copied into a directory of its own that nobody can enter (the build tree
// may sit under a directory only root can), and stdout and stderr are opened
// before the child drops its privileges. `dir` receives the captured output;
// as root it is opened to everyone (OpenToEveryone), since the copy sits in it.
inline RunResult RunProcessUnprivileged(std::vector<std::string> argv, const std::string& dir,
                                        const std::string& stdin_path = "/dev/null") {
  if (!IsRoot()) return RunProcess(argv, dir, stdin_path);
  OpenToEveryone(dir);
  RunResult r;
  const std::string bin_dir = dir + "/.bin-nobody";
  std::error_code ec;
  std::filesystem::create_directories(bin_dir, ec);
  const std::string bin = bin_dir + "/" + std::filesystem::path(argv[0]).filename().string();
  std::filesystem::copy_file(argv[0], bin, std::filesystem::copy_options::overwrite_existing, ec);
  if (ec) {
    r.err = "cannot copy " + argv[0] + ": " + ec.message();
    return r;
  }
  ::chmod(bin_dir.c_str(), 0755);
  ::chmod(bin.c_str(), 0755);
  argv[0] = bin;
  const std::string out_path = dir + "/.stdout";
  const std::string err_path = dir + "/.stderr";
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int in = ::open(stdin_path.c_str(), O_RDONLY);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(126);
    if (!DropToNobody()) ::_exit(125);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  if (pid < 0) {
    r.err = "fork failed";
    return r;
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadFile(out_path);
  r.err = ReadFile(err_path);
  std::filesystem::remove(out_path, ec);
  std::filesystem::remove(err_path, ec);
  std::filesystem::remove_all(bin_dir, ec);
  return r;
}

// Deterministic text: `words` pseudo-words drawn from a vocabulary of
// `vocabulary` words by a splitmix64 stream seeded with `seed`.
inline std::vector<std::string> RandomWords(size_t words, uint64_t seed, size_t vocabulary = 5000) {
  std::vector<std::string> out;
  uint64_t s = seed;
  auto next = [&s]() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  static const char* kSyllables[] = {"ka", "to",  "ri", "mu", "sen", "lo", "da", "vi", "ne",  "shu",
                                     "pa", "gor", "el", "in", "tu",  "ma", "re", "zo", "qui", "ba"};
  for (size_t i = 0; i < words; ++i) {
    uint64_t w = next() % vocabulary;
    std::string word;
    do {
      word += kSyllables[w % 20];
      w /= 20;
    } while (w > 0);
    out.push_back(word);
  }
  return out;
}

// prefix + n, built without operator+ on a temporary (GCC 12 warns
// -Wrestrict on "literal" + std::to_string(n) at -O2).
inline std::string Numbered(const std::string& prefix, long long n) {
  std::string s = prefix;
  s.append(std::to_string(n));
  return s;
}

// The lines of `s`, without their '\n'; a last line without one counts.
inline std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

inline std::string Join(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) {
    if (!s.empty()) s += ' ';
    s += w;
  }
  return s;
}

}  // namespace neardup::testing
