// grpc_ring/all_gather/ring: p-1 steps round the ring; in step s process r
// sends block r-s (its own first, then the one that just arrived) and
// receives block r-s-1 into its slot of the output. Each process moves
// (p-1)/p of the output, the least possible. In place, the input already
// is slot r of the output, so nothing is copied locally.
#include <cstring>

#include "ring_algorithm.h"
#include "strata/sdk/host_copy.h"
#include "strata/sdk/types.h"

namespace strata::grpc_ring {
namespace {

class AllGatherRing final : public RingAlgorithm {
 public:
  explicit AllGatherRing(const GrpcRingOptions& options)
      : RingAlgorithm("ring", STRATA_ALL_GATHER,
                      "ring all-gather over gRPC streams, chunks pipelined", options) {}

 private:
  Plan plan(RingTeam& team, const strata_call_t& call) const override {
    const strata_call_desc_t& d = *call.desc;
    const int p = team.size();
    const int r = team.rank();
    const uint64_t block = d.count * sdk::dtype_size(d.dtype);
    const auto* in = static_cast<const std::byte*>(call.inputs[0].data);
    auto* out = static_cast<std::byte*>(call.outputs[0].data);
    auto at = [&](int b) { return static_cast<uint64_t>(((b % p) + p) % p) * block; };

    Plan plan;
    if (d.in_place == 0) {
      plan.before = [dst = out + at(r), in, block] { sdk::copy_host(dst, in, block); };
    }
    int64_t previous = -1;  // index of the previous step's first receive
    for (int s = 0; s < p - 1; ++s) {
      const uint32_t step = static_cast<uint32_t>(s);
      for_each_chunk(block, sdk::dtype_size(d.dtype), options().chunk_bytes,
                     [&](uint32_t c, uint64_t off, uint64_t n) {
                       const int64_t after = s == 0 ? -1 : previous + c;
                       plan.sends.push_back({step, c, out + at(r - s) + off, n, after});
                     });
      previous = static_cast<int64_t>(plan.recvs.size());
      for_each_chunk(block, sdk::dtype_size(d.dtype), options().chunk_bytes,
                     [&](uint32_t c, uint64_t off, uint64_t n) {
                       plan.recvs.push_back(
                           {step, c, out + at(r - s - 1) + off, nullptr, STRATA_SUM, n});
                     });
    }
    return plan;
  }

  double cost(double bytes, int p) const override { return (p - 1) * message(bytes / p); }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_gather_ring(const GrpcRingOptions& options) {
  return std::make_unique<AllGatherRing>(options);
}

}  // namespace strata::grpc_ring
