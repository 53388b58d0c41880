#include "grpc_ring_options.h"

#include <charconv>
#include <cstdlib>
#include <optional>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/option_values.h"

namespace strata::grpc_ring {
namespace {

const std::string kPrefix = "plugins.options.grpc_ring.";

// A job setting core hands every plugin ("cluster.store_max_keys"): a
// whole number from 1 up, as decimal text; kept as it is when not given.
void job_setting(const char* key, uint64_t* out) {
  auto v = sdk::Host::option(key);
  if (!v) return;
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (ec != std::errc() || end != v->data() + v->size() || n == 0) {
    throw sdk::InvalidArgument(std::string(key) + ": '" + *v +
                               "' is not a whole number from 1 up (core passes it on)");
  }
  *out = n;
}

std::string file_option(const char* key) {
  auto v = sdk::Host::option(key);
  if (!v) return "";
  if (v->empty()) throw sdk::InvalidArgument(kPrefix + key + ": empty path");
  return *v;
}

}  // namespace

uint64_t parse_size(const std::string& where, const std::string& text) {
  return static_cast<uint64_t>(sdk::parse_option_number(where, text, true));
}

GrpcRingOptions GrpcRingOptions::from_host() {
  GrpcRingOptions o;
  // The variable wins over the config (like NCCL_BUFFSIZE), for tuning and
  // for tests without a config file (the conformance suite has none).
  const char* forced = std::getenv("STRATA_GRPC_RING_CHUNK_BYTES");
  const bool env = forced != nullptr && *forced != '\0';
  if (auto v = env ? std::optional<std::string>(forced) : sdk::Host::option("chunk_bytes")) {
    o.chunk_bytes = parse_size(env ? "STRATA_GRPC_RING_CHUNK_BYTES" : kPrefix + "chunk_bytes", *v);
    // gRPC's message limit is an int, and a chunk must hold an f64.
    if (o.chunk_bytes < 64 || o.chunk_bytes > (1u << 30)) {
      throw sdk::InvalidArgument(kPrefix + "chunk_bytes: '" + *v +
                                 "' is outside 64 B .. 1 GiB");
    }
  }
  if (auto v = sdk::Host::option("chunks_in_flight")) {
    const double n = sdk::parse_option_number(kPrefix + "chunks_in_flight", *v, false);
    if (n < 1 || n > 1024 || n != static_cast<double>(static_cast<uint32_t>(n))) {
      throw sdk::InvalidArgument(kPrefix + "chunks_in_flight: '" + *v +
                                 "' is not a whole number from 1 to 1024");
    }
    o.chunks_in_flight = static_cast<uint32_t>(n);
  }
  if (auto v = sdk::Host::option("window_bytes")) {
    o.window_bytes = parse_size(kPrefix + "window_bytes", *v);
    if (o.window_bytes > (1u << 30)) {
      throw sdk::InvalidArgument(kPrefix + "window_bytes: '" + *v + "' is over 1 GiB");
    }
  }
  if (auto v = sdk::Host::option("listen_address")) {
    if (v->rfind(':') == std::string::npos) {
      throw sdk::InvalidArgument(kPrefix + "listen_address: '" + *v +
                                 "' is not host:port (port 0 picks a free one)");
    }
    o.listen_address = *v;
  }
  if (auto v = sdk::Host::option("advertise_host")) o.advertise_host = *v;
  o.token_file = file_option("token_file");
  o.tls_cert = file_option("tls_cert");
  o.tls_key = file_option("tls_key");
  o.tls_ca = file_option("tls_ca");
  const int tls_set = !o.tls_cert.empty() + !o.tls_key.empty() + !o.tls_ca.empty();
  if (tls_set != 0 && tls_set != 3) {
    throw sdk::InvalidArgument(kPrefix + "tls_cert, tls_key and tls_ca go together: give all "
                               "three (TLS with mutual authentication) or none");
  }
  if (auto v = sdk::Host::option("tls_server_name")) o.tls_server_name = *v;
  // Like the chunk size, the variable wins (tuning, and the conformance
  // suite, which has no config).
  const char* plane = std::getenv("STRATA_GRPC_RING_DATA_PLANE");
  const bool plane_env = plane != nullptr && *plane != '\0';
  if (auto v = plane_env ? std::optional<std::string>(plane) : sdk::Host::option("data_plane")) {
    const std::string name =
        plane_env ? "STRATA_GRPC_RING_DATA_PLANE" : kPrefix + "data_plane";
    if (*v == "tcp") {
      o.data_plane = DataPlaneKind::kTcp;
    } else if (*v == "grpc") {
      o.data_plane = DataPlaneKind::kGrpc;
    } else {
      throw sdk::InvalidArgument(name + ": '" + *v + "' is neither tcp nor grpc");
    }
    if (o.data_plane == DataPlaneKind::kTcp && o.tls()) {
      throw sdk::InvalidArgument(
          name + ": 'tcp' would carry the ring's data in clear text beside TLS (tls_cert, "
                 "tls_key and tls_ca are set): use data_plane grpc, or leave it unset");
    }
  }
  sdk::read_cost_model_options(kPrefix, &o.alpha, &o.beta, &o.gamma);
  job_setting("cluster.store_max_bytes", &o.store_limits.max_bytes);
  job_setting("cluster.store_max_keys", &o.store_limits.max_keys);
  job_setting("cluster.store_max_value", &o.store_limits.max_value_bytes);
  return o;
}

}  // namespace strata::grpc_ring
