#include "python/src/common/communicator.h"

#include <utility>

#include "core/runtime/runtime_report.h"

namespace strata::python {

StatusOr<std::shared_ptr<Communicator>> Communicator::local(std::shared_ptr<Runtime> runtime,
                                                            std::vector<std::string> devices,
                                                            CommunicationOptions options) {
  if (devices.empty()) devices = runtime->config().strategy.devices;
  if (devices.empty()) devices = {"cpu:0"};
  JobTeamSpec spec;
  for (const std::string& name : devices) {
    STRATA_ASSIGN_OR_RETURN(strata_device_t d, runtime->parse_device(name));
    if (!runtime->device_exists(d)) {
      return NotFoundError("device " + name + " does not exist in this process (config " +
                           runtime->config().source + "; `strata info` lists the devices)");
    }
    spec.devices.push_back(d);
  }
  spec.communication = std::move(options);
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<JobTeam> team, JobTeam::form(runtime, std::move(spec)));
  return std::make_shared<Communicator>(std::move(runtime), std::move(team));
}

StatusOr<std::shared_ptr<Communicator>> Communicator::join(std::shared_ptr<Runtime> runtime,
                                                           std::vector<std::string> devices,
                                                           CommunicationOptions options) {
  STRATA_ASSIGN_OR_RETURN(
      std::unique_ptr<JobTeam> team,
      JobTeam::join(runtime, std::move(devices), std::move(options), "strata.join()"));
  return std::make_shared<Communicator>(std::move(runtime), std::move(team));
}

StatusOr<std::shared_ptr<Communicator>> Communicator::join(std::shared_ptr<Runtime> runtime,
                                                           ClusterSpec cluster,
                                                           std::vector<std::string> devices,
                                                           CommunicationOptions options) {
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<JobTeam> team,
                          JobTeam::join(runtime, std::move(cluster), std::move(devices),
                                        std::move(options), "strata.distribute"));
  return std::make_shared<Communicator>(std::move(runtime), std::move(team));
}

Communicator::Communicator(std::shared_ptr<Runtime> runtime, std::unique_ptr<JobTeam> team)
    : runtime_(std::move(runtime)),
      devices_(team->devices()),
      rank_(team->rank()),
      world_(team->world()),
      team_(std::move(team)) {}

StatusOr<std::shared_ptr<JobTeam>> Communicator::team() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (team_ == nullptr) {
    return FailedPreconditionError("this communicator (" + describe() +
                                   ") was closed; make a new one");
  }
  return team_;
}

void Communicator::close() {
  std::shared_ptr<JobTeam> team;
  {
    std::lock_guard<std::mutex> lock(mu_);
    team = std::move(team_);
  }
  // Torn down here, outside the lock, unless a call still holds it.
}

std::vector<std::string> Communicator::device_names() const {
  std::vector<std::string> names;
  for (strata_device_t d : devices_) names.push_back(runtime_->device_name(d));
  return names;
}

std::string Communicator::describe() const {
  return "process " + std::to_string(rank_) + " of " + std::to_string(world_) + ", " +
         describe_devices(*runtime_, devices_);
}

}  // namespace strata::python
