// What the plugin reads of the MPI library's transport through the MPI tool
// information interface (MPI_T control variables), so that plans follow the
// library's settings instead of a constant: today, the eager limit of Open
// MPI's shared-memory transport, where all_reduce's plan choice on two
// processes depends on it (mpi_algorithm.h, all_reduce_schedule).
#ifndef STRATA_PLUGINS_MPI_MPI_TRANSPORT_H_
#define STRATA_PLUGINS_MPI_MPI_TRANSPORT_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace strata::mpi {

// An integer MPI_T control variable by name; nullopt when the library has
// no such variable, or it is not a single integer, or MPI_T fails. Call with
// MPI initialised (components register their variables when their framework
// opens) and under MpiRuntime::serialize().
std::optional<uint64_t> read_control_variable(std::string_view name);

// Open MPI's shared-memory eager limit in bytes, headers included
// (btl_vader_eager_limit in Open MPI 4, btl_sm_eager_limit from 5); 0 when
// neither is known, as with other MPI libraries. Same preconditions.
uint64_t shared_memory_eager_limit();

// The part of an eager message a header takes: payloads up to
// limit - kEagerHeaderBytes go in one copy. Open MPI's ob1 match header and
// vader's fragment header are smaller; 64 leaves a margin for both.
inline constexpr uint64_t kEagerHeaderBytes = 64;

}  // namespace strata::mpi

#endif  // STRATA_PLUGINS_MPI_MPI_TRANSPORT_H_
