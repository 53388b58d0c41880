// mpi/all_gather/native: MPI_Iallgather. In place, each process's input is
// already its slot of the output, which is exactly MPI_IN_PLACE's layout
// for all-gather. Data travels as bytes.
#include "algorithms.h"
#include "mpi_operation.h"

namespace strata::mpi {
namespace {

class AllGatherOp final : public MpiOperation {
 public:
  using MpiOperation::MpiOperation;

 private:
  void start() override {
    const int bytes = mpi_count(count() * elem());
    check_mpi(MPI_Iallgather(in_place() ? MPI_IN_PLACE : in(), bytes, MPI_BYTE, out(), bytes,
                             MPI_BYTE, comm().handle(), &request_),
              "MPI_Iallgather");
  }
};

class AllGatherNative final : public MpiAlgorithm {
 public:
  explicit AllGatherNative(const MpiOptions& options)
      : MpiAlgorithm(STRATA_ALL_GATHER, "MPI_Iallgather (MPI_IN_PLACE when in place)", options) {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team,
                                         const strata_call_t& call) override {
    return std::make_unique<AllGatherOp>(comm(team), call);
  }

 private:
  double cost(const strata_call_desc_t&, double bytes, int p) const override {
    return (p - 1) * message(bytes / p);  // a ring of p - 1 blocks
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_gather_native(const MpiOptions& options) {
  return std::make_unique<AllGatherNative>(options);
}

}  // namespace strata::mpi
