// How bench measures: this machine's copy bandwidth (the yardstick for the
// memory-bound fraction), and the time of one collective call.
#ifndef STRATA_TOOLS_STRATA_BENCH_TIMING_H_
#define STRATA_TOOLS_STRATA_BENCH_TIMING_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "core/common/status.h"

namespace strata::cli {

struct CopyBandwidth {
  double bytes_per_second = 0;  // reads plus writes: 2 x bytes copied / time
  uint64_t bytes = 0;           // copied per repetition, split over the threads
  int threads = 0;
  int repetitions = 0;
};

// memcpy of `bytes` (split into one slice per thread) on `threads` threads at
// once, best of several repetitions, buffers written beforehand so no page
// fault is timed. Large copies stream past the caches, as large collectives
// do, so this is the rate a memory-bound collective can at best reach.
StatusOr<CopyBandwidth> measure_copy_bandwidth(uint64_t bytes, int threads);

// The largest data cache the OS reports (L3, else L2), 0 when unknown.
// Collectives whose buffers fit in it can beat the copy bandwidth above.
uint64_t last_level_cache_bytes();

struct TimingPolicy {
  int warmup = 5;               // untimed calls first
  int iters = 0;                // timed calls; 0: as many as fit in target_seconds
  double target_seconds = 0.2;  // adaptive: timed work per size
  int min_iters = 5;
  int max_iters = 5000;
};

struct Timing {
  int iters = 0;
  double median_us = 0;  // what bench prints: robust to a descheduled call
  double mean_us = 0;
  double min_us = 0;
  double max_us = 0;
};

// Times `call` one call at a time (steady clock around the blocking call),
// appending microseconds to `samples`, until `max_calls` calls or, when
// `seconds` > 0, that much time has passed (after at least `min_calls`).
// The first failing call's Status is returned unchanged.
Status time_calls(const std::function<Status()>& call, int min_calls, int max_calls,
                  double seconds, std::vector<double>& samples);

// Median, mean, min and max of the samples.
Timing summarize(std::vector<double> samples);

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_BENCH_TIMING_H_
