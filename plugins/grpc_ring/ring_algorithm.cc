#include "ring_algorithm.h"

#include <cmath>
#include <limits>

#include "strata/sdk/device_table.h"
#include "strata/sdk/error.h"
#include "strata/sdk/types.h"

namespace strata::grpc_ring {
namespace {

bool is_reducing(strata_op_t op) {
  return op == STRATA_ALL_REDUCE || op == STRATA_REDUCE_SCATTER || op == STRATA_REDUCE;
}

}  // namespace

RingAlgorithm::RingAlgorithm(std::string name, strata_op_t op, std::string description,
                             const GrpcRingOptions& options)
    : Algorithm(std::move(name), op, STRATA_SCOPE_CROSS_PROCESS, std::move(description)),
      options_(options) {}

std::optional<std::string> RingAlgorithm::decline(const strata_call_desc_t& call) const {
  const strata_team_desc_t& team = *call.team;
  if (team.local_count != 1 || team.process_count < 2) {
    return "grpc_ring takes one buffer per process on teams of two or more processes "
           "(STRATA_SCOPE_CROSS_PROCESS); core composes it with a local algorithm otherwise";
  }
  if (sdk::dtype_size(call.dtype) == 0) {
    return "dtype " + std::to_string(call.dtype) + " is unknown to this build of grpc_ring";
  }
  if (is_reducing(call.op) && (call.redop < 0 || call.redop >= STRATA_REDOP_COUNT)) {
    return "operator " + std::to_string(call.redop) + " is unknown to this build of grpc_ring";
  }
  // Chunk indices are 32-bit on the wire.
  const double bytes = static_cast<double>(call.count) *
                       static_cast<double>(sdk::dtype_size(call.dtype)) * team.replica_count;
  if (bytes / static_cast<double>(options_.chunk_bytes) > 1e9) {
    return "the call is too large for chunks of " + std::to_string(options_.chunk_bytes) +
           " bytes (raise plugins.options.grpc_ring.chunk_bytes)";
  }
  try {
    const auto devices = sdk::DeviceTable::of(call.device_type);
    if (!devices.props(team.local_devices[0].index).host_accessible) {
      return std::string("grpc_ring sends from and reduces into host memory, and ") +
             devices.name() + " memory is not host-accessible";
    }
  } catch (const sdk::Error& e) {
    return std::string("cannot tell whether the buffers are host memory: ") + e.what();
  }
  return std::nullopt;
}

std::optional<double> RingAlgorithm::estimate(const strata_call_desc_t& call) const {
  const int p = call.team->process_count;
  double bytes = static_cast<double>(call.count * sdk::dtype_size(call.dtype));
  if (call.op == STRATA_ALL_GATHER || call.op == STRATA_REDUCE_SCATTER) {
    bytes *= call.team->replica_count;
  }
  return cost(bytes, p < 2 ? 2 : p);
}

double RingAlgorithm::message(double bytes) const {
  const double chunks = std::max(1.0, std::ceil(bytes / static_cast<double>(options_.chunk_bytes)));
  // Chunks overlap: after the first, latency hides behind the bytes.
  return options_.alpha + (chunks - 1) * options_.alpha * 0.1 + bytes * options_.beta;
}

std::unique_ptr<sdk::TeamState> RingAlgorithm::create_team(const strata_team_desc_t& team) {
  if (team.process_count < 2 || team.store == nullptr || team.local_count != 1) {
    throw sdk::NotSupported("grpc_ring serves teams of several processes with one replica "
                            "each (STRATA_SCOPE_CROSS_PROCESS)");
  }
  return std::make_unique<RingTeamState>(team, options_);
}

std::unique_ptr<sdk::Operation> RingAlgorithm::create(sdk::TeamState* state,
                                                      const strata_call_t& call) {
  RingTeam& team = static_cast<RingTeamState*>(state)->team();
  Plan p = call.desc->count == 0 ? Plan{} : plan(team, call);
  return std::make_unique<RingOperation>(team, call, std::move(p));
}

}  // namespace strata::grpc_ring
