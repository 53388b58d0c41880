// One grid-stride kernel per (dtype, operator): each thread reads element i
// of every source, combines them in registers and stores the result to every
// destination, so a destination that is also a source (in place) is read
// before it is written, and memory traffic is the minimum (one read per
// source, one write per destination).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "reduce_kernel.h"

namespace strata::nccl {
namespace {

struct Operands {
  const void* srcs[kMaxReduceOperands];
  void* dsts[kMaxReduceOperands];
  uint32_t num_srcs;
  uint32_t num_dsts;
  uint64_t count;
  uint32_t divisor;
};

// S: element in memory, C: type the arithmetic runs in (float for the half
// types, as the host kernels do).
template <class S>
struct Storage {
  using C = S;
  static __device__ C load(S v) { return v; }
  static __device__ S store(C v) { return v; }
};
template <>
struct Storage<__half> {
  using C = float;
  static __device__ C load(__half v) { return __half2float(v); }
  static __device__ __half store(C v) { return __float2half_rn(v); }
};
template <>
struct Storage<__nv_bfloat16> {
  using C = float;
  static __device__ C load(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __nv_bfloat16 store(C v) { return __float2bfloat16_rn(v); }
};

// Signed integers are combined as unsigned so they wrap instead of
// overflowing (undefined), exactly like sdk::reduce_host.
template <class T>
struct Sum {
  static __device__ T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    } else {
      return a + b;
    }
  }
};
template <class T>
struct Prod {
  static __device__ T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, U>;
      return static_cast<T>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b)));
    } else {
      return a * b;
    }
  }
};
template <class T>
struct Min {
  static __device__ T apply(T a, T b) { return b < a ? b : a; }
};
template <class T>
struct Max {
  static __device__ T apply(T a, T b) { return a < b ? b : a; }
};

template <class T>
__device__ T divide(T value, uint32_t divisor) {
  if constexpr (std::is_floating_point_v<T>) {
    return value / static_cast<T>(divisor);
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(value / static_cast<T>(divisor));  // truncates toward zero
  } else {
    return static_cast<T>(value / divisor);
  }
}

template <class S, template <class> class Op, bool kMean>
__global__ void reduce_kernel(Operands p) {
  using St = Storage<S>;
  using C = typename St::C;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.count;
       i += stride) {
    C acc = St::load(static_cast<const S*>(p.srcs[0])[i]);
    for (uint32_t k = 1; k < p.num_srcs; ++k) {
      acc = Op<C>::apply(acc, St::load(static_cast<const S*>(p.srcs[k])[i]));
    }
    if constexpr (kMean) {
      if (p.divisor > 1) acc = divide(acc, p.divisor);
    }
    const S out = St::store(acc);
    for (uint32_t d = 0; d < p.num_dsts; ++d) static_cast<S*>(p.dsts[d])[i] = out;
  }
}

template <class S, template <class> class Op, bool kMean>
cudaError_t launch(const Operands& p, cudaStream_t stream) {
  constexpr uint64_t kThreads = 256;
  // Enough blocks to fill an H100 (132 SMs x 8 resident blocks) several
  // times over; beyond that the grid-stride loop takes the rest.
  constexpr uint64_t kMaxBlocks = 4096;
  const uint64_t blocks = (p.count + kThreads - 1) / kThreads;
  reduce_kernel<S, Op, kMean><<<static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks),
                                static_cast<unsigned>(kThreads), 0, stream>>>(p);
  return cudaGetLastError();
}

template <class S>
cudaError_t launch_for(strata_redop_t op, const Operands& p, cudaStream_t stream) {
  switch (op) {
    case STRATA_SUM: return launch<S, Sum, false>(p, stream);
    case STRATA_PROD: return launch<S, Prod, false>(p, stream);
    case STRATA_MIN: return launch<S, Min, false>(p, stream);
    case STRATA_MAX: return launch<S, Max, false>(p, stream);
    case STRATA_MEAN: return launch<S, Sum, true>(p, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t launch_reduce(strata_dtype_t dtype, strata_redop_t op, void* const* dsts,
                          uint32_t num_dsts, const void* const* srcs, uint32_t num_srcs,
                          uint64_t count, uint32_t divisor, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  if (num_srcs == 0 || num_dsts == 0 || num_srcs > kMaxReduceOperands ||
      num_dsts > kMaxReduceOperands) {
    return cudaErrorInvalidValue;
  }
  Operands p{};
  for (uint32_t k = 0; k < num_srcs; ++k) p.srcs[k] = srcs[k];
  for (uint32_t d = 0; d < num_dsts; ++d) p.dsts[d] = dsts[d];
  p.num_srcs = num_srcs;
  p.num_dsts = num_dsts;
  p.count = count;
  p.divisor = divisor;
  switch (dtype) {
    case STRATA_F32: return launch_for<float>(op, p, stream);
    case STRATA_F64: return launch_for<double>(op, p, stream);
    case STRATA_F16: return launch_for<__half>(op, p, stream);
    case STRATA_BF16: return launch_for<__nv_bfloat16>(op, p, stream);
    case STRATA_I32: return launch_for<int32_t>(op, p, stream);
    case STRATA_I64: return launch_for<int64_t>(op, p, stream);
    case STRATA_U8: return launch_for<uint8_t>(op, p, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace strata::nccl
