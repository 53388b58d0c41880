// Factories for every algorithm of the hierarchical_copy plugin; plugin.cc
// registers them. Each is defined in the file named after it.
#ifndef STRATA_PLUGINS_HIERARCHICAL_COPY_ALGORITHMS_H_
#define STRATA_PLUGINS_HIERARCHICAL_COPY_ALGORITHMS_H_

#include <memory>

#include "strata/sdk/algorithm.h"

namespace strata::hierarchical_copy {

std::unique_ptr<sdk::Algorithm> make_all_reduce_hierarchical();
std::unique_ptr<sdk::Algorithm> make_all_reduce_reduction_to_one_device();
std::unique_ptr<sdk::Algorithm> make_all_reduce_scatter_reduce();
std::unique_ptr<sdk::Algorithm> make_broadcast_hierarchical();
std::unique_ptr<sdk::Algorithm> make_broadcast_one_device();
std::unique_ptr<sdk::Algorithm> make_broadcast_peer_pull();
std::unique_ptr<sdk::Algorithm> make_all_gather_hierarchical();
std::unique_ptr<sdk::Algorithm> make_all_gather_one_device();
std::unique_ptr<sdk::Algorithm> make_all_gather_peer_pull();
std::unique_ptr<sdk::Algorithm> make_reduce_scatter_hierarchical();
std::unique_ptr<sdk::Algorithm> make_reduce_scatter_one_device();
std::unique_ptr<sdk::Algorithm> make_reduce_scatter_peer_slices();
std::unique_ptr<sdk::Algorithm> make_reduce_hierarchical();
std::unique_ptr<sdk::Algorithm> make_reduce_one_device();
std::unique_ptr<sdk::Algorithm> make_reduce_peer_slices();
std::unique_ptr<sdk::Algorithm> make_barrier_stream_events();

}  // namespace strata::hierarchical_copy

#endif  // STRATA_PLUGINS_HIERARCHICAL_COPY_ALGORITHMS_H_
