#include "core/collective/team.h"

#include <algorithm>
#include <atomic>

#include "core/collective/algorithm_call.h"
#include "core/collective/buffer.h"
#include "core/runtime/runtime.h"

namespace strata {
namespace {

uint64_t fresh_team_id() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1);
}

}  // namespace

StatusOr<std::unique_ptr<Team>> Team::create(std::shared_ptr<Runtime> runtime, TeamSpec spec) {
  if (spec.local_devices.empty()) {
    return InvalidArgumentError("a team needs at least one local device");
  }
  for (const auto& d : spec.local_devices) {
    if (d.type != spec.local_devices.front().type) {
      return InvalidArgumentError("a team's devices must share one device type; got " +
                                  runtime->device_name(spec.local_devices.front()) + " and " +
                                  runtime->device_name(d));
    }
    if (!runtime->device_exists(d)) {
      return InvalidArgumentError("device " + runtime->device_name(d) + " does not exist");
    }
  }
  for (size_t i = 0; i < spec.local_devices.size(); ++i) {
    for (size_t j = i + 1; j < spec.local_devices.size(); ++j) {
      if (spec.local_devices[i] == spec.local_devices[j]) {
        return InvalidArgumentError("device " + runtime->device_name(spec.local_devices[i]) +
                                    " appears twice in the team");
      }
    }
  }
  if (spec.process_count < 1 || spec.process_rank < 0 ||
      spec.process_rank >= spec.process_count) {
    return InvalidArgumentError("process rank " + std::to_string(spec.process_rank) +
                                " is outside a team of " + std::to_string(spec.process_count));
  }
  if (spec.process_count > 1 && spec.store == nullptr) {
    return InvalidArgumentError("a team spanning processes needs a rendezvous store");
  }
  const auto formation = spec.formation_timeout;
  std::unique_ptr<Team> team(new Team(std::move(runtime), std::move(spec)));
  if (team->multi_process()) {
    STRATA_RETURN_IF_ERROR(team->agree_with_peers(deadline_after(formation)));
  }
  return team;
}

Team::Team(std::shared_ptr<Runtime> runtime, TeamSpec spec)
    : runtime_(std::move(runtime)), devices_(std::move(spec.local_devices)) {
  const uint64_t id = spec.team_id != 0 ? spec.team_id : fresh_team_id();
  job_store_ = spec.store;
  spec_ = std::move(spec);
  spec_.local_devices.clear();
  if (job_store_ != nullptr && spec_.process_count > 1) {
    store_ = std::make_unique<PrefixStore>(*job_store_, "team/" + std::to_string(id));
  } else {
    job_store_ = nullptr;
  }
  desc_.struct_size = sizeof desc_;
  desc_.team_id = id;
  desc_.process_rank = spec_.process_rank;
  desc_.process_count = spec_.process_count;
  desc_.local_count = static_cast<uint32_t>(devices_.size());
  desc_.local_devices = devices_.data();
  // Replicas are numbered process by process; every process drives the same
  // number of local devices (checked at rendezvous for multi-process teams).
  desc_.replica_offset = spec_.process_rank * static_cast<int32_t>(devices_.size());
  desc_.replica_count = spec_.process_count * static_cast<int32_t>(devices_.size());
  desc_.store = store_.get();
  desc_.host_count = 1;  // a multi-process team learns its hosts at formation
}

Team::~Team() {
  for (auto& [algo, state] : states_) call_team_destroy(*algo, state);
}

Status Team::check_health() const {
  if (!multi_process() || !spec_.health_check) return Status::Ok();
  return spec_.health_check();
}

std::string Team::describe_process(int process_rank) const {
  if (spec_.describe_process) return spec_.describe_process(process_rank);
  return "rank " + std::to_string(process_rank);
}

std::vector<int> Team::host_members(int host) const {
  std::vector<int> members;
  for (size_t r = 0; r < host_of_rank_.size(); ++r) {
    if (host_of_rank_[r] == host) members.push_back(static_cast<int>(r));
  }
  return members;
}

int Team::largest_host() const {
  std::vector<int> sizes(static_cast<size_t>(host_count()), 0);
  int largest = 0;
  for (int h : host_of_rank_) largest = std::max(largest, ++sizes[static_cast<size_t>(h)]);
  return largest;
}

const AlgorithmEntry* Team::cached_selection(const SelectionQuery& query) const {
  auto it = selections_.find(query);
  return it == selections_.end() ? nullptr : it->second;
}

void Team::cache_selection(const SelectionKey& key, const AlgorithmEntry* algo) {
  selections_[key] = algo;
}

std::string Team::context(const AlgorithmEntry* algo, std::string_view op,
                          uint64_t sequence) const {
  std::string out;
  if (algo != nullptr) out += "plugin=" + algo->plugin + " algo=" + algo->name + " ";
  out += "op=" + std::string(op);
  out += " rank=" + std::to_string(desc_.process_rank) + "/" + std::to_string(desc_.process_count);
  out += " replicas=" + std::to_string(desc_.replica_count);
  out += " seq=" + std::to_string(sequence);
  return out;
}

}  // namespace strata
