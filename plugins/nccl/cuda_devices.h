// The CUDA state one registration of the plugin shares between its device
// type and its NCCL algorithms: one stream per device (so collectives run in
// order with the copies and reductions core and hierarchical_copy enqueue),
// peer access, and deadline-bounded waits on events.
//
// Nothing touches a GPU until it is used: a device's context and stream are
// created on first use, so a process that drives cuda:0 of an 8-GPU machine
// does not pay for (or hold memory on) the seven others.
#ifndef STRATA_PLUGINS_NCCL_CUDA_DEVICES_H_
#define STRATA_PLUGINS_NCCL_CUDA_DEVICES_H_

#include <cuda_runtime_api.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "cuda_topology.h"

namespace strata::nccl {

class CudaDevices {
 public:
  explicit CudaDevices(CudaTopology topology);
  ~CudaDevices();
  CudaDevices(const CudaDevices&) = delete;
  CudaDevices& operator=(const CudaDevices&) = delete;

  int count() const { return topology_.count(); }
  const CudaTopology& topology() const { return topology_; }

  // Throws sdk::InvalidArgument naming `what` unless `device` is a device
  // index (or, with allow_host, STRATA_HOST_INDEX).
  void check_index(int device, bool allow_host, std::string_view what) const;

  // The device's in-order stream, created with its context on first use.
  // Non-blocking: it never synchronises with the legacy default stream, so
  // a user's unrelated default-stream work cannot stall a collective.
  cudaStream_t stream(int device);

  // Whether kernels on `device` may dereference `peer`'s memory; the first
  // ask enables the mapping (cudaDeviceEnablePeerAccess). False when the
  // hardware cannot or enabling failed (logged once).
  bool peer_access(int device, int peer);

  // Polls `event` until it is reached or `timeout` passes (false). Throws
  // sdk::Error with CUDA's message when work before it failed. CUDA's own
  // cudaEventSynchronize has no deadline, hence the polling.
  static bool wait_event(cudaEvent_t event, int device, std::chrono::nanoseconds timeout);

 private:
  struct Device {
    std::once_flag once;
    cudaStream_t stream = nullptr;
  };
  CudaTopology topology_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::mutex peer_mu_;
  std::vector<int8_t> peer_;  // [device * count + peer]: -1 not yet asked, 0, 1
};

}  // namespace strata::nccl

#endif  // STRATA_PLUGINS_NCCL_CUDA_DEVICES_H_
