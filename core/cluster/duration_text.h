// Durations as people read them in error messages: "120 s", "3.2 s",
// "0.05 s". Shared by the stores, rendezvous and the health check so their
// messages look alike.
#ifndef STRATA_CORE_CLUSTER_DURATION_TEXT_H_
#define STRATA_CORE_CLUSTER_DURATION_TEXT_H_

#include <chrono>
#include <cstdio>
#include <string>

namespace strata {

inline std::string seconds_text(std::chrono::nanoseconds d) {
  const double s = std::chrono::duration<double>(d).count();
  char buf[32];
  if (s >= 10) {
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  } else if (s >= 0.1 || s <= 0) {
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f s", s);
  }
  return buf;
}

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_DURATION_TEXT_H_
