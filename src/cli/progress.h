// ProgressLine: one self-rewriting status line on stderr while a scan runs.
// Shown only when enabled (stderr is a terminal, or --progress), at most five
// updates a second, and cleared before anything else is written to stderr.
#pragma once

#include <chrono>

#include "neardup/scan.h"

namespace neardup::cli {

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
