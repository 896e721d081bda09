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

void ProgressLine::Update(const Progress& p) {
  if (!enabled_ || p.stage == Stage::kDone) return;
  const auto now = std::chrono::steady_clock::now();
  if (shown_ && now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  char line[256];
  const double mb = static_cast<double>(p.bytes) / 1e6;
  const double rate = p.seconds > 0 ? static_cast<double>(p.documents) / p.seconds : 0;
  if (p.stage == Stage::kReading && p.inputs_total > 0) {
    std::snprintf(line, sizeof line, "\rneardup: reading %llu/%llu files, %.1f MB, %.0f docs/s\033[K",
                  static_cast<unsigned long long>(p.inputs_done),
                  static_cast<unsigned long long>(p.inputs_total), mb, rate);
  } else {
    std::snprintf(line, sizeof line, "\rneardup: %s, %llu documents, %.1f MB, %.1f s\033[K", ToString(p.stage),
                  static_cast<unsigned long long>(p.documents), mb, p.seconds);
  }
  const std::string s(line);
  if (::write(STDERR_FILENO, s.data(), s.size()) < 0) enabled_ = false;
  shown_ = true;
}

void ProgressLine::Clear() {
  if (!shown_) return;
  static const char kClear[] = "\r\033[K";
  if (::write(STDERR_FILENO, kClear, sizeof kClear - 1) < 0) enabled_ = false;
  shown_ = false;
}

}  // namespace neardup::cli
