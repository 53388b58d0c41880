// The "simple" resolver: a job described by a few plain variables, for
// launchers that start processes themselves (tests, scripts, containers):
//   STRATA_WORKERS     "host:port,host:port"  the worker tasks
//   STRATA_CHIEF       "host:port"            optional chief task
//   STRATA_PS          "host:port,..."        optional parameter servers
//   STRATA_TASK_TYPE   worker | chief | ps    this process's job (worker)
//   STRATA_TASK_INDEX  N                      this process's index in it
// With none of them set it answers a single-process job, so it is the last
// resolver "auto" tries and it always answers.
#ifndef STRATA_CORE_CLUSTER_RESOLVERS_SIMPLE_RESOLVER_H_
#define STRATA_CORE_CLUSTER_RESOLVERS_SIMPLE_RESOLVER_H_

#include <memory>

#include "core/cluster/resolvers/environment_resolver.h"

namespace strata {

class SimpleResolver final : public EnvironmentResolver {
 public:
  explicit SimpleResolver(std::shared_ptr<const Environment> env);
  StatusOr<ClusterSpec> describe() const override;
};

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_RESOLVERS_SIMPLE_RESOLVER_H_
