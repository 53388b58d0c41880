#include "torus_team.h"

#include <string>

#include "strata/sdk/error.h"

namespace strata::tpu_sim {
namespace {

std::vector<int> cores_of(const strata_team_desc_t& team) {
  std::vector<int> cores;
  for (uint32_t i = 0; i < team.local_count; ++i) cores.push_back(team.local_devices[i].index);
  return cores;
}

TeamGrid grid_of(const Torus& torus, const std::vector<int>& cores) {
  std::string why;
  auto grid = TeamGrid::of(torus, cores, &why);
  if (!grid) throw sdk::InvalidArgument("tpu_sim team: " + why);
  return *grid;
}

}  // namespace

TorusTeam::TorusTeam(TpuDeviceType& cores, const strata_team_desc_t& team)
    : cores_(cores), grid_(grid_of(cores.torus(), cores_of(team))), core_(cores_of(team)) {
  scratch_.resize(core_.size());
  try {
    for (int c : core_) events_.push_back(cores_.event_create(c));
  } catch (...) {
    for (strata_event_t e : events_) cores_.event_destroy(e);
    throw;
  }
}

TorusTeam::~TorusTeam() {
  // Operations drain their work before they are destroyed, and the team is
  // destroyed after its operations, so no core still uses these.
  for (strata_event_t e : events_) cores_.event_destroy(e);
  for (size_t r = 0; r < scratch_.size(); ++r) cores_.free(core_[r], scratch_[r].data);
}

char* TorusTeam::scratch(int replica, uint64_t bytes) {
  Scratch& s = scratch_[static_cast<size_t>(replica)];
  if (s.bytes < bytes) {
    cores_.free(core(replica), s.data);
    s = Scratch{};
    s.data = cores_.allocate(core(replica), bytes);
    s.bytes = bytes;
  }
  return static_cast<char*>(s.data);
}

}  // namespace strata::tpu_sim
