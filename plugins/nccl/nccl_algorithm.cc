#include "nccl_algorithm.h"

#include <algorithm>
#include <set>

#include "nccl_types.h"
#include "strata/sdk/types.h"

namespace strata::nccl {

NcclAlgorithm::NcclAlgorithm(strata_op_t op, std::string description,
                             std::shared_ptr<NcclContext> context)
    : Algorithm("native", op,
                STRATA_SCOPE_LOCAL | STRATA_SCOPE_CROSS_PROCESS |
                    STRATA_SCOPE_MULTI_DEVICE_PROCESSES,
                std::move(description)),
      context_(std::move(context)) {}

std::optional<std::string> NcclAlgorithm::decline(const strata_call_desc_t& call) const {
  if (call.device_type != context_->cuda_type_id) {
    return "NCCL moves GPU memory: the nccl plugin takes buffers on cuda devices only";
  }
  const strata_team_desc_t& team = *call.team;
  std::set<int> seen;
  for (uint32_t i = 0; i < team.local_count; ++i) {
    const int d = team.local_devices[i].index;
    if (!seen.insert(d).second) {
      return "cuda:" + std::to_string(d) +
             " holds two replicas of this process; NCCL needs a GPU of its own per rank";
    }
    if (d < 0 || d >= context_->devices->count()) {
      return "no cuda:" + std::to_string(d) + " in this process (it sees " +
             std::to_string(context_->devices->count()) + " GPUs)";
    }
  }
  const auto redop = reduces() ? std::optional(call.redop) : std::nullopt;
  return unsupported(call.dtype, redop, context_->nccl_version);
}

std::optional<double> NcclAlgorithm::estimate(const strata_call_desc_t& call) const {
  const strata_team_desc_t& team = *call.team;
  const int n = std::max(1, team.replica_count);
  double bytes = static_cast<double>(call.count * sdk::dtype_size(call.dtype));
  if (call.op == STRATA_ALL_GATHER || call.op == STRATA_REDUCE_SCATTER) bytes *= n;
  double beta = context_->beta;
  if (team.process_count == 1) {
    // Only this process's topology: deterministic, since only one rank
    // selects (rule 5). A ring is as fast as its slowest hop.
    double slowest = 0;
    for (uint32_t i = 0; i < team.local_count; ++i) {
      const int a = team.local_devices[i].index;
      const int b = team.local_devices[(i + 1) % team.local_count].index;
      if (a == b) continue;
      const double bw = context_->devices->topology().bandwidth(a, b);
      slowest = slowest == 0 ? bw : std::min(slowest, bw);
    }
    if (slowest > 0) beta = 1.0 / slowest;
  }
  return cost(bytes, n, context_->alpha, beta, context_->gamma);
}

std::unique_ptr<sdk::TeamState> NcclAlgorithm::create_team(const strata_team_desc_t& team) {
  return std::make_unique<NcclTeam>(context_->registry.get(context_->devices, team));
}

}  // namespace strata::nccl
