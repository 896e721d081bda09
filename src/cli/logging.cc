#include "cli/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>

namespace neardup::cli {

namespace {

// "neardup: <message>\n", the message capped so that the line, without its
// line break, has at most kMaxLogLine bytes.
class CappedFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    std::string line(msg.logger_name.data(), msg.logger_name.size());
    line.append(": ").append(msg.payload.data(), msg.payload.size());
    line = CapLine(line, kMaxLogLine);
    line.push_back('\n');
    dest.append(line.data(), line.data() + line.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<CappedFormatter>(); }
};

// Whether byte `c` continues a UTF-8 sequence.
bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::string CapLine(std::string_view line, size_t max) {
  if (line.size() <= max) return std::string(line);
  constexpr std::string_view kCut = " ... ";
  size_t head = (max - kCut.size()) / 2;
  size_t tail = line.size() - (max - kCut.size() - head);
  while (head > 0 && IsContinuation(line[head])) --head;
  while (tail < line.size() && IsContinuation(line[tail])) ++tail;
  return std::string(line.substr(0, head)).append(kCut).append(line.substr(tail));
}

void SetUpLogging(int verbosity) {
  auto logger = spdlog::get("neardup");
  if (!logger) logger = spdlog::stderr_logger_mt("neardup");
  logger->set_formatter(std::make_unique<CappedFormatter>());
  spdlog::set_default_logger(logger);
  spdlog::level::level_enum level = spdlog::level::warn;
  if (verbosity < 0) level = spdlog::level::err;
  if (verbosity == 1) level = spdlog::level::info;
  if (verbosity >= 2) level = spdlog::level::debug;
  spdlog::set_level(level);
  logger->flush_on(spdlog::level::trace);
}

}  // namespace neardup::cli
