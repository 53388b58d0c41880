// The base of core's built-in resolvers: each one reads an Environment and
// returns a ClusterSpec (or a Status), which this class writes through the
// same C sink a plugin's resolver writes to. So built-ins and plugins reach
// resolve_cluster by one path, and the built-ins stay testable as plain
// functions of their variables.
#ifndef STRATA_CORE_CLUSTER_RESOLVERS_ENVIRONMENT_RESOLVER_H_
#define STRATA_CORE_CLUSTER_RESOLVERS_ENVIRONMENT_RESOLVER_H_

#include <memory>
#include <string>

#include "core/cluster/cluster_spec.h"
#include "core/cluster/resolvers/environment.h"
#include "core/common/status.h"
#include "strata/sdk/resolver.h"

namespace strata {

class EnvironmentResolver : public sdk::Resolver {
 public:
  EnvironmentResolver(std::string name, std::string description,
                      std::shared_ptr<const Environment> env);

  // What this resolver finds: NOT_SUPPORTED when its variables are absent
  // (auto then tries the next resolver), INVALID_ARGUMENT naming the
  // variable and the problem when they are malformed.
  virtual StatusOr<ClusterSpec> describe() const = 0;

  // Writes describe()'s answer into the sink; a Status becomes the
  // sdk::Error the SDK's trampoline turns back into a status code.
  void resolve(sdk::ClusterSink& sink) final;

 protected:
  const Environment& env() const { return *env_; }

 private:
  std::shared_ptr<const Environment> env_;
};

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_RESOLVERS_ENVIRONMENT_RESOLVER_H_
