// nccl/all_gather/native: ncclAllGather. Strata's in-place layout (the
// input is the replica's slot of its output) is NCCL's own, so both layouts
// pass straight through. Bytes travel as ncclUint8.
#include "algorithms.h"
#include "nccl_operation.h"

namespace strata::nccl {
namespace {

class AllGatherOp final : public NcclOperation {
 public:
  using NcclOperation::NcclOperation;

 private:
  ncclResult_t issue(size_t i, ncclComm_t comm, cudaStream_t stream) override {
    return ncclAllGather(in(i), out(i), count() * elem(), ncclUint8, comm, stream);
  }
};

class AllGatherNccl final : public NcclAlgorithm {
 public:
  explicit AllGatherNccl(std::shared_ptr<NcclContext> context)
      : NcclAlgorithm(STRATA_ALL_GATHER, "ncclAllGather (ring)", std::move(context)) {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<AllGatherOp>(comms(team), call);
  }

 private:
  // `bytes` is the whole output: n-1 steps each pass one slot on.
  double cost(double bytes, int n, double alpha, double beta, double) const override {
    if (n == 1) return alpha;
    return (n - 1) * alpha + (n - 1.0) / n * bytes * beta;
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_gather_nccl(std::shared_ptr<NcclContext> context) {
  return std::make_unique<AllGatherNccl>(std::move(context));
}

}  // namespace strata::nccl
