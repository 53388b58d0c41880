// grpc_ring/reduce_scatter/ring: the first half of the ring all-reduce. In
// step s process r sends block r-s-1 and receives block r-s-2, reducing it
// with its own input; after p-1 steps the block that arrives last is block
// r, fully reduced, and goes straight to the output. Partial blocks live in
// team scratch, never in the input: in place, the output is slot r of the
// input (NCCL's layout) and every other slot must stay as it was.
#include "ring_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::grpc_ring {
namespace {

class ReduceScatterRing final : public RingAlgorithm {
 public:
  explicit ReduceScatterRing(const GrpcRingOptions& options)
      : RingAlgorithm("ring", STRATA_REDUCE_SCATTER,
                      "ring reduce-scatter over gRPC streams, chunks pipelined", options) {}

 private:
  Plan plan(RingTeam& team, const strata_call_t& call) const override {
    const strata_call_desc_t& d = *call.desc;
    const int p = team.size();
    const int r = team.rank();
    const size_t elem = sdk::dtype_size(d.dtype);
    const uint64_t block = d.count * elem;
    const auto* in = static_cast<const std::byte*>(call.inputs[0].data);
    auto* out = static_cast<std::byte*>(call.outputs[0].data);
    std::byte* scratch = team.scratch(block * static_cast<uint64_t>(p));
    auto at = [&](int b) { return static_cast<uint64_t>(((b % p) + p) % p) * block; };
    const strata_redop_t partial = d.redop == STRATA_MEAN ? STRATA_SUM : d.redop;

    Plan plan;
    int64_t previous = -1;  // index of the previous step's first receive
    for (int s = 0; s < p - 1; ++s) {
      const uint32_t step = static_cast<uint32_t>(s);
      const bool last = s == p - 2;
      const int send_block = r - s - 1;
      const int recv_block = r - s - 2;
      // Step 0 sends its own input; later steps forward what just arrived.
      const std::byte* src = (s == 0 ? in : scratch) + at(send_block);
      for_each_chunk(block, elem, options().chunk_bytes,
                     [&](uint32_t c, uint64_t off, uint64_t n) {
                       const int64_t after = s == 0 ? -1 : previous + c;
                       plan.sends.push_back({step, c, src + off, n, after});
                     });
      previous = static_cast<int64_t>(plan.recvs.size());
      std::byte* dst = last ? out : scratch + at(recv_block);
      for_each_chunk(block, elem, options().chunk_bytes,
                     [&](uint32_t c, uint64_t off, uint64_t n) {
                       plan.recvs.push_back({step, c, dst + off, in + at(recv_block) + off,
                                             last ? d.redop : partial, n});
                     });
    }
    return plan;
  }

  double cost(double bytes, int p) const override {
    return (p - 1) * (message(bytes / p) + reduced(bytes / p));
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_reduce_scatter_ring(const GrpcRingOptions& options) {
  return std::make_unique<ReduceScatterRing>(options);
}

}  // namespace strata::grpc_ring
