// nccl/reduce_scatter/native: ncclReduceScatter, `count` elements per
// replica out of count * replicas in. In place the output is the replica's
// slot of its input, which is NCCL's convention too.
#include "algorithms.h"
#include "nccl_operation.h"
#include "nccl_types.h"

namespace strata::nccl {
namespace {

class ReduceScatterOp final : public NcclOperation {
 public:
  using NcclOperation::NcclOperation;

 private:
  ncclResult_t issue(size_t i, ncclComm_t comm, cudaStream_t stream) override {
    return ncclReduceScatter(in(i), out(i), count(), nccl_dtype(desc().dtype),
                             nccl_op(desc().redop), comm, stream);
  }
};

class ReduceScatterNccl final : public NcclAlgorithm {
 public:
  explicit ReduceScatterNccl(std::shared_ptr<NcclContext> context)
      : NcclAlgorithm(STRATA_REDUCE_SCATTER, "ncclReduceScatter (ring)", std::move(context)) {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<ReduceScatterOp>(comms(team), call);
  }

 private:
  bool reduces() const override { return true; }
  // `bytes` is the whole input: n-1 steps, each moving and reducing a slot.
  double cost(double bytes, int n, double alpha, double beta, double gamma) const override {
    if (n == 1) return alpha;
    const double share = (n - 1.0) / n * bytes;
    return (n - 1) * alpha + share * (beta + gamma);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_reduce_scatter_nccl(std::shared_ptr<NcclContext> context) {
  return std::make_unique<ReduceScatterNccl>(std::move(context));
}

}  // namespace strata::nccl
