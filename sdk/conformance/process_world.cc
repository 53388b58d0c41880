#include "sdk/conformance/process_world.h"

#include <algorithm>

#include "core/cluster/job_store.h"
#include "core/cluster/resolve.h"
#include "core/common/units.h"
#include "sdk/conformance/report.h"

namespace strata::conformance {
namespace {

// Team ids only need to be equal on every rank and unique in the job store;
// this range keeps the suite's teams apart from anything else using it.
constexpr uint64_t kFirstTeamId = 0x5EED'0000'0000ull;

}  // namespace

StatusOr<std::unique_ptr<ProcessWorld>> ProcessWorld::join(std::shared_ptr<Runtime> runtime,
                                                            const SuiteOptions& options) {
  std::unique_ptr<ProcessWorld> w(new ProcessWorld());
  auto spec = resolve_cluster(runtime->registry(), options.resolver);
  if (!spec.ok()) {
    return spec.status().prefixed("--processes: resolving this process's place in the job "
                                  "(--resolver " + options.resolver + ")");
  }
  w->spec_ = std::move(*spec);
  const std::optional<int> rank = w->spec_.rank();
  if (!rank) {
    return InvalidArgumentError("--processes: this process is " + w->spec_.to_string() +
                                ", which takes no part in collectives");
  }
  w->rank_ = *rank;
  w->world_ = w->spec_.world_size();
  if (w->world_ < 2) {
    return InvalidArgumentError(
        "--processes: the resolver found a world of one process (" + w->spec_.to_string() +
        "); start the suite under a launcher, e.g. mpirun -np 2 strata-conformance --processes");
  }
  ClusterConfig config;
  config.store = options.store;
  config.rendezvous_timeout = options.rendezvous_timeout;
  auto store = open_job_store(runtime->registry(), w->spec_, config);
  if (!store.ok()) {
    return store.status().prefixed("--processes: opening the job store (--store " +
                                   options.store + ")");
  }
  w->store_ = std::move(*store);
  w->store_name_ = options.store;
  w->formation_timeout_ = options.rendezvous_timeout;
  w->runtime_ = std::move(runtime);
  auto describe = [spec = w->spec_](int r) { return spec.task_name_of_rank(r); };
  w->health_ = std::make_unique<HealthMonitor>(*w->store_, w->rank_, w->world_,
                                               std::chrono::seconds(1), describe,
                                               job_store_host(w->spec_, config));
  return w;
}

ProcessWorld::~ProcessWorld() {
  ops_.reset();  // the team's plugin state goes before the store it used
}

std::string ProcessWorld::describe() const {
  return spec_.task_name_of_rank(rank_) + " (rank " + std::to_string(rank_) + " of " +
         std::to_string(world_) + "; resolver " + spec_.resolver + ", store " + store_name_ +
         ")";
}

StatusOr<std::shared_ptr<CollectiveOps>> ProcessWorld::team(const std::string& device_type) {
  if (ops_ != nullptr) return ops_;
  STRATA_ASSIGN_OR_RETURN(std::vector<strata_device_t> devices,
                          runtime_->devices(device_type, 1));
  TeamSpec spec;
  spec.local_devices = std::move(devices);
  spec.process_rank = rank_;
  spec.process_count = world_;
  spec.store = store_.get();
  spec.team_id = kFirstTeamId + teams_built_++;
  spec.formation_timeout = formation_timeout_;
  spec.describe_process = [s = spec_](int r) { return s.task_name_of_rank(r); };
  HealthMonitor* health = health_.get();
  spec.health_check = [health] { return health->check(); };
  auto ops = CollectiveOps::create(runtime_, std::move(spec));
  if (!ops.ok()) {
    return ops.status().prefixed("forming the team of " + std::to_string(world_) +
                                 " processes");
  }
  ops_ = std::move(*ops);
  return ops_;
}

CallOutcome ProcessWorld::agree(const CallOutcome& mine, std::chrono::nanoseconds wait) {
  auto all = exchange(mine.encode(), wait);
  if (!all.ok()) return {CallOutcome::Kind::kCallFailed, lost_, false};
  std::vector<CallOutcome> outcomes;
  for (const std::string& text : *all) outcomes.push_back(CallOutcome::decode(text));
  return combine(outcomes);
}

StatusOr<std::vector<std::string>> ProcessWorld::exchange(const std::string& mine,
                                                          std::chrono::nanoseconds wait) {
  if (!lost_.empty()) return UnavailableError(lost_);
  const std::string prefix = "conformance/verdict/" + std::to_string(agreements_++) + "/";
  std::vector<std::string> all(static_cast<size_t>(world_));
  all[static_cast<size_t>(rank_)] = mine;
  if (Status s = store_->set(prefix + std::to_string(rank_), mine); !s.ok()) {
    // "not run:", as below: the report counts every later case as not run
    // (verified nothing), not as skipped for some other reason.
    lost_ = std::string(kNotRunPrefix) + " this rank can no longer publish its verdicts " +
            "through the job's store: " + s.to_string();
    return UnavailableError(lost_);
  }
  const Deadline deadline = deadline_after(wait);
  for (int r = 0; r < world_; ++r) {
    if (r == rank_) continue;
    const std::string key = prefix + std::to_string(r);
    StatusOr<std::string> value = TimedOutError("not asked yet");
    // In slices, asking the health monitor in between: a dead peer is named
    // within a few heartbeats instead of after the whole wait.
    for (;;) {
      const Deadline slice = std::min(deadline, deadline_after(std::chrono::seconds(1)));
      value = store_->get(key, slice);
      if (value.ok() || value.status().code() != Code::kTimedOut) break;
      if (Status health = health_->check(); !health.ok()) {
        value = health;
        break;
      }
      if (Clock::now() >= deadline) break;
    }
    if (!value.ok()) {
      lost_ = std::string(kNotRunPrefix) + " " + spec_.task_name_of_rank(r) + " (rank " +
              std::to_string(r) +
              ") reported no verdict for the previous call (it died or was stopped): " +
              value.status().to_string();
      return UnavailableError(lost_);
    }
    all[static_cast<size_t>(r)] = std::move(*value);
  }
  return all;
}

void ProcessWorld::leave() {
  if (health_ != nullptr) (void)health_->leave();
}

}  // namespace strata::conformance
