#include "local_algorithm.h"

#include "strata/sdk/device_table.h"

namespace strata::hierarchical_copy {

CostModel CostModel::of(const strata_call_desc_t& call) {
  CostModel model;
  const auto table = sdk::DeviceTable::of(call.device_type);
  const auto& team = *call.team;
  const int a = team.local_devices[0].index;
  const int b = team.local_devices[team.local_count > 1 ? 1 : 0].index;
  model.bandwidth = table.link_bandwidth(a, b);
  const strata_device_props_t props = table.props(a);
  if (props.launch_latency > 0) model.launch = model.hop = props.launch_latency;
  if (props.parallel_streams > 0) model.parallel = static_cast<int>(props.parallel_streams);
  else model.parallel = static_cast<int>(team.local_count);
  return model;
}

std::optional<std::string> LocalAlgorithm::require_peer_access(const strata_call_desc_t& call) {
  const auto table = sdk::DeviceTable::of(call.device_type);
  const auto& team = *call.team;
  for (uint32_t i = 0; i < team.local_count; ++i) {
    for (uint32_t j = 0; j < team.local_count; ++j) {
      if (!table.can_access_peer(team.local_devices[i].index, team.local_devices[j].index)) {
        return std::string(table.name()) + ":" + std::to_string(team.local_devices[i].index) +
               " cannot read " + table.name() + ":" +
               std::to_string(team.local_devices[j].index) +
               "'s memory; this algorithm needs peer access between every pair";
      }
    }
  }
  return std::nullopt;
}

}  // namespace strata::hierarchical_copy
