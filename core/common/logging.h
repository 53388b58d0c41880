// Core's logger: one line per event on stderr, level from STRATA_LOG_LEVEL
// (debug, info, warning, error, off; default warning).
#ifndef STRATA_CORE_COMMON_LOGGING_H_
#define STRATA_CORE_COMMON_LOGGING_H_

#include <spdlog/spdlog.h>

namespace strata {

// The "strata" logger, created on first use.
spdlog::logger& logger();

}  // namespace strata

#define STRATA_LOG_DEBUG(...) ::strata::logger().debug(__VA_ARGS__)
#define STRATA_LOG_INFO(...) ::strata::logger().info(__VA_ARGS__)
#define STRATA_LOG_WARN(...) ::strata::logger().warn(__VA_ARGS__)
#define STRATA_LOG_ERROR(...) ::strata::logger().error(__VA_ARGS__)

#endif  // STRATA_CORE_COMMON_LOGGING_H_
