// The TCP store's client: what every rank (rank 0 included) talks to the
// server through. Requests run on pooled connections, one request per
// connection at a time, so a get parked on the server does not hold up a
// heartbeat from another thread. A connection whose request failed or timed
// out is closed, never reused with a stale reply on its way.
#ifndef STRATA_CORE_CLUSTER_TCP_STORE_CLIENT_H_
#define STRATA_CORE_CLUSTER_TCP_STORE_CLIENT_H_

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/cluster/tcp_store_options.h"
#include "core/cluster/tcp_store_socket.h"
#include "core/common/clock.h"
#include "core/common/status.h"
#include "strata/sdk/store_type.h"

namespace strata::tcp_store {

class TcpStoreClient final : public sdk::Store {
 public:
  // Connects to the server at `server`, retrying with back-off while it is
  // not up yet, until `deadline`. Throws sdk::Error: TIMED_OUT naming the
  // address and how long it tried; the server's refusal (wrong token,
  // world) at once, without retrying.
  static std::unique_ptr<TcpStoreClient> connect(const HostPort& server, int rank, int world,
                                                 Deadline deadline, TcpStoreOptions options);
  ~TcpStoreClient() override;  // says goodbye on every connection

  void set(std::string_view key, std::string_view value) override;
  // A get whose deadline is (nearly) over still asks the server once, and
  // waits up to kMinRoundTrip for that answer.
  std::string get(std::string_view key, int64_t deadline_ns) override;
  int64_t add(std::string_view key, int64_t delta) override;

  const std::string& address() const { return address_; }

 private:
  TcpStoreClient(HostPort server, int rank, int world, TcpStoreOptions options);

  // A connection that has passed the handshake.
  StatusOr<Socket> open_connection(Deadline deadline);
  // Sends one request and returns the OK reply's payload.
  std::string call(std::string_view what, std::string_view key, const std::string& frame,
                   Deadline deadline);
  // Throws `s` as sdk::Error, naming the server and this rank.
  [[noreturn]] void fail(const Status& s) const;

  HostPort server_;
  std::string address_;
  int rank_;
  int world_;
  TcpStoreOptions options_;
  std::mutex mu_;              // guards idle_
  std::vector<Socket> idle_;
};

}  // namespace strata::tcp_store

#endif  // STRATA_CORE_CLUSTER_TCP_STORE_CLIENT_H_
