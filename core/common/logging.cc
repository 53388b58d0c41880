#include "core/common/logging.h"

#include <spdlog/sinks/stdout_sinks.h>

#include <cstdlib>
#include <memory>
#include <string_view>

namespace strata {
namespace {

spdlog::level::level_enum level_from_env() {
  const char* env = std::getenv("STRATA_LOG_LEVEL");
  const std::string_view v = env == nullptr ? "warning" : env;
  if (v == "debug" || v == "trace") return spdlog::level::debug;
  if (v == "info") return spdlog::level::info;
  if (v == "error") return spdlog::level::err;
  if (v == "off") return spdlog::level::off;
  return spdlog::level::warn;
}

}  // namespace

spdlog::logger& logger() {
  static const std::shared_ptr<spdlog::logger> instance = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    auto l = std::make_shared<spdlog::logger>("strata", sink);
    l->set_pattern("[strata %L] %v");
    l->set_level(level_from_env());
    return l;
  }();
  return *instance;
}

}  // namespace strata
