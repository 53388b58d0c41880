#include "cuda_topology.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>

#include "cuda_error.h"

namespace strata::nccl {
namespace {

int attribute(cudaDeviceAttr attr, int device, const char* name) {
  int value = 0;
  check_cuda(cudaDeviceGetAttribute(&value, attr, device),
             std::string("cudaDeviceGetAttribute(") + name + ")", device);
  return value;
}

}  // namespace

CudaTopology CudaTopology::probe(int count) {
  CudaTopology t;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    check_cuda(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties", d);
    CudaDeviceInfo info;
    info.name = prop.name;
    info.memory_bytes = prop.totalGlobalMem;
    // kHz x bits: double data rate, so two transfers per clock.
    const double clock_hz = 1e3 * attribute(cudaDevAttrMemoryClockRate, d, "MemoryClockRate");
    const double bus_bytes = attribute(cudaDevAttrGlobalMemoryBusWidth, d, "GlobalMemoryBusWidth") / 8.0;
    info.dram_bytes_per_second = 2.0 * clock_hz * bus_bytes;
    t.devices_.push_back(std::move(info));
  }
  t.links_.assign(static_cast<size_t>(count * count), Link::kNone);
  for (int a = 0; a < count; ++a) {
    for (int b = 0; b < count; ++b) {
      Link& l = t.links_[static_cast<size_t>(a * count + b)];
      if (a == b) {
        l = Link::kSelf;
        continue;
      }
      int can = 0;
      check_cuda(cudaDeviceCanAccessPeer(&can, a, b), "cudaDeviceCanAccessPeer", a);
      if (can == 0) continue;
      // Native atomics across the link are what NVLink offers and PCIe does
      // not: the best signal of the link's class the runtime gives.
      int atomics = 0;
      check_cuda(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, a, b),
                 "cudaDeviceGetP2PAttribute(NativeAtomicSupported)", a);
      l = atomics != 0 ? Link::kNvlink : Link::kPcie;
    }
  }
  return t;
}

bool CudaTopology::peer_capable(int device, int peer) const {
  if (device < 0 || peer < 0 || device >= count() || peer >= count()) return false;
  const Link l = link(device, peer);
  return l != Link::kNone;
}

double CudaTopology::bandwidth(int a, int b) const {
  const bool a_ok = a >= 0 && a < count();
  const bool b_ok = b >= 0 && b < count();
  if (!a_ok || !b_ok) return kHostLink;  // one side is host memory
  switch (link(a, b)) {
    case Link::kSelf: {
      const double dram = device(a).dram_bytes_per_second;
      // Each copied byte is read once and written once.
      return dram > 0 ? kDramEfficiency * dram / 2 : kNvlinkPeer;
    }
    case Link::kNvlink: return kNvlinkPeer;
    case Link::kPcie: return kPciePeer;
    default: return kStagedPeer;
  }
}

std::string CudaTopology::describe() const {
  std::string out;
  char line[256];
  for (int d = 0; d < count(); ++d) {
    std::snprintf(line, sizeof line, "cuda:%d %s, %.1f GiB, ~%.0f GB/s DRAM; peers:", d,
                  device(d).name.c_str(), static_cast<double>(device(d).memory_bytes) / (1 << 30),
                  device(d).dram_bytes_per_second / 1e9);
    out += line;
    for (int p = 0; p < count(); ++p) {
      if (p == d) continue;
      const Link l = link(d, p);
      out += std::string(" ") + std::to_string(p) +
             (l == Link::kNvlink ? "=nvlink" : l == Link::kPcie ? "=pcie" : "=none");
    }
    if (d + 1 < count()) out += "; ";
  }
  return out;
}

}  // namespace strata::nccl
