// Sizes and durations with units, as written in configs and on command
// lines: "32MiB", "4 KiB", "1GB", "300s", "250ms", "5m".
#ifndef STRATA_CORE_COMMON_UNITS_H_
#define STRATA_CORE_COMMON_UNITS_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/common/status.h"

namespace strata {

// Bytes. Units: B, KB/MB/GB/TB (powers of 1000), KiB/MiB/GiB/TiB (powers of
// 1024), K/M/G as binary shorthands; a bare number is bytes.
StatusOr<uint64_t> parse_size(std::string_view text);

// Units: ns, us, ms, s, m, h. A bare number is refused: "30" could mean
// anything, and a silent guess is how deadlines go wrong.
StatusOr<std::chrono::nanoseconds> parse_duration(std::string_view text);

// "64 MiB", "1.5 KiB", "8 B": the largest binary unit that keeps >= 1.
std::string format_size(uint64_t bytes);
// "1.25 ms", "300 s", "850 ns".
std::string format_duration(std::chrono::nanoseconds d);

}  // namespace strata

#endif  // STRATA_CORE_COMMON_UNITS_H_
