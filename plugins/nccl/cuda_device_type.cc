#include "cuda_device_type.h"

#include <cstdio>
#include <string>

#include "cuda_error.h"
#include "reduce_kernel.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/types.h"

namespace strata::nccl {
namespace {

// Kernel launch plus the first instructions, for cost models.
constexpr double kLaunchLatency = 5e-6;

struct CudaEvent {
  int device;
  cudaEvent_t event;
};

CudaEvent* as_event(strata_event_t e) {
  if (e == nullptr) throw sdk::InvalidArgument("NULL event");
  return static_cast<CudaEvent*>(e);
}

}  // namespace

CudaDeviceType::CudaDeviceType(std::shared_ptr<CudaDevices> devices)
    : DeviceType("cuda", "NVIDIA GPUs through the CUDA runtime: cudaMalloc memory, one stream "
                         "per device, peer copies, reduce kernels for every dtype"),
      devices_(std::move(devices)) {}

void CudaDeviceType::describe(int device, strata_device_props_t& props) {
  devices_->check_index(device, false, "get_props");
  const CudaDeviceInfo& info = devices_->topology().device(device);
  std::snprintf(props.name, sizeof props.name, "%s", info.name.c_str());
  props.memory_bytes = info.memory_bytes;
  props.host_accessible = 0;
  // Every GPU runs its own stream at full speed.
  props.parallel_streams = static_cast<uint32_t>(devices_->count());
  props.launch_latency = kLaunchLatency;
}

bool CudaDeviceType::can_access_peer(int device, int peer) {
  return devices_->peer_access(device, peer);
}

double CudaDeviceType::link_bandwidth(int from, int to) {
  return devices_->topology().bandwidth(from, to);
}

void* CudaDeviceType::allocate(int device, uint64_t bytes) {
  devices_->check_index(device, false, "allocate");
  if (bytes == 0) return nullptr;
  devices_->stream(device);  // creates the context, with a clear message if that fails
  DeviceGuard guard(device);
  void* ptr = nullptr;
  // cudaMalloc aligns to at least 256 bytes, beyond the ABI's 64.
  check_cuda(cudaMalloc(&ptr, bytes), "cudaMalloc(" + std::to_string(bytes) + " bytes)", device);
  return ptr;
}

void CudaDeviceType::free(int device, void* ptr) noexcept {
  if (ptr == nullptr) return;
  try {
    DeviceGuard guard(device);
    check_cuda(cudaFree(ptr), "cudaFree", device);
  } catch (const std::exception& e) {
    // The caller cannot act on a failed free; leaking is the safe outcome.
    sdk::Host::log(STRATA_LOG_WARNING, std::string("leaking device memory: ") + e.what());
  }
}

void CudaDeviceType::copy_async(int stream_device, void* dst, int dst_device, const void* src,
                                int src_device, uint64_t bytes) {
  devices_->check_index(stream_device, false, "copy_async stream");
  devices_->check_index(dst_device, true, "copy_async destination");
  devices_->check_index(src_device, true, "copy_async source");
  if (bytes == 0) return;
  if (dst == nullptr || src == nullptr) {
    throw sdk::InvalidArgument("copy_async of " + std::to_string(bytes) + " bytes with a NULL pointer");
  }
  cudaStream_t s = devices_->stream(stream_device);
  DeviceGuard guard(stream_device);
  const bool dst_host = dst_device == STRATA_HOST_INDEX;
  const bool src_host = src_device == STRATA_HOST_INDEX;
  if (!dst_host && !src_host && dst_device != src_device) {
    // Direct over NVLink/PCIe with peer access, staged by CUDA without it.
    check_cuda(cudaMemcpyPeerAsync(dst, dst_device, src, src_device, bytes, s),
               "cudaMemcpyPeerAsync(cuda:" + std::to_string(src_device) + " -> cuda:" +
                   std::to_string(dst_device) + ")",
               stream_device);
    return;
  }
  // Pageable host memory is staged by CUDA and stays stream-ordered (the
  // call may wait for earlier work on the stream, which is allowed here).
  const cudaMemcpyKind kind = dst_host ? (src_host ? cudaMemcpyHostToHost : cudaMemcpyDeviceToHost)
                                       : (src_host ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice);
  check_cuda(cudaMemcpyAsync(dst, src, bytes, kind, s),
             "cudaMemcpyAsync(" + std::to_string(bytes) + " bytes)", stream_device);
}

void CudaDeviceType::check_kernel_pointer(int device, const void* ptr, const char* role) {
  if (ptr == nullptr) throw sdk::InvalidArgument(std::string("reduce_async: NULL ") + role);
  cudaPointerAttributes attr{};
  check_cuda(cudaPointerGetAttributes(&attr, ptr), "cudaPointerGetAttributes", device);
  if (attr.type == cudaMemoryTypeManaged) return;
  if (attr.type == cudaMemoryTypeHost && attr.devicePointer != nullptr) return;  // mapped pinned
  if (attr.type != cudaMemoryTypeDevice) {
    throw sdk::InvalidArgument(std::string("reduce_async on cuda:") + std::to_string(device) +
                               ": the " + role + " is host memory; the kernel needs device memory");
  }
  if (attr.device != device && !devices_->peer_access(device, attr.device)) {
    throw sdk::InvalidArgument(std::string("reduce_async on cuda:") + std::to_string(device) +
                               ": the " + role + " is on cuda:" + std::to_string(attr.device) +
                               ", which this device cannot access (can_access_peer is 0)");
  }
}

void CudaDeviceType::reduce_async(int device, strata_dtype_t dtype, strata_redop_t op,
                                  std::span<void* const> dsts, std::span<const void* const> srcs,
                                  uint64_t count, uint32_t divisor) {
  devices_->check_index(device, false, "reduce_async");
  if (sdk::dtype_size(dtype) == 0) {
    throw sdk::NotSupported("reduce_async: dtype " + std::to_string(dtype) +
                            " is unknown to this build of the nccl plugin");
  }
  if (op < 0 || op >= STRATA_REDOP_COUNT) {
    throw sdk::NotSupported("reduce_async: operator " + std::to_string(op) +
                            " is unknown to this build of the nccl plugin");
  }
  if (srcs.empty() || dsts.empty()) throw sdk::InvalidArgument("reduce_async: no sources or destinations");
  if (srcs.size() > kMaxReduceOperands || dsts.size() > kMaxReduceOperands) {
    throw sdk::InvalidArgument("reduce_async: " + std::to_string(srcs.size()) + " sources and " +
                               std::to_string(dsts.size()) + " destinations; the cuda kernel takes at most " +
                               std::to_string(kMaxReduceOperands) + " of each");
  }
  if (op == STRATA_MEAN && divisor == 0) throw sdk::InvalidArgument("reduce_async: MEAN with divisor 0");
  if (count == 0) return;
  for (const void* p : srcs) check_kernel_pointer(device, p, "source");
  for (void* p : dsts) check_kernel_pointer(device, p, "destination");
  cudaStream_t s = devices_->stream(device);
  DeviceGuard guard(device);
  check_cuda(launch_reduce(dtype, op, dsts.data(), static_cast<uint32_t>(dsts.size()), srcs.data(),
                           static_cast<uint32_t>(srcs.size()), count, divisor, s),
             std::string("reduce kernel (") + sdk::dtype_name(dtype) + " " + sdk::redop_name(op) + ")",
             device);
}

strata_event_t CudaDeviceType::event_create(int device) {
  devices_->check_index(device, false, "event_create");
  devices_->stream(device);
  DeviceGuard guard(device);
  cudaEvent_t e = nullptr;
  check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags", device);
  return new CudaEvent{device, e};
}

void CudaDeviceType::event_record(strata_event_t event) {
  CudaEvent* ev = as_event(event);
  cudaStream_t s = devices_->stream(ev->device);
  DeviceGuard guard(ev->device);  // an event is recorded on a stream of its own device
  check_cuda(cudaEventRecord(ev->event, s), "cudaEventRecord", ev->device);
}

void CudaDeviceType::stream_wait_event(int device, strata_event_t event) {
  CudaEvent* ev = as_event(event);
  cudaStream_t s = devices_->stream(device);
  DeviceGuard guard(device);
  // Waiting on another device's event is legal and stays on the GPUs.
  check_cuda(cudaStreamWaitEvent(s, ev->event, 0),
             "cudaStreamWaitEvent(event of cuda:" + std::to_string(ev->device) + ")", device);
}

bool CudaDeviceType::event_query(strata_event_t event) {
  CudaEvent* ev = as_event(event);
  const cudaError_t e = cudaEventQuery(ev->event);
  if (e == cudaErrorNotReady) return false;
  check_cuda(e, "cudaEventQuery (work before the event failed)", ev->device);
  return true;
}

bool CudaDeviceType::event_wait(strata_event_t event, std::chrono::nanoseconds timeout) {
  CudaEvent* ev = as_event(event);
  return CudaDevices::wait_event(ev->event, ev->device, timeout);
}

void CudaDeviceType::event_destroy(strata_event_t event) noexcept {
  if (event == nullptr) return;
  auto* ev = static_cast<CudaEvent*>(event);
  (void)cudaEventDestroy(ev->event);
  (void)cudaGetLastError();
  delete ev;
}

void CudaDeviceType::synchronize(int device, std::chrono::nanoseconds timeout) {
  devices_->check_index(device, false, "synchronize");
  strata_event_t marker = event_create(device);
  bool reached = false;
  try {
    event_record(marker);
    reached = event_wait(marker, timeout);
  } catch (...) {
    event_destroy(marker);
    throw;
  }
  // An event still pending may be destroyed: CUDA releases it once reached.
  event_destroy(marker);
  if (!reached) {
    throw sdk::Error(STRATA_TIMED_OUT, "cuda:" + std::to_string(device) + " did not drain within " +
                                          std::to_string(timeout.count() / 1000000) + " ms");
  }
}

}  // namespace strata::nccl
