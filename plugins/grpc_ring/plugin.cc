// grpc_ring: collectives across processes over gRPC streams, one buffer per
// process. Bandwidth-optimal rings for all_reduce, all_gather and
// reduce_scatter, a pipelined chain for broadcast; every stream carries the
// job token. Also the "grpc" rendezvous store, so a job can form over gRPC
// alone. README.md explains the options, the wire, security, dead peers and
// performance.
#include "grpc_store_type.h"
#include "ring_algorithm.h"
#include "strata/sdk/plugin.h"

namespace {

using namespace strata;

void register_grpc_ring(sdk::Registrar& r) {
  // Options are read once, so every rank with the same config decides alike.
  const grpc_ring::GrpcRingOptions options = grpc_ring::GrpcRingOptions::from_host();
  r.add_algorithm(grpc_ring::make_all_reduce_ring(options));
  r.add_algorithm(grpc_ring::make_all_gather_ring(options));
  r.add_algorithm(grpc_ring::make_reduce_scatter_ring(options));
  r.add_algorithm(grpc_ring::make_broadcast_chain(options));
  // cluster.store grpc:<host:port>: a job needs no other service to form.
  r.add_store_type(std::make_unique<grpc_ring::GrpcStoreType>(options));
}

}  // namespace

STRATA_PLUGIN("grpc_ring", "0.1.0",
              "ring collectives across processes over gRPC streams, guarded by the job token",
              register_grpc_ring)
