// The listening side of the tcp data plane: a socket on the host the team's
// gRPC server listens on, at a port the kernel picks, open only while the
// team forms. It admits exactly one connection, the left neighbour's with a
// correct handshake (tcp_handshake.h); every other one — wrong token, team
// or rank, bytes of another protocol, silence — is closed with one warning
// line (peer address and reason, never the token) and does not disturb the
// team. Handshakes are read side by side, each bounded, so a silent
// stranger cannot hold the door.
#ifndef STRATA_PLUGINS_GRPC_RING_TCP_LISTENER_H_
#define STRATA_PLUGINS_GRPC_RING_TCP_LISTENER_H_

#include <chrono>
#include <string>

#include "tcp_handshake.h"
#include "tcp_socket.h"

namespace strata::grpc_ring {

class TcpListener {
 public:
  // Throws sdk::Error(UNAVAILABLE) naming the host.
  explicit TcpListener(const std::string& host);
  int port() const { return port_; }

  // The left neighbour's connection, welcomed; throws sdk::Error(TIMED_OUT)
  // naming the rank at `deadline`. A stranger is given at most
  // `handshake_time` to present its handshake.
  Fd accept_neighbour(const Door& door, SteadyTime deadline,
                      std::chrono::milliseconds handshake_time = std::chrono::seconds(2));

  // Stops listening: later connections are refused by the kernel.
  void close() { fd_.reset(); }

 private:
  Fd fd_;
  int port_ = 0;
};

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_TCP_LISTENER_H_
