#include "python/src/torch/process_group_strata.h"

#include <Python.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <utility>

#include "python/src/common/status_error.h"
#include "python/src/torch/torch_store.h"

namespace strata::python {
namespace {

constexpr char kTokenEnv[] = "STRATA_JOB_TOKEN";
constexpr char kTokenFileEnv[] = "STRATA_JOB_TOKEN_FILE";

std::string random_token() {
  std::random_device device;  // /dev/urandom
  static const char kHex[] = "0123456789abcdef";
  std::string token;
  for (int i = 0; i < 32; ++i) token += kHex[device() % 16];
  return token;
}

// Plugins that connect processes themselves (grpc_ring) accept only peers
// that present the job's token. Under torchrun nothing hands one out, so
// the first group's rank 0 makes one and the others read it from the c10d
// store, before any collective asks for it.
Status share_job_token(Store& store, int rank, Deadline deadline) {
  if (std::getenv(kTokenEnv) != nullptr || std::getenv(kTokenFileEnv) != nullptr) return Status();
  std::string token;
  if (rank == 0) {
    token = random_token();
    STRATA_RETURN_IF_ERROR(store.set("strata/job_token", token));
  } else {
    STRATA_ASSIGN_OR_RETURN(token, store.get("strata/job_token", deadline));
  }
  if (setenv(kTokenEnv, token.c_str(), /*overwrite=*/0) != 0) {
    return InternalError("cannot set " + std::string(kTokenEnv) + ": " + errno_text(errno));
  }
  return Status();
}

// torch names groups "0", "1", ... alike on every rank; ids from 2^42 up
// are this backend's, clear of those JobTeam counts (2^40 + n).
uint64_t team_id_of(const std::string& group_id) {
  uint64_t n = 0;
  for (char c : group_id) n = n * 131 + static_cast<unsigned char>(c);
  return (uint64_t{1} << 42) + (n & ((uint64_t{1} << 40) - 1));
}

std::string rank_name(const std::vector<int64_t>& global_ranks, int rank) {
  std::string name = "rank " + std::to_string(rank);
  if (rank >= 0 && static_cast<size_t>(rank) < global_ranks.size()) {
    name += " (global rank " + std::to_string(global_ranks[static_cast<size_t>(rank)]) + ")";
  }
  return name;
}

// Who serves torch's store, so that the health check can name it when it
// goes: torch's TCPStore under env:// and tcp:// is served by global rank
// 0, except under torchrun, whose agent serves it
// (TORCHELASTIC_USE_AGENT_STORE=True). File and hash stores have no host.
StoreHost store_host_of(c10::intrusive_ptr<c10d::Store> store,
                        const std::vector<int64_t>& global_ranks) {
  while (auto* prefix = dynamic_cast<c10d::PrefixStore*>(store.get())) {
    store = prefix->getUnderlyingStore();
  }
  const auto* tcp = dynamic_cast<const c10d::TCPStore*>(store.get());
  if (tcp == nullptr) return {};
  StoreHost host{-1, tcp->getHost() + ":" + std::to_string(tcp->getPort())};
  const char* agent = std::getenv("TORCHELASTIC_USE_AGENT_STORE");
  if (agent != nullptr && std::string(agent) == "True") return host;
  if (global_ranks.empty()) {
    host.rank = 0;  // the default group: group ranks are global ranks
  } else if (auto it = std::find(global_ranks.begin(), global_ranks.end(), 0);
             it != global_ranks.end()) {
    host.rank = static_cast<int>(it - global_ranks.begin());
  }
  return host;
}

}  // namespace

c10::intrusive_ptr<ProcessGroupStrata> ProcessGroupStrata::create(
    std::shared_ptr<Runtime> runtime, c10::intrusive_ptr<c10d::Store> store, const Spec& spec) {
  const std::string what = "strata backend: forming group " + spec.group_id + " of " +
                           std::to_string(spec.size) + " process(es) (this is rank " +
                           std::to_string(spec.rank) + ")";
  JobTeamSpec team;
  team.devices = value_or_throw(runtime->devices("cpu", 1));
  team.rank = spec.rank;
  team.world = spec.size;
  team.formation_timeout = spec.timeout;
  team.heartbeat = runtime->config().cluster.heartbeat;
  team.team_id = team_id_of(spec.group_id);
  team.describe_rank = [global_ranks = spec.global_ranks](int r) {
    return rank_name(global_ranks, r);
  };
  team.communication.implementation = spec.implementation;
  team.communication.bytes_per_pack = spec.bytes_per_pack;
  // torch's timeout (init_process_group / new_group) bounds every call.
  team.communication.timeout = spec.timeout;
  if (spec.size > 1) {
    auto torch_store = std::make_unique<TorchStore>(store);
    const Status shared = share_job_token(*torch_store, spec.rank, deadline_after(spec.timeout));
    if (!shared.ok()) throw_status(shared.prefixed(what));
    team.store = std::move(torch_store);
    team.store_host = store_host_of(store, spec.global_ranks);
  }
  auto formed = JobTeam::form(std::move(runtime), std::move(team));
  if (!formed.ok()) throw_status(formed.status().prefixed(what));
  std::shared_ptr<JobTeam> formed_team(std::move(*formed));
  const strata_device_t device = formed_team->devices().front();
  auto queue = WorkQueue::start(std::move(formed_team), "strata-pg" + spec.group_id);
  return c10::make_intrusive<ProcessGroupStrata>(spec.rank, spec.size, spec, device,
                                                 std::move(queue));
}

ProcessGroupStrata::ProcessGroupStrata(int rank, int size, Spec spec, strata_device_t device,
                                       std::shared_ptr<WorkQueue> queue)
    : ProcessGroup(rank, size), spec_(std::move(spec)), device_(device), queue_(std::move(queue)) {
  init();
}

ProcessGroupStrata::~ProcessGroupStrata() {
  // Python's GC may drop the last reference with the GIL held, while the
  // queue's thread runs a future callback that needs it.
  PyThreadState* saved =
      Py_IsInitialized() && PyGILState_Check() ? PyEval_SaveThread() : nullptr;
  queue_->shutdown(AbortedError("the strata process group " + spec_.group_id +
                                " was destroyed before this call ran"));
  if (saved != nullptr) PyEval_RestoreThread(saved);
}

std::string ProcessGroupStrata::describe_rank(int rank) const {
  return rank_name(spec_.global_ranks, rank);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::enqueue(c10d::OpType type,
                                                           std::vector<at::Tensor> outputs,
                                                           WorkStrata::Body body) {
  ++sequence_;
  auto work = c10::make_intrusive<WorkStrata>(rank_, type, std::move(outputs), std::move(body),
                                              queue_);
  queue_->push(work);
  return work;
}

CallOptions ProcessGroupStrata::call_options(std::chrono::milliseconds timeout) const {
  CallOptions options;
  if (timeout.count() > 0) options.timeout = timeout;  // else the group's (torch's) timeout
  return options;
}

}  // namespace strata::python
