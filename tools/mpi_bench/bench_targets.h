// Issue 27's targets, judged on one strata-mpi-bench run: a verdict line
// per target, naming the size where it comes closest to failing (the
// shape of python/strata/torch/bench's `# target ...: holds (...)`).
#ifndef STRATA_TOOLS_MPI_BENCH_BENCH_TARGETS_H_
#define STRATA_TOOLS_MPI_BENCH_BENCH_TARGETS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata {

// One measured size. Times are each side's best per call; median_ratio is
// the median over rounds of side time / reference time.
struct MeasuredRow {
  uint64_t requested_bytes = 0;  // the sweep's size (what a target names)
  double reference_seconds = 0;
  double side_seconds = 0;
  double median_ratio = 0;
  double bound_seconds = 0;  // 0: no bound; from the higher copy bandwidth
  double bus_bytes = 0;      // busbw x time: the bytes each rank must take in
  double ceiling = 0;        // bytes per second (peer_copy.h); 0: not measured
  double single_copy_seconds = 0;  // the single-copy bound (memory_bound.h); 0: none
};

struct TargetVerdict {
  std::string text;
  std::optional<bool> holds;  // nullopt: the run measured nothing it covers
  std::string detail;
};

// side/reference: the columns' names (strata and mpi, or mpi_again under
// --null, when every target reads the benchmark's own noise).
std::vector<TargetVerdict> judge_targets(const std::vector<MeasuredRow>& rows,
                                         const std::string& side, const std::string& reference);

// "# target <text>: holds|FAILS|n/a (<detail>)"
std::string verdict_line(const TargetVerdict& v);

// Where the speedup target asks for more than the copy ceiling allows:
// "# ceiling: 2x mpi's busbw is above it at 512 KiB, 1 MiB (...)", or ""
// when it is below at every measured size of the target's range.
std::string ceiling_line(const std::vector<MeasuredRow>& rows, const std::string& reference);

// Where the speedup target asks for a time below the single-copy memory
// bound (from 32 MiB, where the buffers outgrow the caches): "# bound: 2x
// mpi's busbw needs less time than ... at 32 MiB (...), 64 MiB (...)", or
// "" when it does nowhere. A yardstick, as the ceiling: the part of the
// buffers a cache still holds moves faster than the copy bandwidth.
std::string bound_line(const std::vector<MeasuredRow>& rows, const std::string& reference);

}  // namespace strata

#endif  // STRATA_TOOLS_MPI_BENCH_BENCH_TARGETS_H_
