// grpc_ring/broadcast/chain: the root's buffer flows along the ring, root ->
// root+1 -> ... -> root-1, in chunks; each process forwards a chunk as soon
// as it has stored it, so for large buffers every link is busy at once and
// the time approaches one buffer's transfer, whatever the team size. The
// last process of the chain only receives.
#include <cstring>

#include "ring_algorithm.h"
#include "strata/sdk/host_copy.h"
#include "strata/sdk/types.h"

namespace strata::grpc_ring {
namespace {

class BroadcastChain final : public RingAlgorithm {
 public:
  explicit BroadcastChain(const GrpcRingOptions& options)
      : RingAlgorithm("chain", STRATA_BROADCAST,
                      "pipelined chain along the ring over gRPC streams", options) {}

 private:
  Plan plan(RingTeam& team, const strata_call_t& call) const override {
    const strata_call_desc_t& d = *call.desc;
    const int p = team.size();
    const int position = (team.rank() - d.root + p) % p;  // 0 is the root
    const size_t elem = sdk::dtype_size(d.dtype);
    const uint64_t bytes = d.count * elem;
    auto* out = static_cast<std::byte*>(call.outputs[0].data);

    Plan plan;
    if (position == 0) {
      const auto* in = static_cast<const std::byte*>(call.inputs[0].data);
      if (d.in_place == 0) plan.before = [out, in, bytes] { sdk::copy_host(out, in, bytes); };
      for_each_chunk(bytes, elem, options().chunk_bytes,
                     [&](uint32_t c, uint64_t off, uint64_t n) {
                       plan.sends.push_back({0, c, in + off, n, -1});
                     });
      return plan;
    }
    for_each_chunk(bytes, elem, options().chunk_bytes,
                   [&](uint32_t c, uint64_t off, uint64_t n) {
                     plan.recvs.push_back({0, c, out + off, nullptr, STRATA_SUM, n});
                     if (position < p - 1) {
                       plan.sends.push_back({0, c, out + off, n, static_cast<int64_t>(c)});
                     }
                   });
    return plan;
  }

  double cost(double bytes, int p) const override {
    // Pipelined: one buffer's transfer plus a chunk's per extra hop.
    const double chunk = std::min(bytes, static_cast<double>(options().chunk_bytes));
    return message(bytes) + (p - 2) * message(chunk);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_broadcast_chain(const GrpcRingOptions& options) {
  return std::make_unique<BroadcastChain>(options);
}

}  // namespace strata::grpc_ring
