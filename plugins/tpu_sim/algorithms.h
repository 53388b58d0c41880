// Factories for every algorithm of the tpu_sim plugin; plugin.cc registers
// them. Each is defined in the file named after it.
#ifndef STRATA_PLUGINS_TPU_SIM_ALGORITHMS_H_
#define STRATA_PLUGINS_TPU_SIM_ALGORITHMS_H_

#include <memory>

#include "strata/sdk/algorithm.h"
#include "torus_algorithm.h"

namespace strata::tpu_sim {

std::unique_ptr<sdk::Algorithm> make_all_reduce_torus(Slice slice);
std::unique_ptr<sdk::Algorithm> make_all_gather_torus(Slice slice);
std::unique_ptr<sdk::Algorithm> make_broadcast_torus(Slice slice);

}  // namespace strata::tpu_sim

#endif  // STRATA_PLUGINS_TPU_SIM_ALGORITHMS_H_
