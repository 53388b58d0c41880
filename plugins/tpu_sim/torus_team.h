// Per-team state of every tpu_sim algorithm: the team's grid on the torus,
// one reusable event per replica, and one scratch buffer per replica that
// ring steps pull chunks into.
//
// One event per replica is enough: a stream waits for the record that was
// latest when the wait was enqueued (CUDA's rule), so an event can be
// re-recorded after every ring step while earlier waits stay correct.
#ifndef STRATA_PLUGINS_TPU_SIM_TORUS_TEAM_H_
#define STRATA_PLUGINS_TPU_SIM_TORUS_TEAM_H_

#include <cstdint>
#include <vector>

#include "strata/sdk/algorithm.h"
#include "torus.h"
#include "tpu_device_type.h"

namespace strata::tpu_sim {

class TorusTeam final : public sdk::TeamState {
 public:
  // Throws sdk::Error when the team is not a rectangle of the torus.
  TorusTeam(TpuDeviceType& cores, const strata_team_desc_t& team);
  ~TorusTeam() override;
  TorusTeam(const TorusTeam&) = delete;
  TorusTeam& operator=(const TorusTeam&) = delete;

  TpuDeviceType& cores() { return cores_; }
  const TeamGrid& grid() const { return grid_; }
  int size() const { return static_cast<int>(core_.size()); }
  int core(int replica) const { return core_[static_cast<size_t>(replica)]; }
  strata_event_t event(int replica) { return events_[static_cast<size_t>(replica)]; }

  // At least `bytes` of scratch on `replica`'s core. Reused across calls;
  // one call asks once per replica, so it never moves under queued work.
  char* scratch(int replica, uint64_t bytes);

 private:
  struct Scratch {
    void* data = nullptr;
    uint64_t bytes = 0;
  };
  TpuDeviceType& cores_;
  TeamGrid grid_;
  std::vector<int> core_;
  std::vector<strata_event_t> events_;
  std::vector<Scratch> scratch_;
};

}  // namespace strata::tpu_sim

#endif  // STRATA_PLUGINS_TPU_SIM_TORUS_TEAM_H_
