#include "core/cluster/resolvers/cluster_spec_sink.h"

#include "core/plugin/registry.h"  // is_valid_name

namespace strata {
namespace {

// Larger indices or counts are garbage from a confused resolver, and
// refusing them keeps a bad plugin from making core allocate wildly.
constexpr int32_t kMaxTasksPerJob = 1 << 20;
constexpr int32_t kMaxDevicesPerTask = 1 << 16;

std::string printable(const char* text) {
  return text == nullptr ? "NULL" : "'" + std::string(text) + "'";
}

std::string job_problem(const char* job) {
  if (job != nullptr && is_valid_name(job)) return "";
  return "job name " + printable(job) + " is not 1-63 characters of [a-z0-9_]";
}

ClusterSpecSink& self_of(void* ctx) { return *static_cast<ClusterSpecSink*>(ctx); }

}  // namespace

ClusterSpecSink::ClusterSpecSink() {
  table_.struct_size = sizeof table_;
  table_.ctx = this;
  table_.add_task = &ClusterSpecSink::add_task;
  table_.set_self = &ClusterSpecSink::set_self;
  table_.set_rpc_layer = &ClusterSpecSink::set_rpc_layer;
  table_.set_devices_per_task = &ClusterSpecSink::set_devices_per_task;
}

strata_status_t ClusterSpecSink::refuse(std::string reason) {
  if (!refusal_) refusal_ = std::move(reason);
  return STRATA_INVALID_ARGUMENT;
}

strata_status_t ClusterSpecSink::add_task(void* ctx, const char* job, int32_t index,
                                          const char* address) noexcept try {
  ClusterSpecSink& s = self_of(ctx);
  const std::string call = "add_task(" + printable(job) + ", " + std::to_string(index) + ")";
  if (std::string problem = job_problem(job); !problem.empty()) {
    return s.refuse(call + ": " + problem);
  }
  if (index < 0 || index >= kMaxTasksPerJob) {
    return s.refuse(call + ": the index must be from 0 to " + std::to_string(kMaxTasksPerJob - 1));
  }
  if (address == nullptr) return s.refuse(call + ": the address is NULL; pass \"\" when unknown");
  auto [it, fresh] = s.tasks_[job].emplace(index, address);
  if (!fresh) {
    return s.refuse(call + ": " + std::string(job) + " " + std::to_string(index) +
                    " was already added (address '" + it->second + "')");
  }
  return STRATA_OK;
} catch (...) {
  return STRATA_OUT_OF_MEMORY;  // only std::string and std::map allocate here
}

strata_status_t ClusterSpecSink::set_self(void* ctx, const char* job, int32_t index) noexcept try {
  ClusterSpecSink& s = self_of(ctx);
  const std::string call = "set_self(" + printable(job) + ", " + std::to_string(index) + ")";
  if (std::string problem = job_problem(job); !problem.empty()) {
    return s.refuse(call + ": " + problem);
  }
  if (index < 0) return s.refuse(call + ": the index is negative");
  if (s.self_) {
    return s.refuse(call + ": set_self was already called with (" + s.self_->first + ", " +
                    std::to_string(s.self_->second) + ")");
  }
  s.self_.emplace(job, index);
  return STRATA_OK;
} catch (...) {
  return STRATA_OUT_OF_MEMORY;
}

strata_status_t ClusterSpecSink::set_rpc_layer(void* ctx, const char* rpc_layer) noexcept try {
  ClusterSpecSink& s = self_of(ctx);
  if (rpc_layer == nullptr) return s.refuse("set_rpc_layer(NULL): pass a name such as \"grpc\"");
  s.rpc_layer_ = rpc_layer;
  return STRATA_OK;
} catch (...) {
  return STRATA_OUT_OF_MEMORY;
}

strata_status_t ClusterSpecSink::set_devices_per_task(void* ctx, const char* device_type,
                                                      int32_t count) noexcept try {
  ClusterSpecSink& s = self_of(ctx);
  const std::string call =
      "set_devices_per_task(" + printable(device_type) + ", " + std::to_string(count) + ")";
  // "" leaves the type to the strategy; anything else must be a name.
  if (device_type == nullptr || (device_type[0] != '\0' && !is_valid_name(device_type))) {
    return s.refuse(call + ": the device type must be \"\" or 1-63 characters of [a-z0-9_]");
  }
  if (count < 1 || count > kMaxDevicesPerTask) {
    return s.refuse(call + ": the count must be from 1 to " + std::to_string(kMaxDevicesPerTask));
  }
  s.device_type_ = device_type;
  s.devices_per_task_ = count;
  return STRATA_OK;
} catch (...) {
  return STRATA_OUT_OF_MEMORY;
}

StatusOr<ClusterSpec> ClusterSpecSink::finish() const {
  if (refusal_) return InvalidArgumentError("the cluster sink refused " + *refusal_);
  if (tasks_.empty())
    return InvalidArgumentError("it described no tasks (add_task was never called)");
  if (!self_) {
    return InvalidArgumentError(
        "it did not say which task this process is (set_self was never called)");
  }
  ClusterSpec spec;
  for (const auto& [job, by_index] : tasks_) {
    std::vector<std::string>& addresses = spec.jobs[job];
    for (const auto& [index, address] : by_index) {
      if (static_cast<size_t>(index) != addresses.size()) {
        return InvalidArgumentError("it described " + job + " " + std::to_string(index) +
                                    " but not " + job + " " + std::to_string(addresses.size()) +
                                    "; a job's tasks are numbered from 0 without gaps");
      }
      addresses.push_back(address);
    }
  }
  spec.task_type = self_->first;
  spec.task_index = self_->second;
  spec.rpc_layer = rpc_layer_;
  spec.device_type = device_type_;
  spec.devices_per_task = devices_per_task_;
  return spec;
}

}  // namespace strata
