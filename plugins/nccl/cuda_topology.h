// What cost models know about this machine's GPUs, probed once at
// registration without creating a CUDA context: each device's name, memory
// and DRAM bandwidth, and for every pair whether the hardware allows peer
// access and over what class of link.
//
// No NVML (it would be one more library to find and load), so link speeds
// are estimates from the CUDA runtime's attributes, documented in
// docs/GPU.md: only their ratios matter to AUTO, and every number can be
// checked with plugins/nccl/bench.
#ifndef STRATA_PLUGINS_NCCL_CUDA_TOPOLOGY_H_
#define STRATA_PLUGINS_NCCL_CUDA_TOPOLOGY_H_

#include <cstdint>
#include <string>
#include <vector>

namespace strata::nccl {

struct CudaDeviceInfo {
  std::string name;        // "NVIDIA H100 80GB HBM3"
  uint64_t memory_bytes = 0;
  double dram_bytes_per_second = 0;  // theoretical, from clock and bus width
};

class CudaTopology {
 public:
  // Estimates, in bytes per second of one copy.
  static constexpr double kHostLink = 20e9;      // pageable host <-> device over PCIe
  static constexpr double kNvlinkPeer = 150e9;   // peer access with native atomics
  static constexpr double kPciePeer = 20e9;      // peer access without
  static constexpr double kStagedPeer = 10e9;    // no peer access: through the host
  // A device-to-device copy on one GPU reads and writes every byte, at about
  // 80% of the theoretical DRAM bandwidth.
  static constexpr double kDramEfficiency = 0.8;

  // Queries the runtime for `count` devices; throws sdk::Error on failure.
  static CudaTopology probe(int count);

  int count() const { return static_cast<int>(devices_.size()); }
  const CudaDeviceInfo& device(int d) const { return devices_[static_cast<size_t>(d)]; }
  // Whether the hardware lets `device` map `peer`'s memory (before it was
  // enabled): cudaDeviceCanAccessPeer. True for device == peer.
  bool peer_capable(int device, int peer) const;
  // Copy bandwidth from a to b; either may be -1 (host memory).
  double bandwidth(int a, int b) const;
  // One line per device and a peer matrix, for the registration's log.
  std::string describe() const;

 private:
  enum class Link : uint8_t { kSelf, kNvlink, kPcie, kNone };
  Link link(int a, int b) const { return links_[static_cast<size_t>(a * count() + b)]; }

  std::vector<CudaDeviceInfo> devices_;
  std::vector<Link> links_;  // [a * count + b]
};

}  // namespace strata::nccl

#endif  // STRATA_PLUGINS_NCCL_CUDA_TOPOLOGY_H_
