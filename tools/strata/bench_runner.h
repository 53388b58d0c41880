// One algorithm under test (or AUTO) in `strata bench`. Each keeps its own
// CollectiveOps for the whole sweep, so team state (scratch buffers, stream
// events) is built once and reused by every size and iteration, as in a
// training loop; only a failure that breaks the team rebuilds it.
#ifndef STRATA_TOOLS_STRATA_BENCH_RUNNER_H_
#define STRATA_TOOLS_STRATA_BENCH_RUNNER_H_

#include <memory>
#include <optional>
#include <string>

#include "core/collective/collective_ops.h"
#include "core/runtime/runtime.h"
#include "tools/strata/bench_buffers.h"
#include "tools/strata/bench_pattern.h"
#include "tools/strata/bench_report.h"
#include "tools/strata/bench_timing.h"

namespace strata::cli {

// The call shape every size of a sweep shares.
struct BenchCall {
  CollectiveKind op = CollectiveKind::kAllReduce;
  DType dtype = DType::kF32;
  ReduceOp redop = ReduceOp::kSum;
  int root = 0;
  bool in_place = false;
};

class BenchRunner {
 public:
  // `algorithm`: an id to force, or empty for AUTO (the selector decides).
  static StatusOr<std::unique_ptr<BenchRunner>> create(std::shared_ptr<Runtime> runtime,
                                                       std::string device_type, int devices,
                                                       std::string algorithm);

  // Why this (forced) algorithm declines every one of `counts`, or nullopt
  // when it accepts at least one: `--algorithm all` leaves such algorithms
  // out (a tpu algorithm on a cpu team) instead of filling the table with
  // declined rows.
  std::optional<std::string> declines_every(const BenchCall& call,
                                            const std::vector<uint64_t>& counts);

  // "auto" or the algorithm id.
  std::string label() const { return algorithm_.empty() ? "auto" : algorithm_; }
  Team& team() { return ops_->team(); }

  // A size is measured in three steps so that bench can interleave the
  // algorithms round by round: background noise then falls on all of them
  // alike, which is what makes "AUTO vs the best algorithm" a fair ratio.
  //
  // begin: is the size accepted? then warm up. Returns false when the row is
  // already final (declined or failed).
  bool begin(const BenchCall& call, uint64_t count, ReplicaBuffers& buffers, int warmup,
             BenchRow& row);
  // Time up to `max_calls` calls or `seconds`; false when a call failed.
  bool time_round(const BenchCall& call, uint64_t count, ReplicaBuffers& buffers,
                  int min_calls, int max_calls, double seconds, BenchRow& row);
  // Summarise the samples, then run once more on known data and count wrong
  // elements (when `pattern` is given).
  void finish(const BenchCall& call, uint64_t count, ReplicaBuffers& buffers,
              const Pattern* pattern, BenchRow& row);

 private:
  BenchRunner() = default;
  // A reason to skip this size, from the selector's own checks.
  StatusOr<std::optional<std::string>> decline_reason(const BenchCall& call, uint64_t count,
                                                      std::string& chosen);
  Status run_once(const BenchCall& call, const CallBuffers& buffers);
  void fail(BenchRow& row, const Status& status);

  std::shared_ptr<Runtime> runtime_;
  std::string device_type_;
  int devices_ = 0;
  std::string algorithm_;
  std::unique_ptr<CollectiveOps> ops_;
  std::vector<double> samples_;  // of the size being measured
  std::optional<double> estimate_;  // seconds, for the size being measured
};

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_BENCH_RUNNER_H_
