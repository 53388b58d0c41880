#include "mpi_algorithm.h"

#include <climits>
#include <cstdlib>

#include "mpi_types.h"
#include "strata/sdk/device_table.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/option_values.h"
#include "strata/sdk/types.h"

namespace strata::mpi {
namespace {

bool is_reducing(strata_op_t op) {
  return op == STRATA_ALL_REDUCE || op == STRATA_REDUCE_SCATTER || op == STRATA_REDUCE;
}

const std::string kPrefix = "plugins.options.mpi.";

}  // namespace

MpiOptions MpiOptions::from_host() {
  MpiOptions o;
  // The variable wins over the config (like NCCL_ALGO), for experiments
  // and tests without a config file; mpirun passes it to every rank.
  const char* forced = std::getenv("STRATA_MPI_ALL_REDUCE");
  const std::string where = forced != nullptr && *forced != '\0'
                                ? "STRATA_MPI_ALL_REDUCE"
                                : "plugins.options.mpi.all_reduce";
  std::optional<std::string> schedule = where == "STRATA_MPI_ALL_REDUCE"
                                     ? std::optional<std::string>(forced)
                                     : sdk::Host::option("all_reduce");
  if (schedule) {
    using S = AllReduceSchedule;
    if (*schedule == "auto") o.all_reduce = S::kAuto;
    else if (*schedule == "mpi") o.all_reduce = S::kMpi;
    else if (*schedule == "recursive_doubling") o.all_reduce = S::kRecursiveDoubling;
    else if (*schedule == "ring") o.all_reduce = S::kRing;
    else if (*schedule == "halving_doubling") o.all_reduce = S::kHalvingDoubling;
    else {
      throw sdk::InvalidArgument(
          where + ": '" + *schedule +
          "' is not one of auto, mpi, recursive_doubling, ring, halving_doubling");
    }
  }
  // Sizes ("64KiB"); parse_option_number wants them positive, so the
  // options where 0 switches something off take "0" first.
  auto size_option = [](const std::string& name, bool zero_turns_off, uint64_t& into) {
    const auto v = sdk::Host::option(name);
    if (!v) return;
    into = zero_turns_off && *v == "0"
               ? 0
               : static_cast<uint64_t>(sdk::parse_option_number(kPrefix + name, *v, true));
  };
  size_option("ring_bytes", false, o.ring_bytes);
  size_option("halving_doubling_bytes", true, o.halving_doubling_bytes);
  if (sdk::Host::option("eager_bytes")) {
    uint64_t eager = 0;
    size_option("eager_bytes", true, eager);
    o.eager_bytes = eager;
  }
  size_option("ring_chunk_bytes", true, o.ring_chunk_bytes);
  sdk::read_cost_model_options(kPrefix, &o.alpha, &o.beta, &o.gamma);
  return o;
}

AllReduceSchedule all_reduce_schedule(const MpiOptions& options, uint64_t bytes, int p,
                                      uint64_t team_eager_bytes) {
  using S = AllReduceSchedule;
  if (options.all_reduce != S::kAuto) return options.all_reduce;
  if (bytes >= options.ring_bytes) {
    const bool power_of_two = (p & (p - 1)) == 0;
    if (p > 2 && power_of_two && bytes < options.halving_doubling_bytes) {
      return S::kHalvingDoubling;
    }
    return S::kRing;
  }
  const uint64_t eager = options.eager_bytes.value_or(team_eager_bytes);
  const uint64_t half = bytes / 2 + bytes % 2;
  if (p == 2 && bytes > eager && half <= eager) return S::kRing;
  return S::kRecursiveDoubling;
}

MpiAlgorithm::MpiAlgorithm(strata_op_t op, std::string description, const MpiOptions& options)
    : Algorithm("native", op, STRATA_SCOPE_CROSS_PROCESS, std::move(description)),
      options_(options) {}

std::optional<std::string> MpiAlgorithm::decline(const strata_call_desc_t& call) const {
  const strata_team_desc_t& team = *call.team;
  if (team.local_count != 1 || team.process_count < 2) {
    return "the mpi plugin takes one buffer per process on teams of two or more processes "
           "(STRATA_SCOPE_CROSS_PROCESS); core composes it with a local algorithm otherwise";
  }
  if (call.op != STRATA_BARRIER) {
    const auto redop = is_reducing(call.op) ? std::optional(call.redop) : std::nullopt;
    if (auto why = unsupported(call.dtype, redop)) return why;
  }
  uint64_t bytes = call.count * sdk::dtype_size(call.dtype);
  if (call.op == STRATA_ALL_GATHER || call.op == STRATA_REDUCE_SCATTER) {
    bytes *= static_cast<uint64_t>(team.replica_count);
  }
  if (call.count > INT_MAX || bytes > INT_MAX) {
    return "the call moves " + std::to_string(bytes) +
           " bytes per process; MPI's int counts limit one call to 2 GiB here (split the "
           "tensor, or let AUTO pick another algorithm)";
  }
  if (call.op == STRATA_BARRIER) return std::nullopt;
  try {
    const auto devices = sdk::DeviceTable::of(call.device_type);
    if (!devices.props(team.local_devices[0].index).host_accessible) {
      return std::string("MPI reads and writes host memory, and ") + devices.name() +
             " memory is not host-accessible (this plugin does not assume a CUDA-aware MPI)";
    }
  } catch (const sdk::Error& e) {
    return std::string("cannot tell whether the buffers are host memory: ") + e.what();
  }
  return std::nullopt;
}

std::optional<double> MpiAlgorithm::estimate(const strata_call_desc_t& call) const {
  const int p = call.team->process_count;
  double bytes = static_cast<double>(call.count * sdk::dtype_size(call.dtype));
  if (call.op == STRATA_ALL_GATHER || call.op == STRATA_REDUCE_SCATTER) {
    bytes *= call.team->replica_count;
  }
  return cost(call, bytes, p < 2 ? 2 : p);
}

std::unique_ptr<sdk::TeamState> MpiAlgorithm::create_team(const strata_team_desc_t& team) {
  return std::make_unique<MpiTeam>(team);
}

int MpiAlgorithm::log2_ceil(int p) {
  int steps = 0;
  while ((1 << steps) < p) ++steps;
  return steps;
}

}  // namespace strata::mpi
