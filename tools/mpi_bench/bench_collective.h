// The collective strata-mpi-bench times, one object per size: its buffers,
// the raw MPI call it is measured against, the same call through
// CollectiveOps, and a check of either side's answer. One class per op in
// bench_collective.cc.
#ifndef STRATA_TOOLS_MPI_BENCH_BENCH_COLLECTIVE_H_
#define STRATA_TOOLS_MPI_BENCH_BENCH_COLLECTIVE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/collective/collective_ops.h"
#include "core/common/status.h"

namespace strata {

enum class BenchOp { kAllReduce, kBroadcast, kAllGather };

std::optional<BenchOp> parse_bench_op(std::string_view name);
const char* bench_op_name(BenchOp op);  // all_reduce, broadcast, all_gather
const char* mpi_reference_name(BenchOp op, bool p2p);  // MPI_Allreduce, ...
// How the buffers are filled and summed, for the run's header line.
const char* bench_op_data(BenchOp op);

// nccl-tests' busbw = algbw * this: 2(p-1)/p for all_reduce, (p-1)/p for
// all_gather, 1 for broadcast.
double bus_factor(BenchOp op, int world);

struct BenchShape {
  BenchOp op = BenchOp::kAllReduce;
  uint64_t bytes = 0;  // asked for: see BenchCollective::bytes()
  bool in_place = true;
  bool p2p_reference = false;  // all_reduce only: see mpi_bench.cc
  int rank = 0;
  int world = 1;
  strata_device_t device{0, 0};
  // The device type the buffers are allocated on (--buffers), or nullptr
  // for the C++ heap.
  const strata_device_type_t* memory = nullptr;
};

class BenchCollective {
 public:
  virtual ~BenchCollective() = default;

  // nccl-tests' size: the buffer for all_reduce and broadcast, the whole
  // gathered output for all_gather (world * each rank's part, which is
  // rounded down to whole elements, at least one).
  uint64_t bytes() const { return bytes_; }

  virtual void call_reference() = 0;
  virtual Status call_strata(CollectiveOps& ops, const CallOptions& call) = 0;
  // Puts the timing values back (an in-place sum grows with every call).
  virtual void refill() {}

  // Elements wrong on this rank after one call of `one_call` on inputs
  // whose right answer is known.
  long long wrong_after(const std::function<void()>& one_call);

 protected:
  explicit BenchCollective(uint64_t bytes) : bytes_(bytes) {}
  virtual void fill_for_check() = 0;
  virtual long long count_wrong() const = 0;

 private:
  uint64_t bytes_;
};

StatusOr<std::unique_ptr<BenchCollective>> make_bench_collective(const BenchShape& shape);

}  // namespace strata

#endif  // STRATA_TOOLS_MPI_BENCH_BENCH_COLLECTIVE_H_
