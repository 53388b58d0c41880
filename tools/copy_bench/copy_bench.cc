// strata-copy-bench: glibc's memcpy against sdk::copy_host for a source and
// destination `distance` bytes apart modulo the 4 KiB page, in cache and
// out. The case copy_host exists for is distance 16 — a page-aligned
// staging slot copied to or from a malloc'd tensor — where Debian 12's
// glibc runs `rep movsb` at a twentieth of its speed on AMD EPYC
// (docs/performance/shm.md, "memcpy and page aliasing").
//
//   build/bin/strata-copy-bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "strata/sdk/host_copy.h"

namespace {

struct Free {
  void operator()(void* p) const { std::free(p); }
};

template <bool kCopyHost>
void copy(benchmark::State& state) {
  const auto bytes = static_cast<uint64_t>(state.range(0));
  const auto distance = static_cast<uint64_t>(state.range(1));
  const uint64_t room = bytes + 2 * 4096;
  std::unique_ptr<std::byte, Free> src(static_cast<std::byte*>(std::aligned_alloc(4096, room)));
  std::unique_ptr<std::byte, Free> dst(static_cast<std::byte*>(std::aligned_alloc(4096, room)));
  std::memset(src.get(), 1, room);
  std::memset(dst.get(), 2, room);
  const std::byte* from = src.get();
  std::byte* to = dst.get() + distance;
  for (auto _ : state) {
    if constexpr (kCopyHost) {
      strata::sdk::copy_host(to, from, bytes);
    } else {
      std::memcpy(to, from, bytes);
    }
    benchmark::DoNotOptimize(to);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
}

void sizes_and_distances(benchmark::internal::Benchmark* b) {
  for (int64_t bytes : {4 << 10, 64 << 10, 1 << 20, 64 << 20}) {
    for (int64_t distance : {0, 16, 64}) b->Args({bytes, distance});
  }
  b->ArgNames({"bytes", "distance"});
}

BENCHMARK(copy<false>)->Name("memcpy")->Apply(sizes_and_distances);
BENCHMARK(copy<true>)->Name("copy_host")->Apply(sizes_and_distances);

}  // namespace

BENCHMARK_MAIN();
