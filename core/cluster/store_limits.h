// How much one job may make its TCP store hold (cluster.store_max_* in the
// config, docs/CONFIG.md). The store lives in rank 0's memory, so without a
// bound any member of the job could grow that process until it is killed.
// The defaults are far above what rendezvous traffic needs (addresses,
// counters, a few KiB per team), so a real job never meets them.
#ifndef STRATA_CORE_CLUSTER_STORE_LIMITS_H_
#define STRATA_CORE_CLUSTER_STORE_LIMITS_H_

#include <cstdint>

namespace strata {

struct StoreLimits {
  // The protocol's own ceiling on one value (tcp_store_wire.h keeps its
  // frames below it); store_max_value may be lower, never higher.
  static constexpr uint64_t kProtocolMaxValueBytes = uint64_t{16} << 20;

  // Keys, values and bookkeeping together, plus requests being received.
  uint64_t max_bytes = uint64_t{256} << 20;
  uint64_t max_keys = 1'000'000;
  uint64_t max_value_bytes = kProtocolMaxValueBytes;
};

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_STORE_LIMITS_H_
