#include "core/strategy/parameter_server/parameter_server_strategy.h"

#include "core/cluster/resolve.h"
#include "core/common/logging.h"
#include "core/strategy/parameter_server/in_process_channel.h"
#include "core/strategy/parameter_server/parameter_server.h"
#include "core/strategy/parameter_server/ps_tcp_server.h"
#include "core/strategy/parameter_server/tcp_channel.h"
#include "strata/sdk/job_token.h"

namespace strata {

StatusOr<std::unique_ptr<ParameterServerStrategy>> ParameterServerStrategy::create(
    std::shared_ptr<Runtime> runtime) {
  STRATA_ASSIGN_OR_RETURN(ClusterSpec cluster,
                          resolve_cluster(runtime->registry(), runtime->config().cluster.resolver));
  ParameterServerConfig config = runtime->config().strategy.parameter_server;
  return create_in_cluster(std::move(runtime), std::move(cluster), std::move(config));
}

StatusOr<std::unique_ptr<ParameterServerStrategy>> ParameterServerStrategy::create_in_cluster(
    std::shared_ptr<Runtime> runtime, ClusterSpec cluster, ParameterServerConfig config) {
  auto ps_job = cluster.jobs.find("ps");
  const std::vector<std::string> ps_addresses =
      ps_job == cluster.jobs.end() ? std::vector<std::string>() : ps_job->second;
  const int num_workers = std::max(cluster.world_size(), 1);
  if (ps_addresses.empty() && num_workers > 1) {
    return InvalidArgumentError("parameter_server needs ps tasks: the cluster (" +
                                cluster.to_string() + ") has " + std::to_string(num_workers) +
                                " workers and no `ps` job; e.g. `strata launch -n 2 --ps 1`");
  }
  if (cluster.task_type != "ps" && !cluster.rank()) {
    return InvalidArgumentError("task " + cluster.task_type + " " +
                                std::to_string(cluster.task_index) +
                                " has no place in parameter_server: only ps, chief and worker "
                                "tasks do (" + cluster.to_string() + ")");
  }
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<ps::Scheme> scheme,
                          ps::make_scheme(config, num_workers));
  sdk::JobToken token;
  std::string error;
  if (!sdk::load_job_token("", &token, &error)) {
    return PermissionDeniedError("parameter_server: " + error);
  }
  STRATA_ASSIGN_OR_RETURN(std::vector<strata_device_t> devices, runtime->devices("cpu", 1));
  std::unique_ptr<ParameterServerStrategy> s(new ParameterServerStrategy(
      devices.front(), std::move(cluster), std::move(config), std::move(scheme)));
  s->token_ = std::move(token.value);
  s->num_workers_ = num_workers;
  if (s->cluster_.task_type == "ps") {
    s->ps_index_ = s->cluster_.task_index;
  } else {
    s->worker_index_ = s->cluster_.rank().value_or(0);
  }
  s->ps_addresses_ = ps_addresses;
  if (s->ps_addresses_.empty()) {
    ps::ParameterServerOptions o;
    o.num_workers = 1;
    o.coordinator = true;
    o.token = s->token_;
    o.worker_timeout = s->config_.worker_timeout;
    o.startup_timeout = s->config_.startup_timeout;
    s->local_ = std::make_shared<ps::ParameterServer>(o, s->scheme_);
  }
  if (s->token_.empty() && !s->ps_addresses_.empty()) {
    STRATA_LOG_WARN("parameter_server: no job token (STRATA_JOB_TOKEN_FILE / STRATA_JOB_TOKEN); "
                    "the ps tasks accept any client that can reach them");
  }
  STRATA_LOG_INFO("parameter_server: {}", s->describe_job());
  return s;
}

ParameterServerStrategy::ParameterServerStrategy(strata_device_t device, ClusterSpec cluster,
                                                 ParameterServerConfig config,
                                                 std::shared_ptr<const ps::Scheme> scheme)
    : Strategy({device}, nullptr),
      cluster_(std::move(cluster)),
      config_(std::move(config)),
      scheme_(std::move(scheme)) {}

ParameterServerStrategy::~ParameterServerStrategy() = default;

int ParameterServerStrategy::ps_task_count() const {
  return ps_addresses_.empty() ? 1 : static_cast<int>(ps_addresses_.size());
}

std::string ParameterServerStrategy::describe_job() const {
  std::string role = is_ps_task() ? "ps " + std::to_string(ps_index_)
                                  : "worker " + std::to_string(worker_index_);
  return config_.scheme + ", " + role + " of a job of " + std::to_string(num_workers_) +
         " worker(s) and " + std::to_string(ps_task_count()) + " ps task(s)" +
         (ps_addresses_.empty() ? " (in this process)" : "");
}

