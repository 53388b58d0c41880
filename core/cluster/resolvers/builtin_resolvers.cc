#include "core/cluster/resolvers/builtin_resolvers.h"

#include "core/cluster/resolvers/simple_resolver.h"
#include "core/cluster/resolvers/slurm_resolver.h"
#include "core/cluster/resolvers/tf_config_resolver.h"

namespace strata {

void add_builtin_resolvers(sdk::Registrar& registrar, std::shared_ptr<const Environment> env) {
  registrar.add_resolver(std::make_unique<TfConfigResolver>(env));
  registrar.add_resolver(std::make_unique<SlurmResolver>(env));
  registrar.add_resolver(std::make_unique<SimpleResolver>(std::move(env)));
}

std::string builtin_resolver_source(std::string_view name) {
  if (name == "tf_config") return "TF_CONFIG";
  if (name == "slurm") return "Slurm variables (SLURM_PROCID, SLURM_STEP_*)";
  if (name == "simple") return "STRATA_WORKERS / STRATA_TASK_INDEX (simple)";
  return "";
}

}  // namespace strata
