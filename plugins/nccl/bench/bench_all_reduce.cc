// The plugin's all_reduce, called as users call it (CollectiveOps, forced to
// nccl/all_reduce/native), next to the raw NCCL calls it makes
// (ncclCommInitAll, one group of ncclAllReduce, a wait on every stream) on
// the same GPUs and buffers. Both wait for each call to finish, as a
// Strata call does, so the ratio is the plugin's overhead per call.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <vector>

#include "bench.h"
#include "core/collective/collective_ops.h"
#include "core/runtime/runtime.h"

namespace strata::nccl::bench {
namespace {

using Clock = std::chrono::steady_clock;

#define BENCH_CHECK(expr, what)                                                   \
  do {                                                                            \
    if (!(expr)) {                                                                \
      std::cerr << "strata_nccl_bench: " << what << "\n";                         \
      return 1;                                                                   \
    }                                                                             \
  } while (0)

// Elements of out[0] that differ from the sum 1 + 2 + ... + n.
uint64_t wrong(const std::vector<void*>& outs, uint64_t count, int n) {
  std::vector<float> host(count);
  if (cudaSetDevice(0) != cudaSuccess ||
      cudaMemcpy(host.data(), outs[0], count * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) {
    return count;
  }
  const float expected = static_cast<float>(n) * static_cast<float>(n + 1) / 2.0f;
  uint64_t bad = 0;
  for (float v : host) bad += v != expected ? 1 : 0;
  return bad;
}

void row(uint64_t bytes, int n, double seconds, uint64_t bad) {
  const double algbw = static_cast<double>(bytes) / seconds / 1e9;
  const double busbw = algbw * 2.0 * (n - 1) / n;
  std::printf("  %10.1f %7.2f %7.2f %6llu", seconds * 1e6, algbw, busbw,
              static_cast<unsigned long long>(bad));
}

}  // namespace

int run_all_reduce(const BenchOptions& o, int /*gpus*/) {
  const int n = o.devices;
  RuntimeOptions ro;
  ro.discover_plugins = false;
  ro.plugin_files = {o.plugin};
  auto runtime = Runtime::create({}, ro);
  BENCH_CHECK(runtime.ok(), "runtime: " << runtime.status());
  auto devices = (*runtime)->devices("cuda", n);
  BENCH_CHECK(devices.ok(), "devices: " << devices.status());
  TeamSpec spec;
  spec.local_devices = *devices;
  auto ops = CollectiveOps::create(*runtime, spec);
  BENCH_CHECK(ops.ok(), "team: " << ops.status());

  const uint64_t max_count = o.max_bytes / sizeof(float);
  std::vector<void*> ins(n), outs(n);
  std::vector<ncclComm_t> comms(n);
  std::vector<cudaStream_t> streams(n);
  std::vector<int> ordinals(n);
  for (int d = 0; d < n; ++d) {
    ordinals[d] = d;
    std::vector<float> init(max_count, static_cast<float>(d + 1));
    BENCH_CHECK(cudaSetDevice(d) == cudaSuccess && cudaMalloc(&ins[d], o.max_bytes) == cudaSuccess &&
                    cudaMalloc(&outs[d], o.max_bytes) == cudaSuccess &&
                    cudaMemcpy(ins[d], init.data(), o.max_bytes, cudaMemcpyHostToDevice) == cudaSuccess &&
                    cudaStreamCreateWithFlags(&streams[d], cudaStreamNonBlocking) == cudaSuccess,
                "allocating " << o.max_bytes << " bytes on cuda:" << d);
  }
  BENCH_CHECK(ncclCommInitAll(comms.data(), n, ordinals.data()) == ncclSuccess, "ncclCommInitAll");

  std::printf("# all_reduce f32 sum on %d GPU(s), %d iterations after %d warm-up\n", n,
              o.iterations, o.warmup);
  std::printf("# %12s %12s | %10s %7s %7s %6s | %10s %7s %7s %6s | %6s\n", "size(B)", "count",
              "strata(us)", "algbw", "busbw", "#wrong", "nccl(us)", "algbw", "busbw", "#wrong",
              "ratio");
  CallOptions forced;
  forced.algorithm = "nccl/all_reduce/native";
  uint64_t total_wrong = 0;
  for (uint64_t bytes : sizes(o, sizeof(float))) {
    const uint64_t count = bytes / sizeof(float);
    std::vector<Buffer> in_bufs, out_bufs;
    for (int d = 0; d < n; ++d) {
      in_bufs.push_back(Buffer{ins[d], DType::kF32, count, (*devices)[d]});
      out_bufs.push_back(Buffer{outs[d], DType::kF32, count, (*devices)[d]});
    }
    auto strata_call = [&] { return (*ops)->all_reduce(in_bufs, out_bufs, ReduceOp::kSum, forced); };
    auto nccl_call = [&] {
      bool ok = ncclGroupStart() == ncclSuccess;
      for (int d = 0; d < n; ++d) {
        ok = ok && ncclAllReduce(ins[d], outs[d], count, ncclFloat32, ncclSum, comms[d], streams[d]) ==
                       ncclSuccess;
      }
      ok = ncclGroupEnd() == ncclSuccess && ok;
      for (int d = 0; d < n; ++d) ok = ok && cudaStreamSynchronize(streams[d]) == cudaSuccess;
      return ok;
    };
    for (int i = 0; i < o.warmup; ++i) {
      const Status s = strata_call();
      BENCH_CHECK(s.ok(), "strata all_reduce: " << s);
    }
    auto t0 = Clock::now();
    for (int i = 0; i < o.iterations; ++i) {
      const Status s = strata_call();
      BENCH_CHECK(s.ok(), "strata all_reduce: " << s);
    }
    const double strata_s = std::chrono::duration<double>(Clock::now() - t0).count() / o.iterations;
    const uint64_t strata_bad = wrong(outs, count, n);
    for (int i = 0; i < o.warmup; ++i) BENCH_CHECK(nccl_call(), "raw ncclAllReduce failed");
    t0 = Clock::now();
    for (int i = 0; i < o.iterations; ++i) BENCH_CHECK(nccl_call(), "raw ncclAllReduce failed");
    const double nccl_s = std::chrono::duration<double>(Clock::now() - t0).count() / o.iterations;
    const uint64_t nccl_bad = wrong(outs, count, n);
    std::printf("  %12llu %12llu", static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(count));
    row(bytes, n, strata_s, strata_bad);
    row(bytes, n, nccl_s, nccl_bad);
    std::printf("   %6.2f\n", strata_s / nccl_s);
    total_wrong += strata_bad + nccl_bad;
  }
  for (int d = 0; d < n; ++d) {
    (void)ncclCommDestroy(comms[d]);
    (void)cudaSetDevice(d);
    (void)cudaStreamDestroy(streams[d]);
    (void)cudaFree(ins[d]);
    (void)cudaFree(outs[d]);
  }
  if (total_wrong != 0) std::cerr << "strata_nccl_bench: " << total_wrong << " wrong elements\n";
  return total_wrong == 0 ? 0 : 1;
}

}  // namespace strata::nccl::bench
