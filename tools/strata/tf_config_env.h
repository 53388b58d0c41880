// What `strata launch` tells each worker about the job: free loopback ports
// for the cluster, the TF_CONFIG text of one task, a per-launch job token,
// and the environment block a worker is started with.
#ifndef STRATA_TOOLS_STRATA_TF_CONFIG_ENV_H_
#define STRATA_TOOLS_STRATA_TF_CONFIG_ENV_H_

#include <map>
#include <string>
#include <vector>

#include "core/common/status.h"

namespace strata::cli {

// `count` distinct TCP ports on 127.0.0.1 that were free a moment ago,
// drawn from outside the kernel's ephemeral range (strata/sdk/free_port.h
// says why). Worker 0, the host of the job's store, is started first, so
// the window in which another process could bind its port is the shortest.
StatusOr<std::vector<int>> pick_loopback_ports(int count);

// {"cluster":{"worker":["127.0.0.1:P0",...]},"task":{"type":"worker","index":i}}
std::string tf_config_text(const std::vector<int>& ports, int index);
// The same with a "ps" job (parameter servers) when ps_ports is not empty;
// `type` is "worker" or "ps".
std::string tf_config_text(const std::vector<int>& worker_ports, const std::vector<int>& ps_ports,
                           const std::string& type, int index);

// 32 hex digits from the kernel's random source: the STRATA_JOB_TOKEN that
// core's TCP store asks every process of the job to present.
StatusOr<std::string> new_job_token();

// The variables `strata launch` sets, on top of what the launcher inherited.
class WorkerEnvironment {
 public:
  // Starts from this process's own environment.
  WorkerEnvironment();

  // Adds or replaces NAME for every worker.
  void set(const std::string& name, const std::string& value);
  const std::map<std::string, std::string>& overrides() const { return overrides_; }

  // The "NAME=value" block of one worker: the inherited variables, the
  // shared overrides, then `per_worker` (TF_CONFIG), each name once.
  std::vector<std::string> block(const std::map<std::string, std::string>& per_worker) const;

 private:
  std::vector<std::string> inherited_;
  std::map<std::string, std::string> overrides_;
};

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_TF_CONFIG_ENV_H_
