// Where a rank's health lives in the job store, shared by HealthMonitor
// (which beats and reads it) and the TCP store server (which marks a rank
// whose connection dropped without a goodbye). One counter per rank at the
// store's root, "strata/health/<rank>", so a single add(key, 0) tells all:
// beats in the low bits, flags above them. Beats never reach 2^40 (a beat a
// millisecond would take 35 years).
#ifndef STRATA_CORE_CLUSTER_HEALTH_KEYS_H_
#define STRATA_CORE_CLUSTER_HEALTH_KEYS_H_

#include <cstdint>
#include <string>

namespace strata::health {

inline std::string key(int rank) { return "strata/health/" + std::to_string(rank); }

inline constexpr int64_t kBeat = 1;
inline constexpr int64_t kLeft = int64_t{1} << 40;      // the rank finished cleanly
inline constexpr int64_t kDeparted = int64_t{1} << 50;  // its store connection dropped

struct State {
  int64_t beats = 0;
  bool left = false;
  bool departed = false;
};

inline State decode(int64_t v) {
  State s;
  s.beats = v % kLeft;
  s.left = (v / kLeft) % (kDeparted / kLeft) != 0;
  s.departed = v / kDeparted != 0;
  return s;
}

}  // namespace strata::health

#endif  // STRATA_CORE_CLUSTER_HEALTH_KEYS_H_
