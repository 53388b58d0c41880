// The plugin's algorithms: one file each, ids mpi/<op>/native.
#ifndef STRATA_PLUGINS_MPI_ALGORITHMS_H_
#define STRATA_PLUGINS_MPI_ALGORITHMS_H_

#include <memory>

#include "mpi_algorithm.h"
#include "strata/sdk/algorithm.h"

namespace strata::mpi {

std::unique_ptr<sdk::Algorithm> make_all_reduce_native(const MpiOptions& options);
std::unique_ptr<sdk::Algorithm> make_broadcast_native(const MpiOptions& options);
std::unique_ptr<sdk::Algorithm> make_all_gather_native(const MpiOptions& options);
std::unique_ptr<sdk::Algorithm> make_reduce_scatter_native(const MpiOptions& options);
std::unique_ptr<sdk::Algorithm> make_reduce_native(const MpiOptions& options);
std::unique_ptr<sdk::Algorithm> make_barrier_native(const MpiOptions& options);

}  // namespace strata::mpi

#endif  // STRATA_PLUGINS_MPI_ALGORITHMS_H_
