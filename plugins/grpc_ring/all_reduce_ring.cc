// grpc_ring/all_reduce/ring: the bandwidth-optimal ring. The buffer is cut
// into one block per process; p-1 reduce-scatter steps leave each process
// with one fully reduced block, p-1 all-gather steps pass the reduced blocks
// round. Every process sends and receives 2(p-1)/p of the buffer, the least
// any all-reduce can. Blocks move in chunks, so the step after the one
// whose chunk just arrived can forward it at once (ring_operation.h).
//
// Process r, with blocks numbered mod p:
//   reduce-scatter step s: send block r-s, receive block r-s-1 and reduce it
//   into the output (from the input, so out of place reads each input once);
//   all-gather step s: send block r+1-s (reduced), receive block r-s.
// MEAN sums until the last reduce-scatter step, which divides: the
// all-gather then carries finished means.
#include "ring_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::grpc_ring {
namespace {

class AllReduceRing final : public RingAlgorithm {
 public:
  explicit AllReduceRing(const GrpcRingOptions& options)
      : RingAlgorithm("ring", STRATA_ALL_REDUCE,
                      "bandwidth-optimal ring (reduce-scatter + all-gather) over gRPC streams, "
                      "chunks pipelined",
                      options) {}

 private:
  Plan plan(RingTeam& team, const strata_call_t& call) const override {
    const strata_call_desc_t& d = *call.desc;
    const int p = team.size();
    const int r = team.rank();
    const size_t elem = sdk::dtype_size(d.dtype);
    auto* in = static_cast<std::byte*>(call.inputs[0].data);
    auto* out = static_cast<std::byte*>(call.outputs[0].data);
    const Blocks blocks(d.count, p);
    auto at = [&](int b) { return blocks.offset(((b % p) + p) % p) * elem; };
    auto size = [&](int b) { return blocks.size(((b % p) + p) % p) * elem; };
    const strata_redop_t partial = d.redop == STRATA_MEAN ? STRATA_SUM : d.redop;

    Plan plan;
    std::vector<int64_t> first_recv;  // per step: index of its chunk 0
    for (int s = 0; s < 2 * (p - 1); ++s) {
      const bool scatter = s < p - 1;
      const int send_block = scatter ? r - s : r + 1 - (s - (p - 1));
      const int recv_block = scatter ? r - s - 1 : r - (s - (p - 1));
      const uint32_t step = static_cast<uint32_t>(s);
      // What is sent in step s > 0 is what arrived in step s-1.
      const std::byte* src = (s == 0 ? in : out) + at(send_block);
      for_each_chunk(size(send_block), elem, options().chunk_bytes,
                     [&](uint32_t c, uint64_t off, uint64_t n) {
                       const int64_t after = s == 0 ? -1 : first_recv[s - 1] + c;
                       plan.sends.push_back({step, c, src + off, n, after});
                     });
      first_recv.push_back(static_cast<int64_t>(plan.recvs.size()));
      for_each_chunk(size(recv_block), elem, options().chunk_bytes,
                     [&](uint32_t c, uint64_t off, uint64_t n) {
                       std::byte* dst = out + at(recv_block) + off;
                       if (!scatter) {
                         plan.recvs.push_back({step, c, dst, nullptr, STRATA_SUM, n});
                       } else {
                         const strata_redop_t op = s == p - 2 ? d.redop : partial;
                         plan.recvs.push_back({step, c, dst, in + at(recv_block) + off, op, n});
                       }
                     });
    }
    return plan;
  }

  double cost(double bytes, int p) const override {
    const double block = bytes / p;
    return 2 * (p - 1) * message(block) + (p - 1) * reduced(block);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_reduce_ring(const GrpcRingOptions& options) {
  return std::make_unique<AllReduceRing>(options);
}

}  // namespace strata::grpc_ring
