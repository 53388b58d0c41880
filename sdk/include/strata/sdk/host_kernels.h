// Host (CPU) implementations of the elementwise reduction every device type
// and host-side algorithm needs, for every dtype and operator, plus the
// half-precision conversions. Shared by core's CPU devices and by plugins.
#ifndef STRATA_SDK_HOST_KERNELS_H_
#define STRATA_SDK_HOST_KERNELS_H_

#include <cstdint>

#include "strata/abi/types.h"

namespace strata::sdk {

// Outputs this large do not fit in cache anyway: reduce_host_multi streams them.
inline constexpr uint64_t kReduceStreamingBytes = uint64_t{1} << 21;

// dst[i] = op(srcs[0][i], ..., srcs[n-1][i]) for i < count, in source order;
// MEAN divides the sum by `divisor` (integers truncate toward zero). dst may
// equal srcs[0]. Returns false for an unknown dtype or operator.
bool reduce_host(strata_dtype_t dtype, strata_redop_t op, void* dst,
                 const void* const* srcs, uint32_t num_srcs, uint64_t count,
                 uint32_t divisor) noexcept;

// The same result written to every destination in one pass: each block of
// the sources is read once, combined in L1, then stored to each dst. A dst
// may equal a source exactly. Outputs of kReduceStreamingBytes or more in
// all (count * dtype size * num_dsts) use non-temporal stores, so writing
// memory costs no extra read of it (no write-allocate); a caller that
// picks its stores itself keeps under that.
bool reduce_host_multi(strata_dtype_t dtype, strata_redop_t op, void* const* dsts,
                       uint32_t num_dsts, const void* const* srcs, uint32_t num_srcs,
                       uint64_t count, uint32_t divisor) noexcept;

// IEEE binary16 and bfloat16 <-> float, round to nearest even.
float half_to_float(uint16_t h) noexcept;
uint16_t float_to_half(float f) noexcept;
float bfloat16_to_float(uint16_t b) noexcept;
uint16_t float_to_bfloat16(float f) noexcept;

}  // namespace strata::sdk

#endif  // STRATA_SDK_HOST_KERNELS_H_
