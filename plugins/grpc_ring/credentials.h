// Transport security for a team's server and its stream to the neighbour:
// insecure channels by default (the job token still guards every stream;
// README.md says what that does and does not protect), TLS with mutual
// certificate checks when tls_cert, tls_key and tls_ca are all given.
#ifndef STRATA_PLUGINS_GRPC_RING_CREDENTIALS_H_
#define STRATA_PLUGINS_GRPC_RING_CREDENTIALS_H_

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>

#include <memory>

#include "grpc_ring_options.h"

namespace strata::grpc_ring {

// Both throw sdk::Error(INVALID_ARGUMENT) naming an unreadable PEM file.
std::shared_ptr<grpc::ServerCredentials> server_credentials(const GrpcRingOptions& options);
std::shared_ptr<grpc::ChannelCredentials> channel_credentials(const GrpcRingOptions& options);

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_CREDENTIALS_H_
