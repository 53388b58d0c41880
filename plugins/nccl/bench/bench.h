// Shared pieces of strata_nccl_bench: options, timing and the table rows it
// prints (nccl-tests' columns: size, count, time, algbw, busbw, #wrong).
#ifndef STRATA_PLUGINS_NCCL_BENCH_BENCH_H_
#define STRATA_PLUGINS_NCCL_BENCH_BENCH_H_

#include <cstdint>
#include <string>
#include <vector>

namespace strata::nccl::bench {

struct BenchOptions {
  std::string plugin;        // libstrata_nccl.so to load
  int devices = 0;           // GPUs in the team; 0: every visible one
  uint64_t min_bytes = 8;
  uint64_t max_bytes = uint64_t{256} << 20;
  int warmup = 5;
  int iterations = 20;
  bool kernel = true;        // also the reduce kernel vs cudaMemcpy
  bool all_reduce = true;
};

// Sizes from min to max, doubling (nccl-tests' -f 2).
std::vector<uint64_t> sizes(const BenchOptions& o, uint64_t elem);

// Exit statuses: 0 ran and every result was right, 1 a step failed or a
// result was wrong (message on stderr), 77 no GPU.
int run_all_reduce(const BenchOptions& o, int gpus);
int run_kernel(const BenchOptions& o);

}  // namespace strata::nccl::bench

#endif  // STRATA_PLUGINS_NCCL_BENCH_BENCH_H_
