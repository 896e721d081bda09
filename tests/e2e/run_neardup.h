// The one way the end-to-end tests run the neardup binary this build made:
// RunNeardup(args, dir) is RunProcess({NeardupBinary(), args...}, dir), with
// what a test changes (stdin, the working folder, a memory measure) spelled
// at the call site: RunNeardup(args, dir, RunOptions().Stdin(path)).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "test_paths.h"
#include "test_util.h"

namespace neardup::testing {

struct RunOptions {
  // What the run reads on stdin.
  std::string stdin_path = "/dev/null";
  // When set, the run starts in this folder (relative paths are spelled from
  // there): the command becomes /bin/sh -c 'cd "$0" && exec "$@"' CWD neardup ARGS.
  std::string cwd;
  // When set, receives the run's peak resident set in KiB (see RunProcess).
  long* max_rss_kb = nullptr;

  RunOptions& Stdin(std::string path) {
    stdin_path = std::move(path);
    return *this;
  }
  RunOptions& In(std::string folder) {
    cwd = std::move(folder);
    return *this;
  }
  RunOptions& MaxRss(long* kb) {
    max_rss_kb = kb;
    return *this;
  }
};

// Runs `neardup ARGS...` with stdout and stderr captured through files in
// `dir`; the exit code is 128 + N for a run killed by signal N.
inline RunResult RunNeardup(const std::vector<std::string>& args, const std::string& dir, const RunOptions& opts = {}) {
  std::vector<std::string> argv;
  if (!opts.cwd.empty()) argv = {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", opts.cwd};
  argv.push_back(NeardupBinary());
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, dir, opts.stdin_path, opts.max_rss_kb);
}

// `head` followed by `tail`: a command's fixed words, then a test's own.
inline std::vector<std::string> With(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

}  // namespace neardup::testing
