// The strata_cluster_sink_t core hands to every resolver, built-in or a
// plugin's: it checks each call and collects a ClusterSpec. The C sink has
// no message buffer, so a refused call returns INVALID_ARGUMENT and the sink
// keeps the reason; finish() reports it even when the resolver ignored the
// refusal and returned OK.
#ifndef STRATA_CORE_CLUSTER_RESOLVERS_CLUSTER_SPEC_SINK_H_
#define STRATA_CORE_CLUSTER_RESOLVERS_CLUSTER_SPEC_SINK_H_

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "core/cluster/cluster_spec.h"
#include "core/common/status.h"
#include "strata/abi/cluster.h"

namespace strata {

class ClusterSpecSink {
 public:
  ClusterSpecSink();
  ClusterSpecSink(const ClusterSpecSink&) = delete;  // the table points at this
  ClusterSpecSink& operator=(const ClusterSpecSink&) = delete;

  const strata_cluster_sink_t* table() const { return &table_; }

  // The first call the sink refused, if any.
  const std::optional<std::string>& refusal() const { return refusal_; }

  // The spec the calls described, or why they do not describe a cluster
  // (a refused call, no tasks, no set_self, a job with gaps in its indices).
  StatusOr<ClusterSpec> finish() const;

 private:
  static strata_status_t add_task(void* ctx, const char* job, int32_t index,
                                  const char* address) noexcept;
  static strata_status_t set_self(void* ctx, const char* job, int32_t index) noexcept;
  static strata_status_t set_rpc_layer(void* ctx, const char* rpc_layer) noexcept;
  static strata_status_t set_devices_per_task(void* ctx, const char* device_type,
                                              int32_t count) noexcept;

  strata_status_t refuse(std::string reason);

  strata_cluster_sink_t table_{};
  std::map<std::string, std::map<int, std::string>> tasks_;  // job -> index -> address
  std::optional<std::pair<std::string, int>> self_;
  std::string rpc_layer_;
  std::string device_type_;
  int devices_per_task_ = 0;
  std::optional<std::string> refusal_;
};

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_RESOLVERS_CLUSTER_SPEC_SINK_H_
