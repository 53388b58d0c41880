// The "tcp" store type: address "host:port". The opener with rank 0 hosts
// the server (binds host:port and serves from a background thread) and then
// connects to it like every other rank; the others connect with retries
// until their deadline. See docs/RENDEZVOUS.md.
#ifndef STRATA_CORE_CLUSTER_TCP_STORE_TYPE_H_
#define STRATA_CORE_CLUSTER_TCP_STORE_TYPE_H_

#include <memory>
#include <string>
#include <string_view>

#include "core/cluster/tcp_store_client.h"
#include "core/cluster/tcp_store_options.h"
#include "core/cluster/tcp_store_server.h"
#include "core/common/clock.h"
#include "strata/sdk/store_type.h"

namespace strata {

class TcpStore final : public sdk::Store {
 public:
  // Throws sdk::Error (the store API's way): INVALID_ARGUMENT for a bad
  // address, UNAVAILABLE when rank 0 cannot bind, TIMED_OUT when the server
  // cannot be reached by `deadline`, PERMISSION_DENIED for a wrong token.
  // Rank 0 may use port 0 to have a free port picked (see address()).
  static std::unique_ptr<TcpStore> open(std::string_view address, int rank, int world,
                                        Deadline deadline, const TcpStoreOptions& options);
  // Rank 0 keeps serving up to options.linger, until the others said goodbye.
  ~TcpStore() override;

  void set(std::string_view key, std::string_view value) override;
  std::string get(std::string_view key, int64_t deadline_ns) override;
  int64_t add(std::string_view key, int64_t delta) override;

  // "host:port" with the real port, e.g. after rank 0 opened "127.0.0.1:0".
  const std::string& address() const { return client_->address(); }
  // The server, on rank 0 only (nullptr elsewhere).
  const tcp_store::TcpStoreServer* server() const { return server_.get(); }

 private:
  TcpStore() = default;
  std::unique_ptr<tcp_store::TcpStoreServer> server_;
  std::unique_ptr<tcp_store::TcpStoreClient> client_;
  std::chrono::nanoseconds linger_{};
};

// Reads the job token (STRATA_JOB_TOKEN_FILE or STRATA_JOB_TOKEN) at every
// open; a store hosted from it holds at most what `limits` allow (the
// config's cluster.store_max_*).
std::unique_ptr<sdk::StoreType> make_tcp_store_type(StoreLimits limits = {});

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_TCP_STORE_TYPE_H_
