// mpi/reduce/native: MPI_Ireduce to the call's root. The root reduces in
// place with MPI_IN_PLACE; the others only send, and their outputs are never
// passed to MPI, so nothing writes them (strata/abi/algorithm.h).
#include "algorithms.h"
#include "mpi_operation.h"
#include "mpi_types.h"

namespace strata::mpi {
namespace {

class ReduceOp final : public MpiOperation {
 public:
  using MpiOperation::MpiOperation;

 private:
  void start() override {
    const bool is_root = rank() == root();
    const void* send = is_root && in_place() ? MPI_IN_PLACE : in();
    check_mpi(MPI_Ireduce(send, is_root ? out() : nullptr, mpi_count(count()),
                          datatype_of(desc().dtype), op_of(desc().dtype, desc().redop), root(),
                          comm().handle(), &request_),
              "MPI_Ireduce");
  }
  void finish() override {
    if (rank() == root() && desc().redop == STRATA_MEAN) {
      divide_in_place(desc().dtype, out(), count(), static_cast<uint32_t>(size()));
    }
  }
};

class ReduceNative final : public MpiAlgorithm {
 public:
  explicit ReduceNative(const MpiOptions& options)
      : MpiAlgorithm(STRATA_REDUCE, "MPI_Ireduce (MPI_IN_PLACE at the root when in place)",
                     options) {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team,
                                         const strata_call_t& call) override {
    return std::make_unique<ReduceOp>(comm(team), call);
  }

 private:
  double cost(const strata_call_desc_t&, double bytes, int p) const override {
    return log2_ceil(p) * (message(bytes) + reduced(bytes));
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_reduce_native(const MpiOptions& options) {
  return std::make_unique<ReduceNative>(options);
}

}  // namespace strata::mpi
