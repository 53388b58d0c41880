// Byte counts as people read them in errors and logs ("64 MiB", "1.50 KiB",
// "8 B"): core and plugins word their limits the same way, so a plugin's
// refusal reads like core's (the grpc store's quota errors are compared with
// the TCP store's word for word).
#ifndef STRATA_SDK_SIZE_TEXT_H_
#define STRATA_SDK_SIZE_TEXT_H_

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace strata::sdk {

// The largest binary unit that keeps the value >= 1; two decimals unless whole.
inline std::string size_text(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, value == std::floor(value) ? "%.0f %s" : "%.2f %s", value,
                kUnits[unit]);
  return text;
}

}  // namespace strata::sdk

#endif  // STRATA_SDK_SIZE_TEXT_H_
