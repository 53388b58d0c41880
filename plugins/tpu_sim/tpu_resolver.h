// The "tpu" cluster resolver, after TF's TPUClusterResolver and the
// variables of a Cloud TPU VM:
//   TPU_NAME              "local" (this machine), or "grpc://host:port"
//   TPU_WORKER_HOSTNAMES  "h0,h1,..." the hosts of a multi-host slice,
//                         each optionally with ":port" (default 8470)
//   TPU_WORKER_ID         this host's index in that list
//   TPU_TOPOLOGY          "2x2" (or "2x2x1"): cores of the whole slice,
//                         shared evenly by the hosts
// It declines when none of TPU_NAME, TPU_WORKER_HOSTNAMES and TPU_TOPOLOGY
// is set; a malformed value is an error naming the variable. Each task
// drives its share of the slice as devices of type "tpu".
#ifndef STRATA_PLUGINS_TPU_SIM_TPU_RESOLVER_H_
#define STRATA_PLUGINS_TPU_SIM_TPU_RESOLVER_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "strata/sdk/resolver.h"

namespace strata::tpu_sim {

struct TpuCluster {
  std::vector<std::string> workers;  // host:port, by worker index
  int self = 0;
  int cores_per_worker = 0;
};

using EnvLookup = std::function<std::optional<std::string>(const char*)>;

// The cluster the variables describe, for a process that simulates
// `local_cores` cores. Throws sdk::NotSupported when none is set,
// sdk::InvalidArgument naming the variable when one is malformed.
TpuCluster read_tpu_cluster(const EnvLookup& env, int local_cores);

class TpuResolver final : public sdk::Resolver {
 public:
  explicit TpuResolver(int local_cores);
  void resolve(sdk::ClusterSink& sink) override;

 private:
  int local_cores_;
};

}  // namespace strata::tpu_sim

#endif  // STRATA_PLUGINS_TPU_SIM_TPU_RESOLVER_H_
