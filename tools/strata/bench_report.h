// Bench's results: nccl-tests' columns printed as each row completes, the
// same rows (plus the header facts) as JSON or CSV, and a progress line for
// terminals.
#ifndef STRATA_TOOLS_STRATA_BENCH_REPORT_H_
#define STRATA_TOOLS_STRATA_BENCH_REPORT_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/status.h"
#include "tools/strata/bench_timing.h"

namespace strata::cli {

// Facts about the run that every output repeats.
struct BenchSetup {
  std::string command_line;
  std::string version;
  CollectiveKind op = CollectiveKind::kAllReduce;
  DType dtype = DType::kF32;
  ReduceOp redop = ReduceOp::kSum;
  int root = 0;
  bool in_place = false;
  bool check = true;
  std::string check_note;  // why the check cannot run, when it cannot
  std::string device_type;
  std::vector<std::string> devices;     // "cpu:0", ...
  std::vector<std::string> algorithms;  // ids, and "auto"
  std::vector<std::string> left_out;    // "id: why" for --algorithm all
  CopyBandwidth copy;
  // The team's memory is host memory, so the host's copy bandwidth is the
  // yardstick for membw; false on GPUs, whose memory the host never touches.
  bool host_memory = true;
  uint64_t cache_bytes = 0;  // last-level cache, 0 when unknown
  TimingPolicy timing;
};

struct BenchRow {
  enum class Outcome { kOk, kDeclined, kFailed };
  uint64_t size = 0;      // bytes, as nccl-tests counts them
  uint64_t count = 0;     // size / element size
  std::string algorithm;  // the id, or "auto"
  std::string chosen;     // what auto picked (empty otherwise)
  Outcome outcome = Outcome::kOk;
  std::string reason;  // why declined or failed
  Timing timing;
  std::optional<double> model_us;        // the algorithm's own estimate of the call
  double algbw = 0;                      // GB/s
  double busbw = 0;                      // GB/s
  std::optional<double> membw;           // GB/s, all_reduce only
  std::optional<double> membw_fraction;  // of the measured copy bandwidth
  std::optional<uint64_t> wrong;         // nullopt: not checked
};

// busbw / algbw for `op` on n replicas, as nccl-tests defines it.
double bus_factor(CollectiveKind op, int n);
// Fills algbw, busbw and (all_reduce) the memory-bound columns from timing.
void compute_bandwidths(const BenchSetup& setup, BenchRow& row);

class BenchReport {
 public:
  explicit BenchReport(BenchSetup setup) : setup_(std::move(setup)) {}

  void print_header(std::ostream& os) const;
  // Records the row and prints it at once, so long sweeps show progress.
  void add(BenchRow row, std::ostream& os);
  void print_summary(std::ostream& os) const;

  uint64_t total_wrong() const;
  int failures() const;

  Status write_json(const std::string& path) const;
  Status write_csv(const std::string& path) const;

 private:
  void print_auto_verdict(std::ostream& os) const;
  bool has_membw() const { return setup_.op == CollectiveKind::kAllReduce && setup_.host_memory; }
  std::string redop_column() const;

  BenchSetup setup_;
  std::vector<BenchRow> rows_;
};

// "[k/N] 1 MiB  algorithm" on stderr, rewritten in place; only on a terminal.
class Progress {
 public:
  explicit Progress(int total);
  void show(int done, const std::string& what);
  void clear();

 private:
  int total_;
  bool enabled_;
  bool shown_ = false;
};

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_BENCH_REPORT_H_
