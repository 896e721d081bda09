#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>
#include <iterator>
#include <string>

namespace neardup::cli {

std::string Counted(uint64_t n, const std::string& singular, const std::string& plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural.empty() ? singular + "s" : plural);
}

std::string ShownSize(uint64_t bytes) {
  if (bytes < 1000) return Counted(bytes, "byte");
  static const char* const kUnits[] = {"kB", "MB", "GB", "TB", "PB", "EB"};
  double value = static_cast<double>(bytes) / 1000;
  size_t unit = 0;
  while (value >= 999.5 && unit + 1 < std::size(kUnits)) {
    value /= 1000;
    ++unit;
  }
  char shown[32];
  std::snprintf(shown, sizeof shown, value < 99.95 ? "%.1f %s" : "%.0f %s", value, kUnits[unit]);
  return shown;
}

namespace {

// "45s", "12m05s", "3h20m".
std::string ShownDuration(double seconds) {
  const auto s = static_cast<unsigned long long>(seconds + 0.5);
  char shown[32];
  if (s < 60) {
    std::snprintf(shown, sizeof shown, "%llus", s);
  } else if (s < 3600) {
    std::snprintf(shown, sizeof shown, "%llum%02llus", s / 60, s % 60);
  } else {
    std::snprintf(shown, sizeof shown, "%lluh%02llum", s / 3600, s / 60 % 60);
  }
  return shown;
}

}  // namespace

std::string ProgressText(const Progress& p, double stage_seconds) {
  char line[256];
  if (p.stage == Stage::kReading && p.inputs_total > 0) {
    // The share done by bytes when their total is known (files differ in
    // size), else by files.
    const double share = p.bytes_total > 0 ? static_cast<double>(p.bytes) / static_cast<double>(p.bytes_total)
                                           : static_cast<double>(p.inputs_done) / static_cast<double>(p.inputs_total);
    const double rate = p.seconds > 0 ? static_cast<double>(p.documents) / p.seconds : 0;
    std::string left;
    if (share > 0.001 && share < 1 && stage_seconds >= 1) {
      left = ", " + ShownDuration(stage_seconds * (1 - share) / share) + " left";
    }
    std::snprintf(line, sizeof line, "reading %.0f%% (%llu/%llu files, %s), %.0f docs/s%s", std::min(share, 1.0) * 100,
                  static_cast<unsigned long long>(p.inputs_done), static_cast<unsigned long long>(p.inputs_total),
                  ShownSize(p.bytes).c_str(), rate, left.c_str());
  } else if (p.stage == Stage::kVerifying && p.reread_total > 0) {
    const double share = static_cast<double>(p.reread) / static_cast<double>(p.reread_total);
    std::string left;
    if (share > 0.001 && share < 1 && stage_seconds >= 1) {
      left = ", " + ShownDuration(stage_seconds * (1 - share) / share) + " left";
    }
    std::snprintf(line, sizeof line, "verifying %.0f%% (%llu/%s read again), %.1f s%s", std::min(share, 1.0) * 100,
                  static_cast<unsigned long long>(p.reread), Counted(p.reread_total, "document").c_str(), p.seconds,
                  left.c_str());
  } else if (p.stage == Stage::kClustering && p.linked > 0) {
    std::snprintf(line, sizeof line, "clustering, %s linked, %.1f s", Counted(p.linked, "pair").c_str(), p.seconds);
  } else {
    std::snprintf(line, sizeof line, "%s, %s, %s, %.1f s", ToString(p.stage), Counted(p.documents, "document").c_str(),
                  ShownSize(p.bytes).c_str(), p.seconds);
  }
  return line;
}

void ProgressLine::Update(const Progress& p) {
  if (!enabled_ || p.stage == Stage::kDone) return;
  const auto now = std::chrono::steady_clock::now();
  const bool new_stage = p.stage != stage_;
  if (new_stage) {
    stage_ = p.stage;
    stage_start_ = now;
  }
  // A terminal shows each stage as it begins; a log gets a line at most
  // every kPlainEvery.
  const auto every = terminal_ ? std::chrono::milliseconds(200) : std::chrono::milliseconds(kPlainEvery);
  if (written_ && now - last_ < every && !(terminal_ && new_stage)) return;
  last_ = now;
  Write(ProgressText(p, std::chrono::duration<double>(now - stage_start_).count()));
}

void ProgressLine::Show(const std::string& what) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!terminal_ && written_ && now - last_ < kPlainEvery) return;
  last_ = now;
  Write(what);
}

void ProgressLine::Tick(const std::string& what) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const auto every = terminal_ ? std::chrono::milliseconds(200) : std::chrono::milliseconds(kPlainEvery);
  if (written_ && now - last_ < every) return;
  last_ = now;
  Write(what);
}

void ProgressLine::Write(const std::string& text) {
  const std::string s = terminal_ ? "\rneardup: " + text + "\033[K" : "neardup: " + text + "\n";
  if (::write(STDERR_FILENO, s.data(), s.size()) < 0) enabled_ = false;
  shown_ = terminal_;
  written_ = true;
}

void ProgressLine::Clear() {
  if (!shown_) return;
  static const char kClear[] = "\r\033[K";
  if (::write(STDERR_FILENO, kClear, sizeof kClear - 1) < 0) enabled_ = false;
  shown_ = false;
}

}  // namespace neardup::cli
