// Base of every grpc_ring algorithm: scope CROSS_PROCESS, the declines every
// call shares (one host-readable buffer per process, a dtype and operator
// this build knows), the shared team, and the alpha-beta cost model AUTO
// ranks them by. Subclasses only build a Plan (ring_operation.h).
#ifndef STRATA_PLUGINS_GRPC_RING_RING_ALGORITHM_H_
#define STRATA_PLUGINS_GRPC_RING_RING_ALGORITHM_H_

#include <memory>
#include <optional>
#include <string>

#include "grpc_ring_options.h"
#include "ring_operation.h"
#include "ring_team.h"
#include "strata/sdk/algorithm.h"

namespace strata::grpc_ring {

class RingAlgorithm : public sdk::Algorithm {
 public:
  RingAlgorithm(std::string name, strata_op_t op, std::string description,
                const GrpcRingOptions& options);

  std::optional<std::string> decline(const strata_call_desc_t& call) const final;
  std::optional<double> estimate(const strata_call_desc_t& call) const final;
  std::unique_ptr<sdk::TeamState> create_team(const strata_team_desc_t& team) final;
  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) final;

 protected:
  // The call's plan for this rank; called for counts above zero only.
  virtual Plan plan(RingTeam& team, const strata_call_t& call) const = 0;
  // Seconds for `bytes` per process (the larger side for all_gather and
  // reduce_scatter) on `p` processes.
  virtual double cost(double bytes, int p) const = 0;

  const GrpcRingOptions& options() const { return options_; }
  // One step moving `bytes`: its chunks' latencies plus the bytes.
  double message(double bytes) const;
  double reduced(double bytes) const { return bytes * options_.gamma; }

 private:
  GrpcRingOptions options_;
};

std::unique_ptr<sdk::Algorithm> make_all_reduce_ring(const GrpcRingOptions& options);
std::unique_ptr<sdk::Algorithm> make_all_gather_ring(const GrpcRingOptions& options);
std::unique_ptr<sdk::Algorithm> make_reduce_scatter_ring(const GrpcRingOptions& options);
std::unique_ptr<sdk::Algorithm> make_broadcast_chain(const GrpcRingOptions& options);

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_RING_ALGORITHM_H_
