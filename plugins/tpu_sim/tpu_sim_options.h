// The simulated slice as the config describes it (`plugins: {options:
// {tpu_sim: {...}}}`), read once at registration so every rank with the same
// config builds the same torus and ranks algorithms alike. A bad value
// refuses the plugin with an error naming the option.
#ifndef STRATA_PLUGINS_TPU_SIM_TPU_SIM_OPTIONS_H_
#define STRATA_PLUGINS_TPU_SIM_TPU_SIM_OPTIONS_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace strata::tpu_sim {

struct TpuSimOptions {
  // The slice: rows x cols cores joined in a 2-D torus (a v3-8 is 2x4).
  int rows = 2;
  int cols = 4;
  // Per-core accounting limit, the simulated HBM.
  uint64_t memory_per_core = uint64_t{16} << 30;
  // The interconnect: each link's latency and bandwidth (one direction).
  double alpha = 2e-6;             // seconds per message per hop
  double beta = 1.0 / 50e9;        // seconds per byte on one link
  double gamma = 1.0 / 100e9;      // seconds per byte a core reduces
  // When true, a core-to-core copy holds its core's stream until the
  // modelled link time has passed, so wall time follows the cost model.
  bool pace_links = false;
  // How long a core's stream waits for another core's event before it
  // gives up and fails its later work (a stuck peer, never a hang).
  std::chrono::nanoseconds stream_wait_timeout = std::chrono::minutes(5);

  int cores() const { return rows * cols; }
  std::string topology() const { return std::to_string(rows) + "x" + std::to_string(cols); }

  // From the host's options; STRATA_TPU_SIM_TOPOLOGY ("2x2") wins over
  // rows/cols, for runs without a config file (strata-conformance).
  // Throws sdk::InvalidArgument naming the option and what it expects.
  static TpuSimOptions from_host();
};

// "2x4" (or "2x4x1", the Cloud TPU spelling of a 2-D slice) into rows and
// cols. Throws sdk::InvalidArgument naming `where`.
void parse_topology(const std::string& where, const std::string& text, int* rows, int* cols);

}  // namespace strata::tpu_sim

#endif  // STRATA_PLUGINS_TPU_SIM_TPU_SIM_OPTIONS_H_
