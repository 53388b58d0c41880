// Knobs of the TCP store. Defaults suit jobs; tests shorten the waits.
#ifndef STRATA_CORE_CLUSTER_TCP_STORE_OPTIONS_H_
#define STRATA_CORE_CLUSTER_TCP_STORE_OPTIONS_H_

#include <chrono>
#include <cstdlib>
#include <string>

namespace strata {

struct TcpStoreOptions {
  // Shared secret every process of the job presents in its hello; a client
  // with another token is refused. From STRATA_JOB_TOKEN; empty by default.
  std::string token;
  // set and add carry no deadline in the store API; each waits this long
  // for its reply at most.
  std::chrono::nanoseconds request_timeout = std::chrono::seconds(10);
  // How long the host (rank 0) keeps serving after it closed its store,
  // waiting for the other ranks to say goodbye.
  std::chrono::nanoseconds linger = std::chrono::seconds(5);

  static TcpStoreOptions from_environment() {
    TcpStoreOptions o;
    if (const char* t = std::getenv("STRATA_JOB_TOKEN")) o.token = t;
    return o;
  }
};

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_TCP_STORE_OPTIONS_H_
