// Base of every hierarchical_copy algorithm: they all run within one process
// over any device type that offers copy and reduce, keep a LocalTeam, and
// price themselves with the same cost model.
#ifndef STRATA_PLUGINS_HIERARCHICAL_COPY_LOCAL_ALGORITHM_H_
#define STRATA_PLUGINS_HIERARCHICAL_COPY_LOCAL_ALGORITHM_H_

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "local_operation.h"
#include "local_team.h"
#include "strata/sdk/algorithm.h"

namespace strata::hierarchical_copy {

// What AUTO prices an algorithm with: the device type's own description
// (props.launch_latency, props.parallel_streams, link_bandwidth) plus a
// fixed cost per enqueued step. Only ratios matter: AUTO compares them.
struct CostModel {
  double bandwidth = 10e9;  // bytes/s one stream copies (each byte read and written)
  double launch = 8e-6;     // s for an idle stream to start work
  double hop = 8e-6;        // s for a stream to resume after waiting on another
  int parallel = 1;         // streams that run at full speed together
  double task = 0.3e-6;     // s to enqueue one step

  static CostModel of(const strata_call_desc_t& call);
  // Seconds to move `traffic` bytes (reads plus writes) on one stream.
  double traffic(double bytes) const { return bytes / (2 * bandwidth); }
  double copy(uint64_t bytes) const { return task + traffic(2.0 * static_cast<double>(bytes)); }
  // Combining k sources into one output reads k buffers and writes one.
  double reduce(uint64_t bytes, int sources) const {
    return task + traffic((sources + 1.0) * static_cast<double>(bytes));
  }
  // `streams` streams each doing `seconds` of work at once: they share
  // `parallel` engines, and each extra stream costs a launch.
  double concurrent(int streams, double seconds) const {
    const int engines = std::max(1, std::min(streams, parallel));
    return launch * streams + seconds * streams / engines;
  }
};

class LocalAlgorithm : public sdk::Algorithm {
 public:
  LocalAlgorithm(std::string name, strata_op_t op, std::string description)
      : Algorithm(std::move(name), op, STRATA_SCOPE_LOCAL, std::move(description)) {}

  std::unique_ptr<sdk::TeamState> create_team(const strata_team_desc_t& team) override {
    return std::make_unique<LocalTeam>(team);
  }

 protected:
  static LocalTeam& local(sdk::TeamState* state) { return *static_cast<LocalTeam*>(state); }
  // Declines when some pair of devices cannot read each other's memory.
  static std::optional<std::string> require_peer_access(const strata_call_desc_t& call);
};

}  // namespace strata::hierarchical_copy

#endif  // STRATA_PLUGINS_HIERARCHICAL_COPY_LOCAL_ALGORITHM_H_
