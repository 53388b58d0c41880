#include "shm_algorithm.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "strata/sdk/device_table.h"
#include "strata/sdk/error.h"
#include "strata/sdk/types.h"

namespace strata::shm {
namespace {

bool is_reducing(strata_op_t op) {
  return op == STRATA_ALL_REDUCE || op == STRATA_REDUCE_SCATTER || op == STRATA_REDUCE;
}

}  // namespace

ShmAlgorithm::ShmAlgorithm(std::string name, strata_op_t op, std::string description,
                           const ShmOptions& options)
    : Algorithm(std::move(name), op, STRATA_SCOPE_CROSS_PROCESS, std::move(description)),
      options_(options) {}

int32_t ShmAlgorithm::host_count(const strata_team_desc_t& team) {
  const size_t needed = offsetof(strata_team_desc_t, host_count) + sizeof team.host_count;
  return team.struct_size >= needed ? team.host_count : 0;
}

std::optional<std::string> ShmAlgorithm::decline(const strata_call_desc_t& call) const {
  const strata_team_desc_t& team = *call.team;
  if (team.local_count != 1 || team.process_count < 2) {
    return "shm takes one buffer per process on teams of two or more processes "
           "(STRATA_SCOPE_CROSS_PROCESS); core composes it with a local algorithm otherwise";
  }
  if (const int32_t hosts = host_count(team); hosts > 1) {
    return "processes span " + std::to_string(hosts) +
           " hosts; shm serves processes on one host";
  }
  if (call.op == STRATA_BARRIER) return std::nullopt;
  if (sdk::dtype_size(call.dtype) == 0) {
    return "dtype " + std::to_string(call.dtype) + " is unknown to this build of shm";
  }
  if (is_reducing(call.op) && (call.redop < 0 || call.redop >= STRATA_REDOP_COUNT)) {
    return "operator " + std::to_string(call.redop) + " is unknown to this build of shm";
  }
  if (auto why = decline_device_type(call.device_type)) return why;
  try {
    const auto devices = sdk::DeviceTable::of(call.device_type);
    if (!devices.props(team.local_devices[0].index).host_accessible) {
      return std::string("shm copies through host memory, and ") + devices.name() +
             " memory is not host-accessible";
    }
  } catch (const sdk::Error& e) {
    return std::string("cannot tell whether the buffers are host memory: ") + e.what();
  }
  return std::nullopt;
}

std::optional<double> ShmAlgorithm::estimate(const strata_call_desc_t& call) const {
  const int p = std::max(2, call.team->process_count);
  double bytes = static_cast<double>(call.count * sdk::dtype_size(call.dtype));
  if (call.op == STRATA_ALL_GATHER || call.op == STRATA_REDUCE_SCATTER) {
    bytes *= call.team->replica_count;
  }
  return cost(bytes, p);
}

double ShmAlgorithm::handoffs(double bytes, int per_chunk) const {
  const double chunks =
      std::max(1.0, std::ceil(bytes / static_cast<double>(options_.chunk_bytes)));
  return per_chunk * options_.alpha * (1 + (chunks - 1) * 0.1);
}

uint64_t ShmAlgorithm::chunk_elements(strata_dtype_t dtype) const {
  return std::max<uint64_t>(1, options_.chunk_bytes / sdk::dtype_size(dtype));
}

std::optional<std::string> MappedAlgorithm::decline_device_type(uint32_t device_type) const {
  if (device_type == shm_host_type_) return std::nullopt;
  std::string type = "type " + std::to_string(device_type);
  try {
    type = sdk::DeviceTable::of(device_type).name();
  } catch (const sdk::Error&) {
    // An id the host does not know: named by number.
  }
  return "mapped algorithms use peers' buffers in place, so they must be shm_host memory, "
         "not " + type + " (the staging algorithms take any host memory)";
}

std::unique_ptr<sdk::TeamState> ShmAlgorithm::create_team(const strata_team_desc_t& team) {
  if (team.process_count < 2 || team.store == nullptr || team.local_count != 1) {
    throw sdk::NotSupported("shm serves teams of several processes with one replica each "
                            "(STRATA_SCOPE_CROSS_PROCESS)");
  }
  if (const int32_t hosts = host_count(team); hosts > 1) {
    throw sdk::NotSupported("processes span " + std::to_string(hosts) +
                            " hosts; shm serves processes on one host");
  }
  return std::make_unique<ShmTeamState>(team, options_);
}

std::unique_ptr<sdk::Operation> ShmAlgorithm::create(sdk::TeamState* state,
                                                     const strata_call_t& call) {
  return operation(static_cast<ShmTeamState*>(state)->team(), call);
}

}  // namespace strata::shm
