// strata_nccl_bench [--devices N] [--min-bytes B] [--max-bytes B]
//                   [--iterations N] [--warmup N] [--only all_reduce|kernel]
//                   [--plugin PATH]
// Prints, per size, the plugin's all_reduce next to raw NCCL on the same
// GPUs (time, algbw, busbw, wrong elements), then the reduce kernel's
// bandwidth next to cudaMemcpy's. Exit 77 (skipped) without a GPU.
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "bench.h"

namespace strata::nccl::bench {

std::vector<uint64_t> sizes(const BenchOptions& o, uint64_t elem) {
  std::vector<uint64_t> out;
  for (uint64_t b = std::max(o.min_bytes, elem); b <= o.max_bytes; b *= 2) out.push_back(b / elem * elem);
  return out;
}

}  // namespace strata::nccl::bench

int main(int argc, char** argv) {
  using namespace strata::nccl::bench;
  BenchOptions o;
  o.plugin = STRATA_NCCL_PLUGIN;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      std::cout << "usage: strata_nccl_bench [--devices N] [--min-bytes B] [--max-bytes B] "
                   "[--iterations N] [--warmup N] [--only all_reduce|kernel] [--plugin PATH]\n";
      return 0;
    }
    if (!has_value) {
      std::cerr << "strata_nccl_bench: " << arg << " needs a value (see --help)\n";
      return 2;
    }
    const std::string value = argv[++i];
    if (arg == "--devices") o.devices = std::atoi(value.c_str());
    else if (arg == "--min-bytes") o.min_bytes = std::strtoull(value.c_str(), nullptr, 10);
    else if (arg == "--max-bytes") o.max_bytes = std::strtoull(value.c_str(), nullptr, 10);
    else if (arg == "--iterations") o.iterations = std::atoi(value.c_str());
    else if (arg == "--warmup") o.warmup = std::atoi(value.c_str());
    else if (arg == "--plugin") o.plugin = value;
    else if (arg == "--only") {
      o.all_reduce = value == "all_reduce";
      o.kernel = value == "kernel";
    } else {
      std::cerr << "strata_nccl_bench: unknown option " << arg << " (see --help)\n";
      return 2;
    }
  }
  if (o.iterations < 1 || o.warmup < 0 || o.min_bytes == 0 || o.max_bytes < o.min_bytes ||
      (!o.all_reduce && !o.kernel)) {
    std::cerr << "strata_nccl_bench: bad --iterations, --warmup, --min/max-bytes or --only\n";
    return 2;
  }
  int gpus = 0;
  const cudaError_t e = cudaGetDeviceCount(&gpus);
  if (e != cudaSuccess || gpus == 0) {
    std::cout << "strata_nccl_bench: skipped, no CUDA device ("
              << (e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found 0") << ")\n";
    return 77;
  }
  if (o.devices <= 0 || o.devices > gpus) o.devices = gpus;
  int status = 0;
  if (o.all_reduce) status = run_all_reduce(o, gpus);
  if (status == 0 && o.kernel) status = run_kernel(o);
  return status;
}
