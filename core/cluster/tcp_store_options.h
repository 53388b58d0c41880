// Knobs of the TCP store. Defaults suit jobs; tests shorten the waits.
#ifndef STRATA_CORE_CLUSTER_TCP_STORE_OPTIONS_H_
#define STRATA_CORE_CLUSTER_TCP_STORE_OPTIONS_H_

#include <chrono>
#include <string>

#include "core/cluster/store_limits.h"
#include "core/common/status.h"
#include "strata/sdk/job_token.h"

namespace strata {

struct TcpStoreOptions {
  // Shared secret every process of the job presents in its hello; a client
  // with another token is refused. From STRATA_JOB_TOKEN_FILE or
  // STRATA_JOB_TOKEN (strata/sdk/job_token.h); empty when neither is set.
  std::string token;
  // set and add carry no deadline in the store API; each waits this long
  // for its reply at most.
  std::chrono::nanoseconds request_timeout = std::chrono::seconds(10);
  // How long the host (rank 0) keeps serving after it closed its store,
  // waiting for the other ranks to say goodbye.
  std::chrono::nanoseconds linger = std::chrono::seconds(5);
  // What the job may make the store hold; read by the host (rank 0) only.
  StoreLimits limits;

  // Fails when a token source is set but unusable (unreadable file, file
  // others can read, too short).
  static StatusOr<TcpStoreOptions> from_environment() {
    sdk::JobToken token;
    std::string error;
    if (!sdk::load_job_token("", &token, &error)) {
      return PermissionDeniedError("TCP store: " + error);
    }
    TcpStoreOptions o;
    o.token = std::move(token.value);
    return o;
  }
};

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_TCP_STORE_OPTIONS_H_
