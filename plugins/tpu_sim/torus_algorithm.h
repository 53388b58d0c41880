// Base of every tpu_sim algorithm: they run within one process on the
// plugin's own "tpu" cores, keep a TorusTeam, and price themselves with the
// interconnect model (torus_cost_model.h). Anything else — another device
// type, a team that is not a rectangle of the torus — is declined, so the
// selector moves on to a general algorithm.
#ifndef STRATA_PLUGINS_TPU_SIM_TORUS_ALGORITHM_H_
#define STRATA_PLUGINS_TPU_SIM_TORUS_ALGORITHM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "strata/sdk/algorithm.h"
#include "torus.h"
#include "torus_cost_model.h"
#include "torus_operation.h"
#include "torus_team.h"
#include "tpu_device_type.h"

namespace strata::tpu_sim {

// What every algorithm needs from the plugin: the cores and their type id.
struct Slice {
  TpuDeviceType* cores = nullptr;
  uint32_t type_id = 0;
};

class TorusAlgorithm : public sdk::Algorithm {
 public:
  TorusAlgorithm(Slice slice, std::string name, strata_op_t op, std::string description)
      : Algorithm(std::move(name), op, STRATA_SCOPE_LOCAL, std::move(description)),
        slice_(slice) {}

  std::optional<std::string> decline(const strata_call_desc_t& call) const override;
  std::optional<double> estimate(const strata_call_desc_t& call) const final;
  std::unique_ptr<sdk::TeamState> create_team(const strata_team_desc_t& team) override;

 protected:
  // The model's seconds for a call on `grid`, once decline() accepted it.
  virtual double model(const TorusCostModel& m, const TeamGrid& grid,
                       const strata_call_desc_t& call) const = 0;
  static TorusTeam& torus(sdk::TeamState* state) { return *static_cast<TorusTeam*>(state); }
  // The team's grid, or nullopt with the reason.
  std::optional<TeamGrid> grid_of(const strata_team_desc_t& team, std::string* why) const;

 private:
  Slice slice_;
};

}  // namespace strata::tpu_sim

#endif  // STRATA_PLUGINS_TPU_SIM_TORUS_ALGORITHM_H_
