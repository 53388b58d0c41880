// The job's rendezvous store: the one every process of a job opens to form
// teams, check each other's health and agree on addresses.
#ifndef STRATA_CORE_CLUSTER_JOB_STORE_H_
#define STRATA_CORE_CLUSTER_JOB_STORE_H_

#include <memory>

#include "core/cluster/cluster_spec.h"
#include "core/cluster/health_monitor.h"
#include "core/cluster/store.h"
#include "core/common/status.h"
#include "core/config/config.h"

namespace strata {

class Registry;

// Opens the store `config.store` names ("<type>:<address>"), or for "auto":
// a private memory store when the world has one process, else the "tcp"
// store hosted by the chief at spec.chief_address() (an error naming the
// resolver when that address has no port). Waits up to
// config.rendezvous_timeout to connect; the error names the address.
StatusOr<std::unique_ptr<Store>> open_job_store(const Registry& registry,
                                                const ClusterSpec& spec,
                                                const ClusterConfig& config);

// Which rank's process serves the store open_job_store opens: rank 0 (the
// chief) at the store's address for the "tcp" store, which rank 0 hosts;
// none for the others (memory, file, plugins' stores). The health monitor
// names this rank when the store stops answering.
StoreHost job_store_host(const ClusterSpec& spec, const ClusterConfig& config);

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_JOB_STORE_H_
