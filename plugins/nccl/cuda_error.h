// CUDA runtime errors as sdk::Error, and the current-device guard every
// entry point uses. Messages name the device and the call and carry CUDA's
// own name and text ("cuda:1 cudaMalloc(1.0 GiB): cudaErrorMemoryAllocation:
// out of memory"), since that is what a person needs to act on.
#ifndef STRATA_PLUGINS_NCCL_CUDA_ERROR_H_
#define STRATA_PLUGINS_NCCL_CUDA_ERROR_H_

#include <cuda_runtime_api.h>

#include <string>
#include <string_view>

#include "strata/abi/status.h"

namespace strata::nccl {

// "cudaErrorNoDevice: no CUDA-capable device is detected".
std::string cuda_error_text(cudaError_t error);

// The Strata status a CUDA error maps to: OUT_OF_MEMORY, INVALID_ARGUMENT
// (bad pointer or value), INTERNAL for everything else.
strata_status_t cuda_status(cudaError_t error);

// Throws sdk::Error "cuda:<device> <what>: <cuda_error_text>" unless
// `error` is cudaSuccess. `device` < 0 leaves the device out. Clears the
// thread's last-error slot so a later check does not report it again.
void check_cuda(cudaError_t error, std::string_view what, int device);

// Makes `device` current for the scope and restores the caller's device
// afterwards: the current device is per thread and belongs to the user's
// code, which must not find it changed by a collective.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace strata::nccl

#endif  // STRATA_PLUGINS_NCCL_CUDA_ERROR_H_
