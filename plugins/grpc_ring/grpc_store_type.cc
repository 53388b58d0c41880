#include "grpc_store_type.h"

#include <charconv>
#include <string>

#include "credentials.h"
#include "grpc_store.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/job_token.h"

namespace strata::grpc_ring {
namespace {

// "host:port" with a port in 0..65535; the host may be "[v6]".
bool is_host_port(std::string_view address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == address.size()) return false;
  const std::string_view port = address.substr(colon + 1);
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  return ec == std::errc() && end == port.data() + port.size() && value <= 65535;
}

std::string load_token(const GrpcRingOptions& options, const std::string& where) {
  sdk::JobToken token;
  std::string error;
  if (!sdk::load_job_token(options.token_file, &token, &error)) {
    throw sdk::Error(STRATA_PERMISSION_DENIED, where + ": the job token is unusable: " + error);
  }
  if (token.value.empty()) {
    throw sdk::Error(STRATA_FAILED_PRECONDITION,
                     where + ": no job token, and every call to the store must present one. "
                             "Give every worker the same secret through " +
                         sdk::kJobTokenFileEnv + " (a file only its owner can read) or " +
                         sdk::kJobTokenEnv +
                         ", or the option plugins.options.grpc_ring.token_file; `strata launch` "
                         "sets one");
  }
  return token.value;
}

}  // namespace

GrpcStoreType::GrpcStoreType(GrpcRingOptions options)
    : StoreType("grpc",
                "gRPC key/value store hosted by rank 0 at host:port, guarded by the job token"),
      options_(std::move(options)) {}

std::unique_ptr<sdk::Store> GrpcStoreType::open(std::string_view address, int rank, int world,
                                                int64_t deadline_ns) {
  const std::string where = "grpc store at '" + std::string(address) + "' (rank " +
                            std::to_string(rank) + " of " + std::to_string(world) + ")";
  if (!is_host_port(address)) {
    throw sdk::InvalidArgument(where + ": the address should be host:port, e.g. "
                                       "grpc:10.0.0.1:29500 (rank 0 listens there)");
  }
  if (world < 1 || rank < 0 || rank >= world) {
    throw sdk::InvalidArgument(where + ": rank outside the world");
  }
  if (rank != 0 && address.substr(address.rfind(':')) == ":0") {
    throw sdk::InvalidArgument(where + ": port 0 lets rank 0 pick a port the others cannot "
                                       "know; give the store a fixed port");
  }
  GrpcStoreConfig config;
  config.address = std::string(address);
  config.rank = rank;
  config.world = world;
  config.token = load_token(options_, where);
  if (rank == 0) config.server_credentials = server_credentials(options_);
  config.channel_credentials = channel_credentials(options_);
  config.tls_server_name = options_.tls_server_name;
  config.services = host_services();
  config.limits = options_.store_limits;
  return std::make_unique<GrpcStore>(std::move(config), deadline_ns);
}

}  // namespace strata::grpc_ring
