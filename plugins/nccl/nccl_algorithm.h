// Base of every nccl algorithm: the checks every call shares (cuda
// buffers, one GPU per replica, a dtype and operator NCCL has), the team's
// communicators, and the alpha-beta cost model AUTO ranks them by.
#ifndef STRATA_PLUGINS_NCCL_NCCL_ALGORITHM_H_
#define STRATA_PLUGINS_NCCL_NCCL_ALGORITHM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "cuda_devices.h"
#include "nccl_comms.h"
#include "strata/sdk/algorithm.h"

namespace strata::nccl {

// What every algorithm of one registration shares.
struct NcclContext {
  std::shared_ptr<CudaDevices> devices;
  uint32_t cuda_type_id = 0;  // the id core gave the cuda device type
  int nccl_version = 0;       // of the libnccl loaded at run time
  CommRegistry registry;
  // Cost model (plugins.options.nccl: alpha_us, wire_gbytes_per_s,
  // reduce_gbytes_per_s). The wire speed prices teams that span processes;
  // a one-process team is priced by the slowest link between its GPUs.
  double alpha = 10e-6;        // seconds per ring step: launch plus a hop
  double beta = 1.0 / 20e9;    // seconds per byte between processes
  double gamma = 1.0 / 1e12;   // seconds per byte reduced on a GPU
};

class NcclTeam final : public sdk::TeamState {
 public:
  explicit NcclTeam(std::shared_ptr<NcclComms> comms) : comms_(std::move(comms)) {}
  NcclComms& comms() { return *comms_; }

 private:
  std::shared_ptr<NcclComms> comms_;
};

class NcclAlgorithm : public sdk::Algorithm {
 public:
  NcclAlgorithm(strata_op_t op, std::string description, std::shared_ptr<NcclContext> context);

  std::optional<std::string> decline(const strata_call_desc_t& call) const final;
  std::optional<double> estimate(const strata_call_desc_t& call) const final;
  std::unique_ptr<sdk::TeamState> create_team(const strata_team_desc_t& team) final;

 protected:
  // NCCL's ring schedule for this op: seconds for `bytes` per replica (the
  // larger side for all_gather and reduce_scatter) on `n` replicas, given
  // per-step latency, seconds per byte moved and per byte reduced.
  virtual double cost(double bytes, int n, double alpha, double beta, double gamma) const = 0;
  // Reducing ops check the operator too.
  virtual bool reduces() const { return false; }

  static NcclComms& comms(sdk::TeamState* state) { return static_cast<NcclTeam*>(state)->comms(); }

 private:
  std::shared_ptr<NcclContext> context_;
};

}  // namespace strata::nccl

#endif  // STRATA_PLUGINS_NCCL_NCCL_ALGORITHM_H_
