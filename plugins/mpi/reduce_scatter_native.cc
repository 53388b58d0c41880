// mpi/reduce_scatter/native: MPI_Ireduce_scatter_block. In place, Strata
// (like NCCL) wants the result in the process's own slot of the input,
// while MPI_IN_PLACE puts it at the start of the buffer, over slot 0, which
// must stay untouched; so in-place calls reduce into per-team scratch and
// copy the slot afterwards.
#include <cstring>

#include "algorithms.h"
#include "mpi_operation.h"
#include "mpi_types.h"
#include "strata/sdk/host_copy.h"

namespace strata::mpi {
namespace {

class ReduceScatterOp final : public MpiOperation {
 public:
  using MpiOperation::MpiOperation;

 private:
  void start() override {
    target_ = in_place() ? comm().scratch(count() * elem()) : out();
    check_mpi(MPI_Ireduce_scatter_block(in(), target_, mpi_count(count()),
                                        datatype_of(desc().dtype),
                                        op_of(desc().dtype, desc().redop), comm().handle(),
                                        &request_),
              "MPI_Ireduce_scatter_block");
  }
  void finish() override {
    if (target_ != out()) sdk::copy_host(out(), target_, count() * elem());
    if (desc().redop == STRATA_MEAN) {
      divide_in_place(desc().dtype, out(), count(), static_cast<uint32_t>(size()));
    }
  }
  void* target_ = nullptr;
};

class ReduceScatterNative final : public MpiAlgorithm {
 public:
  explicit ReduceScatterNative(const MpiOptions& options)
      : MpiAlgorithm(STRATA_REDUCE_SCATTER,
                     "MPI_Ireduce_scatter_block (through scratch when in place)", options) {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team,
                                         const strata_call_t& call) override {
    return std::make_unique<ReduceScatterOp>(comm(team), call);
  }

 private:
  double cost(const strata_call_desc_t&, double bytes, int p) const override {
    return (p - 1) * (message(bytes / p) + reduced(bytes / p));
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_reduce_scatter_native(const MpiOptions& options) {
  return std::make_unique<ReduceScatterNative>(options);
}

}  // namespace strata::mpi
