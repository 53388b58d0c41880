// Gloo's ring all-reduce, the reference strata-ring-bench measures
// grpc_ring against: a Gloo context over loopback TCP whose rendezvous goes
// through Strata's job store, and the ring algorithm PyTorch's Gloo backend
// runs (gloo::allreduce with Algorithm::RING).
#ifndef STRATA_TOOLS_RING_BENCH_GLOO_RING_H_
#define STRATA_TOOLS_RING_BENCH_GLOO_RING_H_

#include <chrono>
#include <cstddef>
#include <memory>

#include "core/cluster/store.h"
#include "core/common/status.h"

namespace gloo {
class Context;
}

namespace strata {

class GlooRing {
 public:
  // Connects all `world` ranks over `hostname` (an address of this machine).
  // Gloo throws on failure; this returns the error instead.
  static StatusOr<std::unique_ptr<GlooRing>> connect(Store& store, int rank, int world,
                                                     const std::string& hostname,
                                                     std::chrono::milliseconds timeout);
  ~GlooRing();

  // Sums `count` floats of `input` into `output` (may be the same) on every rank.
  Status all_reduce(const float* input, float* output, size_t count);

 private:
  explicit GlooRing(std::shared_ptr<gloo::Context> context);

  std::shared_ptr<gloo::Context> context_;
  uint32_t tag_ = 0;
};

}  // namespace strata

#endif  // STRATA_TOOLS_RING_BENCH_GLOO_RING_H_
