#include "tools/strata/bench_timing.h"

#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstring>
#include <memory>
#include <new>
#include <numeric>
#include <thread>
#include <vector>

namespace strata::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kCopyRepetitions = 5;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Keeps the copies observable: the result depends on what memcpy wrote.
volatile unsigned char g_copy_sink = 0;

}  // namespace

StatusOr<CopyBandwidth> measure_copy_bandwidth(uint64_t bytes, int threads) {
  threads = std::max(threads, 1);
  bytes = std::max<uint64_t>(bytes, static_cast<uint64_t>(threads) * 4096);
  std::unique_ptr<unsigned char[]> src(new (std::nothrow) unsigned char[bytes]);
  std::unique_ptr<unsigned char[]> dst(new (std::nothrow) unsigned char[bytes]);
  if (src == nullptr || dst == nullptr) {
    return OutOfMemoryError("cannot allocate 2 x " + std::to_string(bytes) +
                            " B to measure copy bandwidth; lower --copy-size");
  }
  std::memset(src.get(), 1, bytes);
  std::memset(dst.get(), 2, bytes);

  const uint64_t slice = bytes / static_cast<uint64_t>(threads);
  // Threads start once and meet the main thread at two barriers per
  // repetition, so thread start-up is never timed.
  std::barrier sync(threads + 1);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      const uint64_t begin = slice * static_cast<uint64_t>(t);
      const uint64_t len = t + 1 == threads ? bytes - begin : slice;
      for (int rep = 0; rep < kCopyRepetitions; ++rep) {
        sync.arrive_and_wait();
        std::memcpy(dst.get() + begin, src.get() + begin, len);
        sync.arrive_and_wait();
      }
    });
  }
  double best = 0;
  for (int rep = 0; rep < kCopyRepetitions; ++rep) {
    const auto start = Clock::now();
    sync.arrive_and_wait();
    sync.arrive_and_wait();
    const double elapsed = seconds_since(start);
    if (elapsed > 0) best = std::max(best, 2.0 * static_cast<double>(bytes) / elapsed);
    g_copy_sink = static_cast<unsigned char>(g_copy_sink + dst[bytes / 2]);
  }
  for (auto& w : workers) w.join();
  return CopyBandwidth{best, bytes, threads, kCopyRepetitions};
}

uint64_t last_level_cache_bytes() {
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    const long bytes = sysconf(name);
    if (bytes > 0) return static_cast<uint64_t>(bytes);
  }
  return 0;
}

Status time_calls(const std::function<Status()>& call, int min_calls, int max_calls,
                  double seconds, std::vector<double>& samples) {
  const auto begin = Clock::now();
  for (int n = 0; n < max_calls; ++n) {
    const auto start = Clock::now();
    Status s = call();
    samples.push_back(seconds_since(start) * 1e6);
    STRATA_RETURN_IF_ERROR(s);
    if (seconds > 0 && n + 1 >= min_calls && seconds_since(begin) >= seconds) break;
  }
  return Status::Ok();
}

Timing summarize(std::vector<double> samples) {
  Timing t;
  if (samples.empty()) return t;
  t.iters = static_cast<int>(samples.size());
  t.mean_us = std::accumulate(samples.begin(), samples.end(), 0.0) / t.iters;
  std::sort(samples.begin(), samples.end());
  const size_t mid = samples.size() / 2;
  t.median_us = samples.size() % 2 == 1 ? samples[mid] : (samples[mid - 1] + samples[mid]) / 2;
  t.min_us = samples.front();
  t.max_us = samples.back();
  return t;
}

}  // namespace strata::cli
