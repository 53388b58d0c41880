#include "core/common/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

#include "strata/sdk/size_text.h"

namespace strata {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "12.5 MiB" into 12.5 and "MiB".
StatusOr<std::pair<double, std::string_view>> split_number(std::string_view text,
                                                           std::string_view what) {
  text = trim(text);
  size_t end = 0;
  while (end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) {
    ++end;
  }
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + end, value);
  if (end == 0 || ec != std::errc() || ptr != text.data() + end) {
    return InvalidArgumentError("'" + std::string(text) + "' is not a " +
                                std::string(what));
  }
  return std::pair{value, trim(text.substr(end))};
}

}  // namespace

StatusOr<uint64_t> parse_size(std::string_view text) {
  auto parsed = split_number(text, "size (e.g. 4096, 64KiB, 32MiB, 1GB)");
  if (!parsed.ok()) return parsed.status();
  const auto [value, unit] = *parsed;
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"", 1},         {"B", 1},           {"KB", 1e3},        {"MB", 1e6},
      {"GB", 1e9},     {"TB", 1e12},       {"KiB", 1024.0},    {"MiB", 1048576.0},
      {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},        {"K", 1024.0},
      {"M", 1048576.0}, {"G", 1073741824.0}};
  for (const auto& [name, scale] : kUnits) {
    if (unit == name) {
      const double bytes = value * scale;
      if (bytes > 1.8e19) return InvalidArgumentError("size '" + std::string(text) + "' is too large");
      if (bytes != std::floor(bytes)) {
        return InvalidArgumentError("size '" + std::string(text) +
                                    "' is not a whole number of bytes");
      }
      return static_cast<uint64_t>(bytes);
    }
  }
  return InvalidArgumentError("unknown size unit '" + std::string(unit) + "' in '" +
                              std::string(text) +
                              "'; expected B, KB, MB, GB, TB, KiB, MiB, GiB or TiB");
}

StatusOr<std::chrono::nanoseconds> parse_duration(std::string_view text) {
  auto parsed = split_number(text, "duration (e.g. 300s, 250ms, 5m)");
  if (!parsed.ok()) return parsed.status();
  const auto [value, unit] = *parsed;
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};
  if (unit.empty()) {
    return InvalidArgumentError("duration '" + std::string(text) +
                                "' has no unit; write e.g. '" + std::string(text) +
                                "s' or '" + std::string(text) + "ms'");
  }
  for (const auto& [name, scale] : kUnits) {
    if (unit == name) {
      const double ns = value * scale;
      if (ns > 9.2e18) return InvalidArgumentError("duration '" + std::string(text) + "' is too long");
      return std::chrono::nanoseconds(static_cast<int64_t>(ns));
    }
  }
  return InvalidArgumentError("unknown duration unit '" + std::string(unit) + "' in '" +
                              std::string(text) + "'; expected ns, us, ms, s, m or h");
}

std::string format_size(uint64_t bytes) { return sdk::size_text(bytes); }

std::string format_duration(std::chrono::nanoseconds d) {
  const double ns = static_cast<double>(d.count());
  char buf[32];
  if (ns < 1e3) {
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  } else if (ns < 1e6) {
    std::snprintf(buf, sizeof buf, "%.2f us", ns / 1e3);
  } else if (ns < 1e9) {
    std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  } else if (ns < 99.95e9) {
    std::snprintf(buf, sizeof buf, "%.3g s", ns / 1e9);
  } else {  // %g would switch to "3.6e+03 s" from 1000 s on
    std::snprintf(buf, sizeof buf, "%.0f s", ns / 1e9);
  }
  return buf;
}

}  // namespace strata
