// Core's own cluster resolvers, registered under plugin "core" the way a
// plugin registers its: tf_config, slurm and simple. ("mpi" lives in
// plugins/mpi; docs/CLUSTER.md describes them all.)
#ifndef STRATA_CORE_CLUSTER_RESOLVERS_BUILTIN_RESOLVERS_H_
#define STRATA_CORE_CLUSTER_RESOLVERS_BUILTIN_RESOLVERS_H_

#include <memory>
#include <string>
#include <string_view>

#include "core/cluster/resolvers/environment.h"
#include "strata/sdk/registrar.h"

namespace strata {

// Adds tf_config, slurm and simple, reading their variables from `env`.
// Throws sdk::Error as every registration function does; the loader's
// register_builtin turns that into a Status.
void add_builtin_resolvers(sdk::Registrar& registrar,
                           std::shared_ptr<const Environment> env = process_environment());

// Where a built-in resolver's answer came from, for ClusterSpec::source
// ("TF_CONFIG"); "" for a name core does not own. The C sink carries no
// source, so resolve_cluster asks here.
std::string builtin_resolver_source(std::string_view name);

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_RESOLVERS_BUILTIN_RESOLVERS_H_
