#include "staged_device_type.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "strata/sdk/error.h"
#include "strata/sdk/host_kernels.h"

namespace strata::cli_test {
namespace {

constexpr uintptr_t kPoison = uintptr_t{1} << 62;

// Device pointers are real host pointers with bit 62 flipped; host pointers
// (device index STRATA_HOST_INDEX) pass through unchanged.
void* real(void* p, int device) {
  if (device == STRATA_HOST_INDEX || p == nullptr) return p;
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p) ^ kPoison);
}
const void* real(const void* p, int device) { return real(const_cast<void*>(p), device); }

void check(int device, bool allow_host) {
  if ((allow_host && device == STRATA_HOST_INDEX) ||
      (device >= 0 && device < StagedDeviceType::kDevices)) {
    return;
  }
  throw sdk::InvalidArgument("cli_staged has no device " + std::to_string(device));
}

}  // namespace

StagedDeviceType::StagedDeviceType()
    : DeviceType("cli_staged", "test devices the host cannot read; synchronous streams") {}

void StagedDeviceType::describe(int device, strata_device_props_t& props) {
  check(device, false);
  std::snprintf(props.name, sizeof props.name, "staged test device %d", device);
  props.memory_bytes = uint64_t{1} << 30;
  props.host_accessible = 0;
}

void* StagedDeviceType::allocate(int device, uint64_t bytes) {
  check(device, false);
  if (bytes == 0) return nullptr;
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (p == nullptr) throw sdk::Error(STRATA_OUT_OF_MEMORY, "aligned_alloc failed");
  return real(p, device);
}

void StagedDeviceType::free(int device, void* ptr) noexcept { std::free(real(ptr, device)); }

void StagedDeviceType::copy_async(int stream_device, void* dst, int dst_device, const void* src,
                                  int src_device, uint64_t bytes) {
  check(stream_device, false);
  check(dst_device, true);
  check(src_device, true);
  if (bytes > 0) std::memcpy(real(dst, dst_device), real(src, src_device), bytes);
}

void StagedDeviceType::reduce_async(int device, strata_dtype_t dtype, strata_redop_t op,
                                    std::span<void* const> dsts, std::span<const void* const> srcs,
                                    uint64_t count, uint32_t divisor) {
  check(device, false);
  std::vector<void*> d;
  std::vector<const void*> s;
  for (void* p : dsts) d.push_back(real(p, device));
  for (const void* p : srcs) s.push_back(real(p, device));
  if (!sdk::reduce_host_multi(dtype, op, d.data(), static_cast<uint32_t>(d.size()), s.data(),
                              static_cast<uint32_t>(s.size()), count, divisor)) {
    throw sdk::NotSupported("dtype or operator unknown to reduce_host_multi");
  }
}

strata_event_t StagedDeviceType::event_create(int device) {
  check(device, false);
  return new int(device);
}

void StagedDeviceType::event_destroy(strata_event_t event) noexcept {
  delete static_cast<int*>(event);
}

}  // namespace strata::cli_test
