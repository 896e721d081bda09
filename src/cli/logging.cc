#include "cli/logging.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace neardup::cli {

void SetUpLogging(int verbosity) {
  auto logger = spdlog::get("neardup");
  if (!logger) logger = spdlog::stderr_logger_mt("neardup");
  logger->set_pattern("%n: %v");
  spdlog::set_default_logger(logger);
  spdlog::level::level_enum level = spdlog::level::warn;
  if (verbosity < 0) level = spdlog::level::err;
  if (verbosity == 1) level = spdlog::level::info;
  if (verbosity >= 2) level = spdlog::level::debug;
  spdlog::set_level(level);
  logger->flush_on(spdlog::level::trace);
}

}  // namespace neardup::cli
