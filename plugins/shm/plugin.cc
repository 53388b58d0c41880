// shm: collectives across processes on one host through shared memory, one
// buffer per process. Each rank owns a memfd segment its peers map through
// /proc, so nothing is named in /dev/shm and nothing outlives the job; calls
// hand chunks over with flags on their own cache lines. README.md explains
// the design, failure detection, the cost model and the options.
#include <memory>

#include "shm_algorithm.h"
#include "shm_device_type.h"
#include "strata/sdk/plugin.h"

namespace {

using namespace strata;

void register_shm(sdk::Registrar& r) {
  // Options are read once, so every rank with the same config decides alike.
  const shm::ShmOptions options = shm::ShmOptions::from_host();
  const uint32_t shm_host = r.add_device_type(std::make_unique<shm::ShmDeviceType>());
  r.add_algorithm(shm::make_all_reduce_sliced(options));
  r.add_algorithm(shm::make_broadcast_copy(options));
  r.add_algorithm(shm::make_all_gather_copy(options));
  r.add_algorithm(shm::make_reduce_scatter_sliced(options));
  r.add_algorithm(shm::make_reduce_sliced(options));
  r.add_algorithm(shm::make_barrier_flags(options));
  r.add_algorithm(shm::make_all_reduce_mapped(options, shm_host));
  r.add_algorithm(shm::make_broadcast_mapped(options, shm_host));
  r.add_algorithm(shm::make_all_gather_mapped(options, shm_host));
}

}  // namespace

STRATA_PLUGIN("shm", "0.1.0",
              "collectives across processes on one host through shared memory (memfd "
              "segments, nothing left in /dev/shm)",
              register_shm)
