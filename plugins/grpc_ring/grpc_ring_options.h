// The plugin's options (`plugins: {options: {grpc_ring: {...}}}`), read once
// at registration so every rank with the same config decides alike. A bad
// value refuses the plugin with an error naming the option.
#ifndef STRATA_PLUGINS_GRPC_RING_GRPC_RING_OPTIONS_H_
#define STRATA_PLUGINS_GRPC_RING_GRPC_RING_OPTIONS_H_

#include <cstdint>
#include <string>

#include "grpc_store_quota.h"

namespace strata::grpc_ring {

// How ring messages travel (data_plane.h): plain TCP progressed by the
// calling thread, or the team's gRPC streams (the only one with TLS).
enum class DataPlaneKind { kAuto, kTcp, kGrpc };

struct GrpcRingOptions {
  // Payload of one message. Chunks are what overlap: while chunk c of a
  // step is on the wire, chunk c-1 is being reduced and c+1 queued.
  uint64_t chunk_bytes = 1 << 20;
  // Chunks a rank may have written but not yet seen leave (bounds memory:
  // each queued chunk is a copy).
  uint32_t chunks_in_flight = 8;
  // HTTP/2 stream and connection window; large so a whole ring step can be
  // on the wire without waiting for WINDOW_UPDATEs.
  uint64_t window_bytes = 64ull << 20;
  std::string listen_address = "0.0.0.0:0";  // host:port, port 0 = any free one
  std::string advertise_host;                 // empty: listen host, else hostname
  std::string token_file;                     // else STRATA_JOB_TOKEN_FILE / _TOKEN
  std::string tls_cert, tls_key, tls_ca;      // PEM files; all three, or none
  std::string tls_server_name;  // name the neighbours' certificates carry, if not their host
  // The alpha-beta model AUTO ranks the algorithms by.
  double alpha = 40e-6;      // seconds per message (a gRPC round through the stack)
  double beta = 1.0 / 2e9;   // seconds per byte on the wire
  double gamma = 1.0 / 4e9;  // seconds per byte reduced
  // What the job may make the grpc store hold: the job's cluster.store_max_*,
  // which core answers option() with (strata/abi/registrar.h).
  GrpcStoreLimits store_limits;

  // kAuto: tcp, or grpc when TLS is on (raw TCP would bypass it).
  DataPlaneKind data_plane = DataPlaneKind::kAuto;

  bool tls() const { return !tls_cert.empty(); }
  DataPlaneKind resolved_data_plane() const {
    if (data_plane != DataPlaneKind::kAuto) return data_plane;
    return tls() ? DataPlaneKind::kGrpc : DataPlaneKind::kTcp;
  }

  // Throws sdk::InvalidArgument naming the option and what it expects.
  static GrpcRingOptions from_host();
};

// "65536", "64KiB", "1MiB": a positive size with an optional binary unit.
// `where` names the setting in the error.
uint64_t parse_size(const std::string& where, const std::string& text);

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_GRPC_RING_OPTIONS_H_
