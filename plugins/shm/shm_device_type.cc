#include "shm_device_type.h"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "shared_heap.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host_copy.h"
#include "strata/sdk/host_kernels.h"
#include "strata/sdk/types.h"

namespace strata::shm {
namespace {

// Indices a call may name: the one device, or the host where the ABI
// allows it (host memory is the same memory here).
void check_device(int device, bool allow_host, const char* what) {
  if (device == 0 || (allow_host && device == STRATA_HOST_INDEX)) return;
  throw sdk::InvalidArgument(std::string(kDeviceTypeName) + " " + what + ": no device " +
                             std::to_string(device) + " (each process has one, index 0)");
}

// An event of a stream that runs its work as it is enqueued: reached at
// once, so it holds nothing; an object still, since callers destroy it.
struct InlineEvent {};

}  // namespace

ShmDeviceType::ShmDeviceType()
    : sdk::DeviceType(kDeviceTypeName,
                      "host memory the processes of one host share (memfd); the shm plugin's "
                      "mapped collectives use peers' buffers in place") {}

void ShmDeviceType::describe(int device, strata_device_props_t& props) {
  check_device(device, false, "describe");
  // No pid or address: `strata info` in two processes must read alike.
  std::snprintf(props.name, sizeof props.name, "host memory shared with this host's processes");
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  props.memory_bytes = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * page : 0;
  props.host_accessible = 1;
  props.parallel_streams = 1;
  props.launch_latency = 0;
}

double ShmDeviceType::link_bandwidth(int, int) {
  // One core's copy between buffers in host memory, as the cpu type's
  // default: a cost-model estimate, not a measurement.
  return 10e9;
}

void* ShmDeviceType::allocate(int device, uint64_t bytes) {
  check_device(device, false, "allocate");
  if (bytes == 0) return nullptr;
  return SharedHeap::instance().allocate(bytes);
}

void ShmDeviceType::free(int, void* ptr) noexcept { SharedHeap::instance().free(ptr); }

void ShmDeviceType::copy_async(int stream_device, void* dst, int dst_device, const void* src,
                               int src_device, uint64_t bytes) {
  check_device(stream_device, false, "copy_async");
  check_device(dst_device, true, "copy_async");
  check_device(src_device, true, "copy_async");
  sdk::copy_host(dst, src, bytes);
}

void ShmDeviceType::reduce_async(int device, strata_dtype_t dtype, strata_redop_t op,
                                 std::span<void* const> dsts, std::span<const void* const> srcs,
                                 uint64_t count, uint32_t divisor) {
  check_device(device, false, "reduce_async");
  if (dsts.empty() || srcs.empty()) {
    throw sdk::InvalidArgument(std::string(kDeviceTypeName) +
                               " reduce_async: needs a source and a destination");
  }
  if (!sdk::reduce_host_multi(dtype, op, dsts.data(), static_cast<uint32_t>(dsts.size()),
                              srcs.data(), static_cast<uint32_t>(srcs.size()), count, divisor)) {
    throw sdk::NotSupported(std::string(kDeviceTypeName) + " reduce_async: dtype " +
                            sdk::dtype_name(dtype) + " with operator " + std::to_string(op) +
                            " is unknown to the SDK's host kernels");
  }
}

strata_event_t ShmDeviceType::event_create(int device) {
  check_device(device, false, "event_create");
  return new InlineEvent;
}

void ShmDeviceType::event_record(strata_event_t) {}
void ShmDeviceType::stream_wait_event(int device, strata_event_t) {
  check_device(device, false, "stream_wait_event");
}
bool ShmDeviceType::event_query(strata_event_t) { return true; }
bool ShmDeviceType::event_wait(strata_event_t, std::chrono::nanoseconds) { return true; }
void ShmDeviceType::event_destroy(strata_event_t event) noexcept {
  delete static_cast<InlineEvent*>(event);
}

void ShmDeviceType::synchronize(int device, std::chrono::nanoseconds) {
  check_device(device, false, "synchronize");
}

}  // namespace strata::shm
