// mpi/broadcast/native: MPI_Ibcast. The root broadcasts straight from its
// input (MPI only reads the root's buffer) and copies it into its own output
// meanwhile; the others receive into their outputs. Data travels as bytes:
// a broadcast never interprets elements.
#include <cstring>

#include "algorithms.h"
#include "mpi_operation.h"
#include "strata/sdk/host_copy.h"

namespace strata::mpi {
namespace {

class BroadcastOp final : public MpiOperation {
 public:
  using MpiOperation::MpiOperation;

 private:
  void start() override {
    const int bytes = mpi_count(count() * elem());
    void* buffer = rank() == root() ? in() : out();
    check_mpi(MPI_Ibcast(buffer, bytes, MPI_BYTE, root(), comm().handle(), &request_),
              "MPI_Ibcast");
    if (rank() == root() && !in_place()) sdk::copy_host(out(), in(), count() * elem());
  }
};

class BroadcastNative final : public MpiAlgorithm {
 public:
  explicit BroadcastNative(const MpiOptions& options)
      : MpiAlgorithm(STRATA_BROADCAST, "MPI_Ibcast from the root's input", options) {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team,
                                         const strata_call_t& call) override {
    return std::make_unique<BroadcastOp>(comm(team), call);
  }

 private:
  double cost(const strata_call_desc_t&, double bytes, int p) const override {
    return log2_ceil(p) * message(bytes);  // a binomial tree
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_broadcast_native(const MpiOptions& options) {
  return std::make_unique<BroadcastNative>(options);
}

}  // namespace strata::mpi
