// The listening side of a team: a gRPC server with one generic method on
// which the left neighbour opens its stream. The stream is the team's only
// way in, so the server is also the door: a stream that does not present the
// job token, or names another team, another sender, another method, or comes
// second, is refused with one warning line and never reaches the inbox.
#ifndef STRATA_PLUGINS_GRPC_RING_RING_SERVER_H_
#define STRATA_PLUGINS_GRPC_RING_RING_SERVER_H_

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>

#include <cstdint>
#include <memory>
#include <string>

#include "ring_inbox.h"
#include "strata/abi/registrar.h"

namespace strata::grpc_ring {

struct ServerConfig {
  std::string listen_address;  // host:port; port 0 picks a free one
  std::shared_ptr<grpc::ServerCredentials> credentials;
  uint64_t team_id = 0;
  int rank = 0;
  int expected_sender = 0;  // the left neighbour's process rank
  std::string token;
  uint64_t max_message_bytes = 0;  // header + largest chunk
  uint64_t window_bytes = 0;
  // gRPC's threads log through these (they have no host scope of their own).
  const strata_host_services_t* services = nullptr;
};

class RingServer {
 public:
  // Starts listening; throws sdk::Error(UNAVAILABLE) naming the address.
  RingServer(ServerConfig config, std::shared_ptr<Inbox> inbox);
  // Cancels the streams still open (after a short grace for the last
  // messages in flight) and waits for their reactions to end.
  ~RingServer();
  RingServer(const RingServer&) = delete;
  RingServer& operator=(const RingServer&) = delete;

  int port() const { return port_; }

  class Service;  // ring_server.cc

 private:
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_RING_SERVER_H_
