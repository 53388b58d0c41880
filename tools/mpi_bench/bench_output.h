// What strata-mpi-bench prints (a text table on rank 0's stdout) and
// writes (--csv, atomically: a temporary file renamed at the end).
#ifndef STRATA_TOOLS_MPI_BENCH_BENCH_OUTPUT_H_
#define STRATA_TOOLS_MPI_BENCH_BENCH_OUTPUT_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "core/common/status.h"
#include "tools/mpi_bench/bench_loop.h"
#include "tools/mpi_bench/memory_bound.h"

namespace strata {

// Column prefixes: the reference (mpi or p2p) and the other side (strata,
// or <reference>_again under --null; side_short in the text table).
struct OutputNames {
  std::string reference;
  std::string side;
  std::string side_short;
  bool with_null = false;  // a null column: <reference>_again_us, null_median_ratio
};

struct SizeReport {
  uint64_t bytes = 0;  // nccl-tests' size
  SizeTiming timing;
  long long wrong = 0;
  double bus_factor = 1;
  CopyBandwidth copy;
  double bound_seconds = 0;  // 0: no bound
  double ceiling_bytes_per_second = 0;  // the copy ceiling (peer_copy.h); 0: none
  double cma_bytes_per_second = 0;      // the kernel's single copy (peer_copy.h); 0: none
};

class BenchOutput {
 public:
  // Only the `active` rank (0) prints or writes anything.
  BenchOutput(OutputNames names, bool cpu, bool active);
  ~BenchOutput();
  BenchOutput(const BenchOutput&) = delete;
  BenchOutput& operator=(const BenchOutput&) = delete;

  Status open_csv(const std::string& path);  // "" writes none
  void comment(const std::string& text);     // "# " + text
  void line(const std::string& text);
  void header();
  void row(const SizeReport& r);
  // Renames the CSV into place.
  Status close();

 private:
  OutputNames names_;
  bool cpu_;
  bool active_;
  std::string csv_path_;
  std::FILE* csv_ = nullptr;
};

// "copy bandwidth <when>: 41.3 GB/s (...)"
std::string copy_bandwidth_line(const CopyBandwidth& copy, const char* when);

}  // namespace strata

#endif  // STRATA_TOOLS_MPI_BENCH_BENCH_OUTPUT_H_
