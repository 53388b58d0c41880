// Running a cluster resolver: the registry's resolver tables (core's
// built-ins and plugins') turned into a validated ClusterSpec.
#ifndef STRATA_CORE_CLUSTER_RESOLVE_H_
#define STRATA_CORE_CLUSTER_RESOLVE_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/cluster/cluster_spec.h"
#include "core/common/status.h"

namespace strata {

class Environment;
class Registry;

// Resolves with the resolver called `name`. "auto" tries, in order:
// tf_config, slurm, mpi (when a plugin registered it), every other plugin
// resolver by name, then simple (which always answers: a single process
// when its variables are unset). A resolver answering NOT_SUPPORTED is
// skipped; any other error stops the search and is returned, naming the
// resolver and the variable at fault. STRATA_DEVICES_PER_WORKER ("2" or
// "cpu:2") fills devices when the resolver did not say.
StatusOr<ClusterSpec> resolve_cluster(const Registry& registry, std::string_view name);

// The same, reading STRATA_DEVICES_PER_WORKER from `env` instead of the
// process's environment (resolvers read what they were registered with).
StatusOr<ClusterSpec> resolve_cluster(const Registry& registry, std::string_view name,
                                      const Environment& env);

// The resolvers "auto" tries, in its order; for `strata info` and messages.
std::vector<std::string> auto_resolver_order(const Registry& registry);

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_RESOLVE_H_
