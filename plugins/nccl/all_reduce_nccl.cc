// nccl/all_reduce/native: ncclAllReduce on every local GPU in one group.
// In place when input and output are the same pointer, as NCCL detects.
#include "algorithms.h"
#include "nccl_operation.h"
#include "nccl_types.h"

namespace strata::nccl {
namespace {

class AllReduceOp final : public NcclOperation {
 public:
  using NcclOperation::NcclOperation;

 private:
  ncclResult_t issue(size_t i, ncclComm_t comm, cudaStream_t stream) override {
    return ncclAllReduce(in(i), out(i), count(), nccl_dtype(desc().dtype), nccl_op(desc().redop),
                         comm, stream);
  }
};

class AllReduceNccl final : public NcclAlgorithm {
 public:
  explicit AllReduceNccl(std::shared_ptr<NcclContext> context)
      : NcclAlgorithm(STRATA_ALL_REDUCE, "ncclAllReduce (ring or tree, NCCL's choice)",
                      std::move(context)) {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<AllReduceOp>(comms(team), call);
  }

 private:
  bool reduces() const override { return true; }
  // The ring: a reduce-scatter and an all-gather, 2(n-1) steps of bytes/n.
  double cost(double bytes, int n, double alpha, double beta, double gamma) const override {
    if (n == 1) return alpha;
    const double share = (n - 1.0) / n * bytes;
    return 2 * (n - 1) * alpha + 2 * share * beta + share * gamma;
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_reduce_nccl(std::shared_ptr<NcclContext> context) {
  return std::make_unique<AllReduceNccl>(std::move(context));
}

}  // namespace strata::nccl
