#include "cuda_error.h"

#include "strata/sdk/error.h"

namespace strata::nccl {

std::string cuda_error_text(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
}

strata_status_t cuda_status(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return STRATA_OK;
    case cudaErrorMemoryAllocation: return STRATA_OUT_OF_MEMORY;
    case cudaErrorInvalidValue:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidDevice:
    case cudaErrorInvalidMemcpyDirection: return STRATA_INVALID_ARGUMENT;
    default: return STRATA_INTERNAL;
  }
}

void check_cuda(cudaError_t error, std::string_view what, int device) {
  if (error == cudaSuccess) return;
  // Non-sticky errors stay in the per-thread slot until read; read it so the
  // next call's check does not inherit it.
  (void)cudaGetLastError();
  std::string where = device >= 0 ? "cuda:" + std::to_string(device) + " " : std::string();
  throw sdk::Error(cuda_status(error), where + std::string(what) + ": " + cuda_error_text(error));
}

DeviceGuard::DeviceGuard(int device) {
  check_cuda(cudaGetDevice(&previous_), "cudaGetDevice", -1);
  if (previous_ != device) check_cuda(cudaSetDevice(device), "cudaSetDevice", device);
}

DeviceGuard::~DeviceGuard() {
  int now = -1;
  // Restoring cannot fail for a device that was current a moment ago; if the
  // context died meanwhile there is nothing better to do than leave it.
  if (cudaGetDevice(&now) == cudaSuccess && now != previous_) (void)cudaSetDevice(previous_);
  (void)cudaGetLastError();
}

}  // namespace strata::nccl
