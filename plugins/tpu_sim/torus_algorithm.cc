#include "torus_algorithm.h"

#include <vector>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/types.h"

namespace strata::tpu_sim {

std::optional<TeamGrid> TorusAlgorithm::grid_of(const strata_team_desc_t& team,
                                                std::string* why) const {
  std::vector<int> cores;
  for (uint32_t i = 0; i < team.local_count; ++i) {
    if (team.local_devices[i].type != slice_.type_id) {
      *why = "replica " + std::to_string(i) + " is not on a tpu core of this plugin";
      return std::nullopt;
    }
    cores.push_back(team.local_devices[i].index);
  }
  return TeamGrid::of(slice_.cores->torus(), cores, why);
}

std::optional<std::string> TorusAlgorithm::decline(const strata_call_desc_t& call) const {
  if (call.device_type != slice_.type_id) {
    std::string type = "device type " + std::to_string(call.device_type);
    try {
      type = sdk::Host::device_type(call.device_type)->name;
    } catch (const sdk::Error&) {
      // keep the id: the message is still clear without the name
    }
    return "the torus collectives run only on the simulated 'tpu' cores, not on " + type;
  }
  if (sdk::dtype_size(call.dtype) == 0) {
    return "unknown dtype " + std::to_string(call.dtype);
  }
  if ((call.op == STRATA_ALL_REDUCE) && (call.redop < 0 || call.redop >= STRATA_REDOP_COUNT)) {
    return "unknown reduction operator " + std::to_string(call.redop);
  }
  std::string why;
  if (!grid_of(*call.team, &why)) return why;
  return std::nullopt;
}

std::optional<double> TorusAlgorithm::estimate(const strata_call_desc_t& call) const {
  std::string why;
  auto grid = grid_of(*call.team, &why);
  if (!grid) return std::nullopt;
  return model(TorusCostModel::of(slice_.cores->options()), *grid, call);
}

std::unique_ptr<sdk::TeamState> TorusAlgorithm::create_team(const strata_team_desc_t& team) {
  std::string why;
  if (!grid_of(team, &why)) throw sdk::InvalidArgument("tpu_sim team: " + why);
  return std::make_unique<TorusTeam>(*slice_.cores, team);
}

}  // namespace strata::tpu_sim
