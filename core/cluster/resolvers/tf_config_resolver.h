// The "tf_config" resolver: TensorFlow's TF_CONFIG variable, a JSON object
//   {"cluster": {"chief": ["h0:2222"], "worker": ["h1:2222", "h2:2222"],
//                "ps": ["h3:2222"], "evaluator": ["h4:2222"]},
//    "task": {"type": "worker", "index": 1},
//    "rpc_layer": "grpc"}
// read the way TensorFlow reads it (docs/CLUSTER.md lists the rules and the
// errors). Unset or blank: NOT_SUPPORTED, so "auto" moves on.
#ifndef STRATA_CORE_CLUSTER_RESOLVERS_TF_CONFIG_RESOLVER_H_
#define STRATA_CORE_CLUSTER_RESOLVERS_TF_CONFIG_RESOLVER_H_

#include <memory>
#include <string_view>

#include "core/cluster/resolvers/environment_resolver.h"

namespace strata {

class TfConfigResolver final : public EnvironmentResolver {
 public:
  explicit TfConfigResolver(std::shared_ptr<const Environment> env);
  StatusOr<ClusterSpec> describe() const override;
};

// The parser behind it, for TF_CONFIG text from anywhere. Errors start with
// "TF_CONFIG" and name the key at fault ("cluster.worker[1]").
StatusOr<ClusterSpec> parse_tf_config(std::string_view text);

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_RESOLVERS_TF_CONFIG_RESOLVER_H_
