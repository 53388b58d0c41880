// mpi/all_reduce/native: every process ends with the reduction of all
// inputs. Runs the point-to-point plans of p2p_schedule.h (recursive
// doubling for small payloads, ring or halving-doubling for large;
// all_reduce_schedule picks)
// or, with the option `all_reduce: mpi`, MPI_Iallreduce for MPI libraries
// that offload it.
#include "algorithms.h"
#include "mpi_operation.h"
#include "mpi_types.h"
#include "p2p_schedule.h"
#include "strata/sdk/types.h"

namespace strata::mpi {
namespace {

class IallreduceOp final : public MpiOperation {
 public:
  using MpiOperation::MpiOperation;

 private:
  void start() override {
    check_mpi(MPI_Iallreduce(in_place() ? MPI_IN_PLACE : in(), out(), mpi_count(count()),
                             datatype_of(desc().dtype), op_of(desc().dtype, desc().redop),
                             comm().handle(), &request_),
              "MPI_Iallreduce");
  }
  void finish() override {
    if (desc().redop == STRATA_MEAN) {
      divide_in_place(desc().dtype, out(), count(), static_cast<uint32_t>(size()));
    }
  }
};

class AllReduceNative final : public MpiAlgorithm {
 public:
  explicit AllReduceNative(const MpiOptions& options)
      : MpiAlgorithm(STRATA_ALL_REDUCE,
                     "non-blocking point-to-point recursive doubling (small) or ring (large), "
                     "or MPI_Iallreduce (option all_reduce: mpi)",
                     options) {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team,
                                         const strata_call_t& call) override {
    Comm& c = comm(team);
    const uint64_t bytes = call.desc->count * sdk::dtype_size(call.desc->dtype);
    switch (all_reduce_schedule(options(), bytes, c.size(), c.eager_bytes())) {
      case AllReduceSchedule::kMpi: return std::make_unique<IallreduceOp>(c, call);
      case AllReduceSchedule::kRing:
        return std::make_unique<ScheduleOperation>(c, call, ScheduleOperation::Kind::kRing,
                                                   options().ring_chunk_bytes);
      case AllReduceSchedule::kHalvingDoubling:
        return std::make_unique<ScheduleOperation>(
            c, call, ScheduleOperation::Kind::kHalvingDoubling, 0);
      default:
        return std::make_unique<ScheduleOperation>(
            c, call, ScheduleOperation::Kind::kRecursiveDoubling, 0);
    }
  }

 private:
  double cost(const strata_call_desc_t&, double bytes, int p) const override {
    // Priced without the team's eager limit, which is known only once the
    // team forms; on the 4-8 KiB calls it touches, it moves one latency.
    switch (all_reduce_schedule(options(), static_cast<uint64_t>(bytes), p, 0)) {
      case AllReduceSchedule::kRing: {
        const double block = bytes / p;
        return 2 * (p - 1) * message(block) + (p - 1) * reduced(block);
      }
      case AllReduceSchedule::kHalvingDoubling: {
        // Among the largest power of two: log2 of it halvings and doublings
        // moving the ring's bytes; the others folded in and out whole.
        const int steps = log2_ceil(p + 1) - 1;  // floor(log2 p)
        const double pof2 = static_cast<double>(1 << steps);
        const int fold = (p & (p - 1)) != 0 ? 2 : 0;
        const double share = bytes * (pof2 - 1) / pof2;
        return 2 * steps * options().alpha + 2 * share * options().beta + reduced(share) +
               fold * message(bytes) + (fold / 2) * reduced(bytes);
      }
      case AllReduceSchedule::kMpi:  // libnbc: reduce to a root, broadcast back
        return 2 * log2_ceil(p) * message(bytes) + log2_ceil(p) * reduced(bytes);
      default: {
        const int pof2_steps = log2_ceil(p + 1) - 1;  // floor(log2 p)
        const int fold = (p & (p - 1)) != 0 ? 2 : 0;
        return (pof2_steps + fold) * message(bytes) + (pof2_steps + fold / 2) * reduced(bytes);
      }
    }
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_reduce_native(const MpiOptions& options) {
  return std::make_unique<AllReduceNative>(options);
}

}  // namespace strata::mpi
