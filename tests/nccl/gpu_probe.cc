// nccl_gpu_probe N: exit 0 when this process sees at least N CUDA devices,
// else print why and exit 77, CTest's "skipped". The GPU tests that run
// whole programs (the conformance suite, strata launch) start with it.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const int needed = argc > 1 ? std::atoi(argv[1]) : 1;
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    std::printf("skipped: no usable GPU (cudaGetDeviceCount: %s: %s)\n", cudaGetErrorName(e),
                cudaGetErrorString(e));
    return 77;
  }
  if (n < needed) {
    std::printf("skipped: needs %d GPU(s), this process sees %d\n", needed, n);
    return 77;
  }
  return 0;
}
