// Per-team state of every hierarchical_copy algorithm: the device type's
// table, one reusable event per replica, per-replica scratch, and whether
// every device can read every other's memory.
//
// One event per replica is enough: stream_wait_event waits for the record
// that was latest *when it was called* (CUDA's rule), so an event can be
// re-recorded as an operation advances while earlier waits stay correct.
#ifndef STRATA_PLUGINS_HIERARCHICAL_COPY_LOCAL_TEAM_H_
#define STRATA_PLUGINS_HIERARCHICAL_COPY_LOCAL_TEAM_H_

#include <memory>
#include <vector>

#include "strata/sdk/algorithm.h"
#include "strata/sdk/device_table.h"

namespace strata::hierarchical_copy {

class LocalTeam final : public sdk::TeamState {
 public:
  explicit LocalTeam(const strata_team_desc_t& team);

  const sdk::DeviceTable& table() const { return table_; }
  int size() const { return static_cast<int>(devices_.size()); }
  int device(int replica) const { return devices_[static_cast<size_t>(replica)]; }
  sdk::DeviceEvent& event(int replica) { return *events_[static_cast<size_t>(replica)]; }
  bool peer_access(int from, int to) const {
    return peer_[static_cast<size_t>(from * size() + to)];
  }
  bool all_peers() const { return all_peers_; }

  // Scratch on `replica`'s device, `slot` distinguishing concurrent uses.
  void* scratch(int replica, int slot, uint64_t bytes);

 private:
  sdk::DeviceTable table_;
  std::vector<int> devices_;
  std::vector<std::unique_ptr<sdk::DeviceEvent>> events_;
  std::vector<bool> peer_;
  bool all_peers_ = true;
  std::vector<std::vector<sdk::DeviceBuffer>> scratch_;  // [replica][slot]
};

}  // namespace strata::hierarchical_copy

#endif  // STRATA_PLUGINS_HIERARCHICAL_COPY_LOCAL_TEAM_H_
