// Rank 0's side of the "grpc" store: a gRPC server with one generic method
// per store call. Every call must present the job token (the ring's
// metadata key) and a rank inside the world; a stranger is refused with
// PERMISSION_DENIED and one warning line, and the store keeps serving.
// Ranks say hello when they open and bye when they close, so rank 0 can
// keep serving until the others are done (bounded by the linger time).
#ifndef STRATA_PLUGINS_GRPC_RING_GRPC_STORE_SERVER_H_
#define STRATA_PLUGINS_GRPC_RING_GRPC_STORE_SERVER_H_

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>

#include <chrono>
#include <memory>
#include <string>

#include "grpc_store_state.h"
#include "strata/abi/registrar.h"

namespace strata::grpc_ring {

struct StoreServerConfig {
  std::string listen_address;  // host:port; port 0 picks a free one
  std::shared_ptr<grpc::ServerCredentials> credentials;
  std::string token;
  int world = 0;
  GrpcStoreLimits limits;  // what the job may make it hold
  // gRPC's threads log through these (they have no host scope of their own).
  const strata_host_services_t* services = nullptr;
};

class GrpcStoreServer {
 public:
  // Starts listening; throws sdk::Error(UNAVAILABLE) naming the address.
  explicit GrpcStoreServer(StoreServerConfig config);
  // Answers parked gets "not yet", then stops within 0.2 s.
  ~GrpcStoreServer();
  GrpcStoreServer(const GrpcStoreServer&) = delete;
  GrpcStoreServer& operator=(const GrpcStoreServer&) = delete;

  int port() const { return port_; }
  GrpcStoreState& state() { return state_; }
  // Waits until every rank that said hello also said bye, at most `most`;
  // returns the ranks still connected (empty: everyone left).
  std::string linger(std::chrono::milliseconds most);

  class Service;  // grpc_store_server.cc

 private:
  // Destroyed in reverse: the server first, then what its calls use.
  GrpcStoreState state_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_GRPC_STORE_SERVER_H_
