// nccl/broadcast/native: ncclBroadcast from the root's input (NCCL reads
// only the root's send buffer). Bytes travel as ncclUint8: a broadcast never
// interprets elements.
#include "algorithms.h"
#include "nccl_operation.h"

namespace strata::nccl {
namespace {

class BroadcastOp final : public NcclOperation {
 public:
  using NcclOperation::NcclOperation;

 private:
  ncclResult_t issue(size_t i, ncclComm_t comm, cudaStream_t stream) override {
    return ncclBroadcast(in(i), out(i), count() * elem(), ncclUint8, root(), comm, stream);
  }
};

class BroadcastNccl final : public NcclAlgorithm {
 public:
  explicit BroadcastNccl(std::shared_ptr<NcclContext> context)
      : NcclAlgorithm(STRATA_BROADCAST, "ncclBroadcast from the root's input (pipelined ring)",
                      std::move(context)) {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<BroadcastOp>(comms(team), call);
  }

 private:
  // A pipelined chain: n-1 hops of latency, the payload crosses once.
  double cost(double bytes, int n, double alpha, double beta, double) const override {
    if (n == 1) return alpha;
    return (n - 1) * alpha + bytes * beta;
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_broadcast_nccl(std::shared_ptr<NcclContext> context) {
  return std::make_unique<BroadcastNccl>(std::move(context));
}

}  // namespace strata::nccl
