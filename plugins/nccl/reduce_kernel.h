// The cuda device type's elementwise reduction (strata_device_type_t
// reduce_async): for i < count, r = op(srcs[0][i], ..., srcs[n-1][i]) in
// source order, written to every destination. Results match sdk::reduce_host
// bit for bit: f16/bf16 compute in float and round once (to nearest even),
// integers wrap, MEAN divides the sum by `divisor` (integers truncate).
#ifndef STRATA_PLUGINS_NCCL_REDUCE_KERNEL_H_
#define STRATA_PLUGINS_NCCL_REDUCE_KERNEL_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "strata/abi/types.h"

namespace strata::nccl {

// The pointers travel as kernel parameters (no device-side pointer array to
// allocate, copy and keep alive until the kernel ran), which bounds them.
inline constexpr uint32_t kMaxReduceOperands = 32;

// Enqueues the reduction on `stream`; the caller has made the stream's
// device current and checked the arguments (known dtype and operator,
// 1..kMaxReduceOperands sources and destinations, divisor > 0 for MEAN).
// Returns the launch's error; count 0 enqueues nothing.
cudaError_t launch_reduce(strata_dtype_t dtype, strata_redop_t op, void* const* dsts,
                          uint32_t num_dsts, const void* const* srcs, uint32_t num_srcs,
                          uint64_t count, uint32_t divisor, cudaStream_t stream);

}  // namespace strata::nccl

#endif  // STRATA_PLUGINS_NCCL_REDUCE_KERNEL_H_
