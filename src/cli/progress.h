// ProgressLine: one self-rewriting status line on stderr while a scan runs.
// Shown only when enabled (stderr is a terminal, or --progress), at most five
// updates a second, and cleared before anything else is written to stderr.
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

class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  ~ProgressLine() { Clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void Update(const Progress& p);
  void Clear();

 private:
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace neardup::cli
