// Base of every hierarchical_copy algorithm: they all run within one process
// over any device type that offers copy and reduce, keep a LocalTeam, and
// price themselves with the same cost model.
#ifndef STRATA_PLUGINS_HIERARCHICAL_COPY_LOCAL_ALGORITHM_H_
#define STRATA_PLUGINS_HIERARCHICAL_COPY_LOCAL_ALGORITHM_H_

#include <memory>
#include <optional>
#include <string>

#include "local_operation.h"
#include "local_team.h"
#include "strata/sdk/algorithm.h"

namespace strata::hierarchical_copy {

// Time of the basic steps on one device stream, from the device type's
// link bandwidth plus fixed per-step overheads measured on the virtual CPU
// devices (docs/PERFORMANCE.md). Only ratios matter: AUTO compares them.
struct CostModel {
  double bandwidth = 10e9;  // bytes/s one stream copies
  double hop = 6e-6;        // s for one stream to wait on another
  double task = 0.3e-6;     // s to enqueue and start one step

  static CostModel of(const strata_call_desc_t& call);
  double copy(uint64_t bytes) const { return task + static_cast<double>(bytes) / bandwidth; }
  // Combining k sources into one output reads k and writes one buffer: that
  // is (k + 1) / 2 copies' worth of memory traffic.
  double reduce(uint64_t bytes, int sources) const {
    return task + (sources + 1) / 2.0 * static_cast<double>(bytes) / bandwidth;
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
