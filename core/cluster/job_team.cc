#include "core/cluster/job_team.h"

#include <utility>

#include "core/cluster/job_store.h"
#include "core/cluster/resolve.h"
#include "core/common/logging.h"

namespace strata {

// Owned jointly by the JobTeam and the team's health check, so it outlives
// every collective that may still ask for health, whoever holds the ops.
struct JobTeam::Membership {
  std::unique_ptr<Store> store;
  std::unique_ptr<HealthMonitor> health;

  ~Membership() {
    // A clean exit is not a death: peers still finishing must not report
    // this process dead once its heartbeats stop.
    if (health != nullptr) {
      Status left = health->leave();
      if (!left.ok()) STRATA_LOG_DEBUG("leaving the job: {}", left.to_string());
    }
    health.reset();
    store.reset();
  }
};

namespace {

StatusOr<uint64_t> next_team_id(Store& store, int rank) {
  STRATA_ASSIGN_OR_RETURN(int64_t n, store.add("job_teams/" + std::to_string(rank), 1));
  return (uint64_t{1} << 40) + static_cast<uint64_t>(n);
}

StatusOr<std::vector<strata_device_t>> devices_of_task(const Runtime& runtime,
                                                       const ClusterSpec& cluster,
                                                       std::vector<std::string> names) {
  if (names.empty() && cluster.devices_per_task > 0) {
    return runtime.devices(cluster.device_type.empty() ? "cpu" : cluster.device_type,
                           cluster.devices_per_task);
  }
  if (names.empty()) names = runtime.config().strategy.devices;
  if (names.empty()) return runtime.devices("cpu", 1);
  std::vector<strata_device_t> devices;
  for (const std::string& name : names) {
    STRATA_ASSIGN_OR_RETURN(strata_device_t d, runtime.parse_device(name));
    if (!runtime.device_exists(d)) {
      return NotFoundError("device " + name + " does not exist on this worker");
    }
    devices.push_back(d);
  }
  return devices;
}

Status no_place(const ClusterSpec& cluster, std::string_view user) {
  return InvalidArgumentError("task " + cluster.task_type + " " +
                              std::to_string(cluster.task_index) + " has no place in " +
                              std::string(user) + ": only the chief and workers train (" +
                              cluster.to_string() + ")");
}

}  // namespace

StatusOr<std::unique_ptr<JobTeam>> JobTeam::form(std::shared_ptr<Runtime> runtime,
                                                 JobTeamSpec spec) {
  if (spec.world > 1 && spec.store == nullptr) {
    return InvalidArgumentError("a team of " + std::to_string(spec.world) +
                                " processes needs a store to meet through");
  }
  std::unique_ptr<JobTeam> team(new JobTeam());
  team->devices_ = spec.devices;
  team->rank_ = spec.rank;
  team->world_ = spec.world;
  auto membership = std::make_shared<Membership>();
  membership->store = std::move(spec.store);
  team->membership_ = membership;

  TeamSpec ts;
  ts.local_devices = std::move(spec.devices);
  ts.process_rank = spec.rank;
  ts.process_count = spec.world;
  ts.store = membership->store.get();
  ts.formation_timeout = spec.formation_timeout;
  ts.describe_process = spec.describe_rank;
  if (membership->store != nullptr && spec.heartbeat.count() > 0) {
    membership->health = std::make_unique<HealthMonitor>(
        *membership->store, spec.rank, spec.world, spec.heartbeat, spec.describe_rank,
        std::move(spec.store_host));
    ts.health_check = [membership] { return membership->health->check(); };
  }
  if (membership->store != nullptr) {
    ts.team_id = spec.team_id;
    if (ts.team_id == 0) {
      STRATA_ASSIGN_OR_RETURN(ts.team_id, next_team_id(*membership->store, spec.rank));
    }
  }
  STRATA_ASSIGN_OR_RETURN(team->ops_, CollectiveOps::create(std::move(runtime), std::move(ts),
                                                            std::move(spec.communication)));
  return team;
}

StatusOr<std::unique_ptr<JobTeam>> JobTeam::form_in_job(
    std::shared_ptr<Runtime> runtime, ClusterSpec cluster, std::unique_ptr<Store> store,
    std::vector<std::string> devices, CommunicationOptions communication, StoreHost store_host,
    std::string_view user) {
  const ClusterConfig& config = runtime->config().cluster;
  const std::optional<int> rank = cluster.rank();
  if (!rank) return no_place(cluster, user);
  JobTeamSpec spec;
  STRATA_ASSIGN_OR_RETURN(spec.devices, devices_of_task(*runtime, cluster, std::move(devices)));
  spec.rank = *rank;
  spec.world = cluster.world_size();
  spec.store = std::move(store);
  spec.store_host = std::move(store_host);
  spec.formation_timeout = config.rendezvous_timeout;
  spec.heartbeat = config.heartbeat;
  spec.describe_rank = [cluster](int r) { return cluster.task_name_of_rank(r); };
  spec.communication = std::move(communication);
  auto team = form(std::move(runtime), std::move(spec));
  if (!team.ok()) {
    return team.status().prefixed(std::string(user) + ": forming the team of " +
                                  std::to_string(cluster.world_size()) + " workers (" +
                                  cluster.to_string() + ")");
  }
  (*team)->cluster_ = std::move(cluster);
  return team;
}

StatusOr<std::unique_ptr<JobTeam>> JobTeam::join(std::shared_ptr<Runtime> runtime,
                                                 std::vector<std::string> devices,
                                                 CommunicationOptions communication,
                                                 std::string_view user) {
  STRATA_ASSIGN_OR_RETURN(ClusterSpec cluster,
                          resolve_cluster(runtime->registry(), runtime->config().cluster.resolver));
  return join(std::move(runtime), std::move(cluster), std::move(devices), std::move(communication),
              user);
}

StatusOr<std::unique_ptr<JobTeam>> JobTeam::join(std::shared_ptr<Runtime> runtime,
                                                 ClusterSpec cluster,
                                                 std::vector<std::string> devices,
                                                 CommunicationOptions communication,
                                                 std::string_view user) {
  STRATA_RETURN_IF_ERROR(cluster.validate());
  if (!cluster.rank()) return no_place(cluster, user);
  const ClusterConfig& config = runtime->config().cluster;
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Store> store,
                          open_job_store(runtime->registry(), cluster, config));
  StoreHost host = job_store_host(cluster, config);
  return form_in_job(std::move(runtime), std::move(cluster), std::move(store),
                     std::move(devices), std::move(communication), std::move(host), user);
}

Store* JobTeam::store() const { return membership_->store.get(); }

JobTeam::~JobTeam() {
  ops_.reset();
  membership_.reset();
}

}  // namespace strata
