// mpi/barrier/native: MPI_Ibarrier. Completes on a process only once every
// process of the team has entered it.
#include "algorithms.h"
#include "mpi_operation.h"

namespace strata::mpi {
namespace {

class BarrierOp final : public MpiOperation {
 public:
  using MpiOperation::MpiOperation;

 private:
  void start() override { check_mpi(MPI_Ibarrier(comm().handle(), &request_), "MPI_Ibarrier"); }
};

class BarrierNative final : public MpiAlgorithm {
 public:
  explicit BarrierNative(const MpiOptions& options)
      : MpiAlgorithm(STRATA_BARRIER, "MPI_Ibarrier", options) {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team,
                                         const strata_call_t& call) override {
    return std::make_unique<BarrierOp>(comm(team), call);
  }

 private:
  double cost(const strata_call_desc_t&, double, int p) const override {
    return 2 * log2_ceil(p) * message(0);  // dissemination: log2 p rounds each way
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_barrier_native(const MpiOptions& options) {
  return std::make_unique<BarrierNative>(options);
}

}  // namespace strata::mpi
