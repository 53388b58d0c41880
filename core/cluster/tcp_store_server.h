// The TCP store's server, hosted by rank 0: one background thread serving
// every connection with poll(), so a slow or silent client never holds up
// the others. It keeps the key/value table, parks a get until its key is set
// or its own deadline passes, refuses (and logs) anyone who does not open
// with the right hello and token, and records a rank whose connection
// closed without a goodbye as departed (health::kDeparted on its health key,
// core/cluster/health_keys.h), so the health check can name it at once.
// What the job can make it hold is bounded by StoreLimits (store_limits.h).
#ifndef STRATA_CORE_CLUSTER_TCP_STORE_SERVER_H_
#define STRATA_CORE_CLUSTER_TCP_STORE_SERVER_H_

#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "core/cluster/store_limits.h"
#include "core/cluster/tcp_store_quota.h"
#include "core/cluster/tcp_store_socket.h"
#include "core/common/status.h"

namespace strata::tcp_store {

class ServerLoop;

class TcpStoreServer {
 public:
  // Binds `at` (port 0 picks a free port) and starts serving a world of
  // `world` ranks whose hellos carry `token`, holding at most what
  // `limits` allow.
  static StatusOr<std::unique_ptr<TcpStoreServer>> start(const HostPort& at, int world,
                                                         std::string token,
                                                         StoreLimits limits = {});
  ~TcpStoreServer();  // stop(0)
  TcpStoreServer(const TcpStoreServer&) = delete;
  TcpStoreServer& operator=(const TcpStoreServer&) = delete;

  int port() const { return port_; }
  // The address clients use: the bound host and the real port.
  std::string address() const;

  // Stops serving once no other rank has a connection open (each said
  // goodbye or dropped), or after `linger`, whichever comes first; joins.
  void stop(std::chrono::nanoseconds linger);

  // Ranks whose last connection closed without a goodbye, and that have
  // not connected again since.
  std::set<int> departed() const;

  // What the store holds for the job now, as its quota counts it: keys,
  // values, requests being received; and the replies waiting to be sent.
  // Safe from any thread.
  StoreUsage usage() const;

 private:
  TcpStoreServer() = default;

  std::unique_ptr<ServerLoop> loop_;
  std::thread thread_;
  std::string host_;
  int port_ = 0;
};

}  // namespace strata::tcp_store

#endif  // STRATA_CORE_CLUSTER_TCP_STORE_SERVER_H_
