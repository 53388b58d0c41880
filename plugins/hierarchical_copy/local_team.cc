#include "local_team.h"

namespace strata::hierarchical_copy {

LocalTeam::LocalTeam(const strata_team_desc_t& team)
    : table_(sdk::DeviceTable::of(team.local_devices[0].type)) {
  for (uint32_t i = 0; i < team.local_count; ++i) {
    devices_.push_back(team.local_devices[i].index);
  }
  for (int r = 0; r < size(); ++r) {
    events_.push_back(std::make_unique<sdk::DeviceEvent>(table_, device(r)));
  }
  peer_.resize(static_cast<size_t>(size() * size()));
  for (int a = 0; a < size(); ++a) {
    for (int b = 0; b < size(); ++b) {
      const bool ok = table_.can_access_peer(device(a), device(b));
      peer_[static_cast<size_t>(a * size() + b)] = ok;
      all_peers_ = all_peers_ && ok;
    }
  }
  scratch_.resize(static_cast<size_t>(size()));
}

void* LocalTeam::scratch(int replica, int slot, uint64_t bytes) {
  auto& slots = scratch_[static_cast<size_t>(replica)];
  if (slots.size() <= static_cast<size_t>(slot)) slots.resize(static_cast<size_t>(slot) + 1);
  sdk::DeviceBuffer& buf = slots[static_cast<size_t>(slot)];
  if (buf.bytes() < bytes) buf = sdk::DeviceBuffer(table_, device(replica), bytes);
  return buf.data();
}

}  // namespace strata::hierarchical_copy
