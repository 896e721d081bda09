// Helpers shared by the tests: temporary directories, files, running the binary.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `argv` (argv[0] is the program path) with stdin from `stdin_path`
// (or /dev/null), capturing stdout and stderr through files in `dir`. When
// `max_rss_kb` is set, it receives the child's peak resident set (KiB).
inline RunResult RunProcess(const std::vector<std::string>& argv, const std::string& dir,
                            const std::string& stdin_path = "/dev/null", long* max_rss_kb = nullptr) {
  const std::string out_path = dir + "/.stdout";
  const std::string err_path = dir + "/.stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, stdin_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  RunResult r;
  if (posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ) == 0) {
    int status = 0;
    struct rusage usage {};
    wait4(pid, &status, 0, &usage);
    if (max_rss_kb != nullptr) *max_rss_kb = usage.ru_maxrss;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  posix_spawn_file_actions_destroy(&actions);
  r.out = ReadFile(out_path);
  r.err = ReadFile(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
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
  static const char* kSyllables[] = {"ka", "to", "ri", "mu", "sen", "lo", "da", "vi", "ne", "shu",
                                     "pa", "gor", "el", "in", "tu", "ma", "re", "zo", "qui", "ba"};
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

inline std::string Join(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) {
    if (!s.empty()) s += ' ';
    s += w;
  }
  return s;
}

}  // namespace neardup::testing
