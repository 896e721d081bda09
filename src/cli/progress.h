// ProgressLine: the progress of a scan on stderr.
//
// On a terminal, one self-rewriting line ("\r...\e[K"), at most five updates
// a second, cleared before anything else is written to stderr. Elsewhere
// (--progress into a file or a pipe), plain lines with no control
// characters, at most one every kPlainEvery, never cleared: a log to read
// later. Either way shown only when enabled.
//
//   reading 42% (2017/26694 files, 79.1 MB), 2505 docs/s, 1m12s left
//   verifying, 26694 documents, 12.5 s
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "neardup/scan.h"

namespace neardup::cli {

// How counts and sizes read on stderr (the progress line, the summary).
// "1 document", "2 documents": `plural` is `singular` + "s" unless given.
std::string Counted(uint64_t n, const std::string& singular, const std::string& plural = "");
// Decimal units, three significant figures at most: "0 bytes", "1 byte",
// "999 bytes", "1.5 kB", "3.5 MB", "79.1 MB", "296 MB", "1.2 GB".
std::string ShownSize(uint64_t bytes);

// The text of a progress line for `p` (no control characters), with the
// time left from the share done, when the total is known, and `stage_seconds`
// (seconds since its stage began).
std::string ProgressText(const Progress& p, double stage_seconds);

class ProgressLine {
 public:
  // `terminal`: stderr is a terminal (rewrite one line), else plain lines.
  ProgressLine(bool enabled, bool terminal) : enabled_(enabled), terminal_(terminal) {}
  ~ProgressLine() { Clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void Update(const Progress& p);
  // A phase of the front end (writing the output), shown at once.
  void Show(const std::string& what);
  // The same phase moving on (a counter): at most five a second on a
  // terminal, one every kPlainEvery elsewhere.
  void Tick(const std::string& what);
  void Clear();

  static constexpr std::chrono::seconds kPlainEvery{5};

 private:
  void Write(const std::string& text);

  bool enabled_;
  bool terminal_;
  bool shown_ = false;    // a terminal line is on screen
  bool written_ = false;  // a line was written (plain: rate limit from last_)
  std::chrono::steady_clock::time_point last_{};
  Stage stage_ = Stage::kDone;
  std::chrono::steady_clock::time_point stage_start_{};
};

}  // namespace neardup::cli
