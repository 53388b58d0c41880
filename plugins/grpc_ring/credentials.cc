#include "credentials.h"

#include <fstream>
#include <sstream>
#include <string>

#include "strata/sdk/error.h"

namespace strata::grpc_ring {
namespace {

std::string read_pem(const char* option, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || text.str().empty()) {
    throw sdk::InvalidArgument(std::string("plugins.options.grpc_ring.") + option +
                               ": cannot read '" + path + "' (a PEM file)");
  }
  return text.str();
}

}  // namespace

std::shared_ptr<grpc::ServerCredentials> server_credentials(const GrpcRingOptions& options) {
  if (!options.tls()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions ssl(
      GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  ssl.pem_root_certs = read_pem("tls_ca", options.tls_ca);
  ssl.pem_key_cert_pairs.push_back(
      {read_pem("tls_key", options.tls_key), read_pem("tls_cert", options.tls_cert)});
  return grpc::SslServerCredentials(ssl);
}

std::shared_ptr<grpc::ChannelCredentials> channel_credentials(const GrpcRingOptions& options) {
  if (!options.tls()) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = read_pem("tls_ca", options.tls_ca);
  ssl.pem_private_key = read_pem("tls_key", options.tls_key);
  ssl.pem_cert_chain = read_pem("tls_cert", options.tls_cert);
  return grpc::SslCredentials(ssl);
}

}  // namespace strata::grpc_ring
