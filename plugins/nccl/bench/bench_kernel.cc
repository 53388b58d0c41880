// The cuda device type's reduce kernel (two f32 sources summed into one
// destination, as hierarchical_copy's reductions do) against
// cudaMemcpyAsync device-to-device on cuda:0. Bandwidth counts every byte
// read and written: 3 x size for the kernel, 2 x size for the copy, so the
// two are comparable fractions of the GPU's DRAM bandwidth.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <iostream>
#include <vector>

#include "bench.h"
#include "reduce_kernel.h"

namespace strata::nccl::bench {
namespace {

// Milliseconds per call of `body` on `stream`, timed with CUDA events.
template <class Body>
bool time_ms(cudaStream_t stream, int warmup, int iterations, Body body, double* ms) {
  cudaEvent_t start = nullptr, stop = nullptr;
  bool ok = cudaEventCreate(&start) == cudaSuccess && cudaEventCreate(&stop) == cudaSuccess;
  for (int i = 0; ok && i < warmup; ++i) ok = body() == cudaSuccess;
  ok = ok && cudaEventRecord(start, stream) == cudaSuccess;
  for (int i = 0; ok && i < iterations; ++i) ok = body() == cudaSuccess;
  ok = ok && cudaEventRecord(stop, stream) == cudaSuccess && cudaEventSynchronize(stop) == cudaSuccess;
  float elapsed = 0;
  ok = ok && cudaEventElapsedTime(&elapsed, start, stop) == cudaSuccess;
  *ms = static_cast<double>(elapsed) / iterations;
  if (start != nullptr) (void)cudaEventDestroy(start);
  if (stop != nullptr) (void)cudaEventDestroy(stop);
  return ok;
}

}  // namespace

int run_kernel(const BenchOptions& o) {
  const uint64_t max_count = o.max_bytes / sizeof(float);
  void* a = nullptr;
  void* b = nullptr;
  void* c = nullptr;
  cudaStream_t stream = nullptr;
  std::vector<float> ones(max_count, 1.0f), twos(max_count, 2.0f);
  if (cudaSetDevice(0) != cudaSuccess || cudaMalloc(&a, o.max_bytes) != cudaSuccess ||
      cudaMalloc(&b, o.max_bytes) != cudaSuccess || cudaMalloc(&c, o.max_bytes) != cudaSuccess ||
      cudaMemcpy(a, ones.data(), o.max_bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaMemcpy(b, twos.data(), o.max_bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
    std::cerr << "strata_nccl_bench: allocating 3 x " << o.max_bytes << " bytes on cuda:0 failed: "
              << cudaGetErrorString(cudaGetLastError()) << "\n";
    return 1;
  }
  std::printf("# reduce kernel (f32 sum, 2 sources) vs cudaMemcpy D2D on cuda:0\n");
  std::printf("# %12s | %10s %9s %6s | %10s %9s | %6s\n", "size(B)", "kernel(us)", "GB/s", "#wrong",
              "memcpy(us)", "GB/s", "ratio");
  int status = 0;
  for (uint64_t bytes : sizes(o, sizeof(float))) {
    const uint64_t count = bytes / sizeof(float);
    void* const dsts[1] = {c};
    const void* const srcs[2] = {a, b};
    double kernel_ms = 0, copy_ms = 0;
    const bool ok =
        time_ms(stream, o.warmup, o.iterations,
                [&] { return launch_reduce(STRATA_F32, STRATA_SUM, dsts, 1, srcs, 2, count, 1, stream); },
                &kernel_ms) &&
        time_ms(stream, o.warmup, o.iterations,
                [&] { return cudaMemcpyAsync(c, a, bytes, cudaMemcpyDeviceToDevice, stream); }, &copy_ms);
    if (!ok) {
      std::cerr << "strata_nccl_bench: timing " << bytes << " bytes failed: "
                << cudaGetErrorString(cudaGetLastError()) << "\n";
      status = 1;
      break;
    }
    // One more reduction, checked: every element must be 1 + 2.
    std::vector<float> out(count);
    uint64_t bad = count;
    if (launch_reduce(STRATA_F32, STRATA_SUM, dsts, 1, srcs, 2, count, 1, stream) == cudaSuccess &&
        cudaStreamSynchronize(stream) == cudaSuccess &&
        cudaMemcpy(out.data(), c, bytes, cudaMemcpyDeviceToHost) == cudaSuccess) {
      bad = 0;
      for (float v : out) bad += v != 3.0f ? 1 : 0;
    }
    std::printf("  %12llu | %10.2f %9.1f %6llu | %10.2f %9.1f | %6.2f\n",
                static_cast<unsigned long long>(bytes), kernel_ms * 1e3,
                3.0 * static_cast<double>(bytes) / (kernel_ms * 1e-3) / 1e9,
                static_cast<unsigned long long>(bad), copy_ms * 1e3,
                2.0 * static_cast<double>(bytes) / (copy_ms * 1e-3) / 1e9, kernel_ms / copy_ms);
    if (bad != 0) status = 1;
  }
  (void)cudaStreamDestroy(stream);
  (void)cudaFree(a);
  (void)cudaFree(b);
  (void)cudaFree(c);
  return status;
}

}  // namespace strata::nccl::bench
