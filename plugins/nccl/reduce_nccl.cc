// nccl/reduce/native: ncclReduce to the root, which is a global replica
// rank and so the root's NCCL rank. Only the root's output is written, and
// so only the root's output is divided for MEAN.
#include "algorithms.h"
#include "nccl_operation.h"
#include "nccl_types.h"

namespace strata::nccl {
namespace {

class ReduceOp final : public NcclOperation {
 public:
  using NcclOperation::NcclOperation;

 private:
  ncclResult_t issue(size_t i, ncclComm_t comm, cudaStream_t stream) override {
    return ncclReduce(in(i), out(i), count(), nccl_dtype(desc().dtype), nccl_op(desc().redop),
                      root(), comm, stream);
  }
  bool divides(size_t i) const override { return rank(i) == root(); }
};

class ReduceNccl final : public NcclAlgorithm {
 public:
  explicit ReduceNccl(std::shared_ptr<NcclContext> context)
      : NcclAlgorithm(STRATA_REDUCE, "ncclReduce to the root (pipelined chain)",
                      std::move(context)) {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<ReduceOp>(comms(team), call);
  }

 private:
  bool reduces() const override { return true; }
  // A pipelined chain toward the root, reducing at every hop.
  double cost(double bytes, int n, double alpha, double beta, double gamma) const override {
    if (n == 1) return alpha;
    return (n - 1) * alpha + bytes * (beta + gamma);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_reduce_nccl(std::shared_ptr<NcclContext> context) {
  return std::make_unique<ReduceNccl>(std::move(context));
}

}  // namespace strata::nccl
