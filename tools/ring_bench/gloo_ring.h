// Gloo's ring all-reduce, the reference strata-ring-bench measures
// grpc_ring against, and the whole of strata-gloo-anchor: a Gloo context over
// loopback TCP and the ring algorithm PyTorch's Gloo backend runs
// (gloo::allreduce with Algorithm::RING). Both tools call Gloo through this
// one class, so what separates their figures is the process around Gloo.
#ifndef STRATA_TOOLS_RING_BENCH_GLOO_RING_H_
#define STRATA_TOOLS_RING_BENCH_GLOO_RING_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "core/cluster/store.h"
#include "core/common/status.h"

namespace gloo {
class Context;
namespace rendezvous {
class Store;
}
}  // namespace gloo

namespace strata {

class GlooRing {
 public:
  // Connects all `world` ranks over `hostname` (an address of this machine),
  // meeting through `store` under `prefix` (one prefix per context).
  // Gloo throws on failure; this returns the error instead.
  static StatusOr<std::unique_ptr<GlooRing>> connect(gloo::rendezvous::Store& store,
                                                     const std::string& prefix, int rank,
                                                     int world, const std::string& hostname,
                                                     std::chrono::milliseconds timeout);
  // The same, meeting through Strata's job store.
  static StatusOr<std::unique_ptr<GlooRing>> connect(Store& store, int rank, int world,
                                                     const std::string& hostname,
                                                     std::chrono::milliseconds timeout,
                                                     const std::string& prefix = "gloo");
  ~GlooRing();

  // Sums `count` floats of `input` into `output` (may be the same) on every rank.
  Status all_reduce(const float* input, float* output, size_t count);
  // What a benchmark without MPI needs to time a loop: a barrier, and the
  // largest of every rank's `value`.
  Status barrier();
  StatusOr<double> max_across_ranks(double value);

 private:
  explicit GlooRing(std::shared_ptr<gloo::Context> context);

  std::shared_ptr<gloo::Context> context_;
  uint32_t tag_ = 0;
};

}  // namespace strata

#endif  // STRATA_TOOLS_RING_BENCH_GLOO_RING_H_
