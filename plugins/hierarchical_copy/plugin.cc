// hierarchical_copy: TF's in-process collectives (HierarchicalCopyAllReduce,
// ReductionToOneDevice) and their analogues for broadcast, all-gather,
// reduce-scatter and reduce, plus bandwidth-optimal peer algorithms. All are
// written only against the device-type table, so they run on every device
// type that offers copy and reduce: the virtual CPU devices today, CUDA
// tomorrow.
#include "algorithms.h"
#include "strata/sdk/plugin.h"

namespace {

void register_hierarchical_copy(strata::sdk::Registrar& r) {
  using namespace strata::hierarchical_copy;
  r.add_algorithm(make_all_reduce_hierarchical());
  r.add_algorithm(make_all_reduce_reduction_to_one_device());
  r.add_algorithm(make_all_reduce_scatter_reduce());
  r.add_algorithm(make_broadcast_hierarchical());
  r.add_algorithm(make_broadcast_one_device());
  r.add_algorithm(make_broadcast_peer_pull());
  r.add_algorithm(make_all_gather_hierarchical());
  r.add_algorithm(make_all_gather_one_device());
  r.add_algorithm(make_all_gather_peer_pull());
  r.add_algorithm(make_reduce_scatter_hierarchical());
  r.add_algorithm(make_reduce_scatter_one_device());
  r.add_algorithm(make_reduce_scatter_peer_slices());
  r.add_algorithm(make_reduce_hierarchical());
  r.add_algorithm(make_reduce_one_device());
  r.add_algorithm(make_reduce_peer_slices());
  r.add_algorithm(make_barrier_stream_events());
}

}  // namespace

STRATA_PLUGIN("hierarchical_copy", "0.1.0",
              "in-process collectives over any device type with copy and reduce",
              register_hierarchical_copy)
