// The "grpc" rendezvous store type (cluster.store grpc:<host:port>), so a
// job can form with nothing but TF_CONFIG addresses and gRPC: rank 0 hosts
// the store, the others dial it. It takes the ring's token_file and TLS
// options, so one configuration secures both.
#ifndef STRATA_PLUGINS_GRPC_RING_GRPC_STORE_TYPE_H_
#define STRATA_PLUGINS_GRPC_RING_GRPC_STORE_TYPE_H_

#include <memory>
#include <string_view>

#include "grpc_ring_options.h"
#include "strata/sdk/store_type.h"

namespace strata::grpc_ring {

class GrpcStoreType final : public sdk::StoreType {
 public:
  explicit GrpcStoreType(GrpcRingOptions options);

  // Throws sdk::Error: INVALID_ARGUMENT for an address that is not
  // host:port, FAILED_PRECONDITION / PERMISSION_DENIED for a missing or
  // unusable job token, and what GrpcStore throws.
  std::unique_ptr<sdk::Store> open(std::string_view address, int rank, int world,
                                   int64_t deadline_ns) override;

 private:
  GrpcRingOptions options_;
};

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_GRPC_STORE_TYPE_H_
