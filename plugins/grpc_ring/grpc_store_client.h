// One rank's connection to the "grpc" store: a channel to rank 0's server
// and a blocking call on top of gRPC's callback API. Every call presents the
// job token, this rank and the world size, and has a deadline; what a reply
// means is GrpcStore's business.
#ifndef STRATA_PLUGINS_GRPC_RING_GRPC_STORE_CLIENT_H_
#define STRATA_PLUGINS_GRPC_RING_GRPC_STORE_CLIENT_H_

#include <grpcpp/channel.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/security/credentials.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

namespace strata::grpc_ring {

struct StoreClientConfig {
  std::string address;  // host:port of rank 0's server
  int rank = 0;
  int world = 0;
  std::string token;
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  std::string tls_server_name;  // empty: the address's host
};

class GrpcStoreClient {
 public:
  using Clock = std::chrono::system_clock;

  explicit GrpcStoreClient(StoreClientConfig config);

  // Runs `method` and waits for its answer until `deadline` (gRPC's own,
  // plus a short margin in case its callback is late). `wait_for_ready`
  // makes gRPC keep (re)connecting until the deadline instead of failing
  // at once while rank 0 is not listening yet.
  grpc::Status call(const char* method, std::string_view key, std::string_view body,
                    Clock::time_point deadline, bool wait_for_ready, std::string* reply);

  // The channel's state, for error messages ("TRANSIENT_FAILURE").
  std::string channel_state() const;
  const StoreClientConfig& config() const { return config_; }

 private:
  StoreClientConfig config_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<grpc::GenericStub> stub_;
};

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_GRPC_STORE_CLIENT_H_