Status ParameterServerStrategy::serve() {
  if (!is_ps_task()) return FailedPreconditionError("serve() is for ps tasks; this is a worker");
  ps::ParameterServerOptions o;
  o.ps_index = ps_index_;
  o.num_workers = num_workers_;
  o.coordinator = ps_index_ == 0;
  o.token = token_;
  o.worker_timeout = config_.worker_timeout;
  o.startup_timeout = config_.startup_timeout;
  auto server = std::make_shared<ps::ParameterServer>(o, scheme_);
  const std::string address = ps_addresses_.at(static_cast<size_t>(ps_index_));
  STRATA_ASSIGN_OR_RETURN(auto tcp, ps::PsTcpServer::start(address, server));
  STRATA_LOG_INFO("ps {}: serving {} worker(s) at {}", ps_index_, num_workers_, tcp->address());
  // Liveness bounds this wait: every worker ends done or declared dead
  // (worker_timeout of silence, or startup_timeout if never seen).
  STRATA_RETURN_IF_ERROR(tcp->serve_until_finished(Clock::now() + std::chrono::hours(24 * 7)));
  const int dead = server->workers_dead();
  if (dead == num_workers_) {
    return UnavailableError("ps " + std::to_string(ps_index_) + " at " + tcp->address() +
                            ": no worker finished; every one died or never connected (within "
                            "startup_timeout)");
  }
  // The coordinator's count is what shows that no step was lost with a
  // dead worker: a job that went on without one must still have done them all.
  const std::string steps =
      o.coordinator ? "; the coordinator counted " + std::to_string(server->steps_done()) +
                          " of " + std::to_string(server->steps_total()) + " step(s) done, " +
                          std::to_string(server->steps_requeued()) + " re-queued"
                    : "";
  if (dead > 0) {
    STRATA_LOG_WARN("ps {}: {} of {} worker(s) died; their steps went to the others{}", ps_index_,
                    dead, num_workers_, steps);
  } else if (!steps.empty()) {
    STRATA_LOG_INFO("ps {}: every worker is done{}", ps_index_, steps);
  }
  return Status::Ok();
}

StatusOr<std::vector<ps::PsTarget>> ParameterServerStrategy::connect(Deadline deadline) {
  std::vector<ps::PsTarget> targets;
  ps::Hello hello{worker_index_, token_};
  if (local_ != nullptr) {
    ps::PsTarget t;
    STRATA_ASSIGN_OR_RETURN(t.main, ps::InProcessChannel::open(local_, hello));
    STRATA_ASSIGN_OR_RETURN(t.heartbeat, ps::InProcessChannel::open(local_, hello));
    targets.push_back(std::move(t));
    return targets;
  }
  for (size_t i = 0; i < ps_addresses_.size(); ++i) {
    ps::PsTarget t;
    auto named = [&](const Status& s) {
      return s.prefixed("worker " + std::to_string(worker_index_) + ": connecting to ps " +
                        std::to_string(i) + " at " + ps_addresses_[i]);
    };
    auto main = ps::TcpChannel::connect(ps_addresses_[i], hello, deadline);
    if (!main.ok()) return named(main.status());
    auto beat = ps::TcpChannel::connect(ps_addresses_[i], hello, deadline);
    if (!beat.ok()) return named(beat.status());
    t.main = std::move(*main);
    t.heartbeat = std::move(*beat);
    targets.push_back(std::move(t));
  }
  return targets;
}

StatusOr<ps::TrainerResult> ParameterServerStrategy::fit(Mlp& network, ps::TrainLoss loss,
                                                         const Dataset& global_batches, int epochs,
                                                         std::ostream* progress) {
  if (is_ps_task()) return FailedPreconditionError("fit() is for workers; a ps task serve()s");
  std::vector<size_t> sizes;
  for (Tensor* t : network.parameters()) sizes.push_back(static_cast<size_t>(t->size()));
  STRATA_ASSIGN_OR_RETURN(ps::ShardPlacement placement,
                          ps::ShardPlacement::compute(network.parameter_names(), sizes,
                                                      ps_task_count(), config_.variable_placement,
                                                      config_.split_bytes));
  if (progress != nullptr && worker_index_ == 0) *progress << "placement: " << placement.describe() << "\n";
  STRATA_ASSIGN_OR_RETURN(auto epochs_data, ps::ParameterServerTrainer::materialise(global_batches, epochs));
  STRATA_ASSIGN_OR_RETURN(std::vector<ps::PsTarget> targets,
                          connect(Clock::now() + config_.startup_timeout));
  ps::PsWorkerClient client(worker_index_, std::move(targets), std::move(placement),
                            config_.request_timeout, config_.worker_timeout / 5);
  ps::ParameterServerTrainer trainer(client, *scheme_,
                                     config_.worker_timeout * 2 + config_.request_timeout);
  return trainer.fit(network, loss, epochs_data, progress);
}

}  // namespace strata
