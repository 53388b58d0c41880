// tpu_sim: a simulated TPU pod slice in one process. Registers the "tpu"
// device type (rows x cols cores on a 2-D torus, each with its own memory
// and worker thread), the torus collectives that run on those cores and
// price themselves with the interconnect model, and the "tpu" cluster
// resolver. docs/TPU.md describes what is simulated and how.
#include "algorithms.h"
#include "strata/sdk/plugin.h"
#include "tpu_device_type.h"
#include "tpu_resolver.h"
#include "tpu_sim_options.h"

namespace {

void register_tpu_sim(strata::sdk::Registrar& r) {
  using namespace strata::tpu_sim;
  const TpuSimOptions options = TpuSimOptions::from_host();
  auto cores = std::make_unique<TpuDeviceType>(options);
  TpuDeviceType* raw = cores.get();
  // The registrar keeps the device type alive until unload, as long as the
  // algorithms that point at it.
  const uint32_t type_id = r.add_device_type(std::move(cores));
  const Slice slice{raw, type_id};
  r.add_algorithm(make_all_reduce_torus(slice));
  r.add_algorithm(make_all_gather_torus(slice));
  r.add_algorithm(make_broadcast_torus(slice));
  r.add_resolver(std::make_unique<TpuResolver>(options.cores()));
}

}  // namespace

STRATA_PLUGIN("tpu_sim", "0.1.0",
              "simulated TPU pod slice: tpu cores on a 2-D torus, torus collectives, "
              "TPU cluster resolver",
              register_tpu_sim)
