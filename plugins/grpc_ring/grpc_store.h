// An open "grpc" store (cluster.store grpc:<host:port>): what core calls
// set/get/add/close on. Rank 0 also hosts the server, and connects to it
// like every other rank. README.md ("The grpc store") has the contract.
#ifndef STRATA_PLUGINS_GRPC_RING_GRPC_STORE_H_
#define STRATA_PLUGINS_GRPC_RING_GRPC_STORE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "grpc_store_client.h"
#include "grpc_store_server.h"
#include "strata/sdk/store_type.h"

namespace strata::grpc_ring {

struct GrpcStoreConfig {
  std::string address;  // host:port; rank 0 may give port 0 (tests)
  int rank = 0;
  int world = 0;
  std::string token;
  std::shared_ptr<grpc::ServerCredentials> server_credentials;   // rank 0 only
  std::shared_ptr<grpc::ChannelCredentials> channel_credentials;
  std::string tls_server_name;
  const strata_host_services_t* services = nullptr;
  GrpcStoreLimits limits;  // rank 0 only: the job's cluster.store_max_*
  // How long closing rank 0 keeps serving ranks that have not said bye.
  std::chrono::milliseconds linger{5000};
};

class GrpcStore final : public sdk::Store {
 public:
  // Rank 0 starts the server; every rank then says hello, retrying until
  // deadline_ns. Throws sdk::Error naming the address and the rank.
  GrpcStore(GrpcStoreConfig config, int64_t deadline_ns);
  // Says bye; rank 0 then serves until the others said bye (or the linger
  // time passed) and stops. Never throws.
  ~GrpcStore() override;

  void set(std::string_view key, std::string_view value) override;
  std::string get(std::string_view key, int64_t deadline_ns) override;
  int64_t add(std::string_view key, int64_t delta) override;

  // host:port the ranks dial (rank 0 with port 0: the port it got).
  const std::string& address() const { return address_; }
  // Rank 0's server (nullptr on other ranks), for tests that look inside.
  GrpcStoreServer* server() { return server_.get(); }

 private:
  void hello(int64_t deadline_ns);
  void check_key(std::string_view key) const;
  // Throws the sdk::Error for a failed call of `what` ("set 'k'").
  [[noreturn]] void fail(const grpc::Status& status, const std::string& what) const;
  std::string where() const;  // "grpc store at A, rank R"

  GrpcStoreConfig config_;
  std::string address_;
  std::unique_ptr<GrpcStoreServer> server_;  // rank 0 only; outlives client_
  std::unique_ptr<GrpcStoreClient> client_;
};

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_GRPC_STORE_H_
