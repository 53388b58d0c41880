// What the GPU tests share: skipping with the reason when this machine has
// no usable GPU, and a cuda device type built directly (not through the
// loader) so a test can reach every method and its exceptions.
#ifndef STRATA_TESTS_NCCL_GPU_TEST_ENV_H_
#define STRATA_TESTS_NCCL_GPU_TEST_ENV_H_

#include <cuda_runtime_api.h>

#include <chrono>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "cuda_device_type.h"
#include "cuda_devices.h"
#include "cuda_error.h"

namespace strata::nccl::test {

// Deadline of every wait in the GPU tests: generous, since a first call
// may JIT the kernels, but finite.
inline constexpr auto kTimeout = std::chrono::seconds(30);

// Visible GPUs, or 0 with `why` saying what CUDA answered.
inline int gpu_count(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  (void)cudaGetLastError();
  if (e != cudaSuccess) {
    *why = "no usable GPU: cudaGetDeviceCount: " + cuda_error_text(e);
    return 0;
  }
  if (n == 0) *why = "no usable GPU: cudaGetDeviceCount found 0";
  return n;
}

// Skips the calling test (GTEST_SKIP, reason printed) below `needed` GPUs.
#define STRATA_REQUIRE_GPUS(needed)                                                     \
  do {                                                                                  \
    std::string why_;                                                                   \
    const int have_ = ::strata::nccl::test::gpu_count(&why_);                           \
    if (have_ < (needed)) {                                                             \
      GTEST_SKIP() << (have_ == 0 ? why_                                                \
                                  : "needs " + std::to_string(needed) + " GPUs, found " + \
                                        std::to_string(have_));                         \
    }                                                                                   \
  } while (0)

inline std::unique_ptr<CudaDeviceType> make_cuda_type() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
  return std::make_unique<CudaDeviceType>(std::make_shared<CudaDevices>(CudaTopology::probe(n)));
}

}  // namespace strata::nccl::test

#endif  // STRATA_TESTS_NCCL_GPU_TEST_ENV_H_
