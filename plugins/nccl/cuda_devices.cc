#include "cuda_devices.h"

#include "cuda_error.h"
#include "strata/abi/types.h"
#include "strata/sdk/backoff.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::nccl {

CudaDevices::CudaDevices(CudaTopology topology) : topology_(std::move(topology)) {
  for (int d = 0; d < count(); ++d) devices_.push_back(std::make_unique<Device>());
  peer_.assign(static_cast<size_t>(count() * count()), -1);
}

CudaDevices::~CudaDevices() {
  int current = -1;
  const bool restore = cudaGetDevice(&current) == cudaSuccess;
  for (int d = 0; d < count(); ++d) {
    Device& dev = *devices_[static_cast<size_t>(d)];
    if (dev.stream == nullptr) continue;
    // Destroying a stream with work queued is allowed (it is released once
    // the work is done). At process exit the runtime may already be gone:
    // then there is nothing left to release.
    (void)cudaSetDevice(d);
    (void)cudaStreamDestroy(dev.stream);
    (void)cudaGetLastError();
  }
  if (restore) (void)cudaSetDevice(current);
  (void)cudaGetLastError();
}

void CudaDevices::check_index(int device, bool allow_host, std::string_view what) const {
  if ((allow_host && device == STRATA_HOST_INDEX) || (device >= 0 && device < count())) return;
  throw sdk::InvalidArgument(std::string(what) + ": no cuda device " + std::to_string(device) +
                             " (this process sees " + std::to_string(count()) +
                             "; CUDA_VISIBLE_DEVICES selects which)");
}

cudaStream_t CudaDevices::stream(int device) {
  check_index(device, false, "stream");
  Device& dev = *devices_[static_cast<size_t>(device)];
  // call_once leaves the flag unset when the callable throws, so a failed
  // first use (out of memory creating the context) can be retried.
  std::call_once(dev.once, [&] {
    DeviceGuard guard(device);
    cudaStream_t s = nullptr;
    check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
               "cudaStreamCreateWithFlags (creating the device's context and stream)", device);
    dev.stream = s;
  });
  return dev.stream;
}

bool CudaDevices::peer_access(int device, int peer) {
  if (device == peer) return device >= 0 && device < count();
  if (!topology_.peer_capable(device, peer)) return false;
  std::lock_guard lock(peer_mu_);
  int8_t& state = peer_[static_cast<size_t>(device * count() + peer)];
  if (state >= 0) return state == 1;
  try {
    stream(peer);  // the peer's context must exist to be mapped
    stream(device);
    DeviceGuard guard(device);
    const cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) {
      (void)cudaGetLastError();  // enabled by someone else in this process: fine
    } else {
      check_cuda(e, "cudaDeviceEnablePeerAccess(" + std::to_string(peer) + ")", device);
    }
    state = 1;
  } catch (const sdk::Error& e) {
    sdk::Host::log(STRATA_LOG_WARNING,
                   std::string("peer access cuda:") + std::to_string(device) + " -> cuda:" +
                       std::to_string(peer) + " is possible but could not be enabled (" +
                       e.what() + "); copies between them stage through the host");
    state = 0;
  }
  return state == 1;
}

bool CudaDevices::wait_event(cudaEvent_t event, int device, std::chrono::nanoseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  sdk::Backoff backoff;
  for (;;) {
    const cudaError_t e = cudaEventQuery(event);
    if (e == cudaSuccess) return true;
    if (e != cudaErrorNotReady) check_cuda(e, "cudaEventQuery", device);
    if (std::chrono::steady_clock::now() >= deadline) return false;
    backoff.pause();
  }
}

}  // namespace strata::nccl
