// A device type whose memory the host may not touch, for CI machines with
// no GPU: "walled" devices behave like cuda's for everything the framework
// relies on — host_accessible is 0, and a copy or reduction handed a
// pointer that is not this type's device memory is refused with
// INVALID_ARGUMENT (cuda's device type checks every pointer the same way;
// NCCL would fault). The work itself is done by a virtual CPU device type.
#ifndef STRATA_TESTS_STRATEGY_WALLED_DEVICE_TYPE_H_
#define STRATA_TESTS_STRATEGY_WALLED_DEVICE_TYPE_H_

#include <atomic>
#include <cstdio>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "core/device/cpu_device_type.h"
#include "strata/sdk/error.h"
#include "strata/sdk/types.h"

namespace strata::testing {

class WalledDeviceType final : public sdk::DeviceType {
 public:
  explicit WalledDeviceType(int count)
      : sdk::DeviceType("walled", "test devices the host cannot address"),
        inner_(CpuDeviceOptions{.count = count}) {}

  // Copies between host memory and a walled device (staging traffic).
  int64_t host_copies() const { return host_copies_.load(); }

  int device_count() override { return inner_.device_count(); }
  void describe(int device, strata_device_props_t& props) override {
    inner_.describe(device, props);
    std::snprintf(props.name, sizeof props.name, "walled test device %d", device);
    props.host_accessible = 0;
  }
  bool can_access_peer(int device, int peer) override { return inner_.can_access_peer(device, peer); }
  double link_bandwidth(int from, int to) override { return inner_.link_bandwidth(from, to); }

  void* allocate(int device, uint64_t bytes) override {
    void* p = inner_.allocate(device, bytes);
    std::lock_guard lock(mu_);
    if (p != nullptr) blocks_[reinterpret_cast<uintptr_t>(p)] = bytes;
    return p;
  }
  void free(int device, void* ptr) noexcept override {
    {
      std::lock_guard lock(mu_);
      blocks_.erase(reinterpret_cast<uintptr_t>(ptr));
    }
    inner_.free(device, ptr);
  }
  void copy_async(int stream_device, void* dst, int dst_device, const void* src, int src_device,
                  uint64_t bytes) override {
    if (dst_device != STRATA_HOST_INDEX) check(dst, bytes, "copy destination");
    if (src_device != STRATA_HOST_INDEX) check(src, bytes, "copy source");
    if (dst_device == STRATA_HOST_INDEX || src_device == STRATA_HOST_INDEX) ++host_copies_;
    inner_.copy_async(stream_device, dst, dst_device, src, src_device, bytes);
  }
  void reduce_async(int device, strata_dtype_t dtype, strata_redop_t op,
                    std::span<void* const> dsts, std::span<const void* const> srcs,
                    uint64_t count, uint32_t divisor) override {
    const uint64_t bytes = count * sdk::dtype_size(dtype);
    for (void* d : dsts) check(d, bytes, "reduce destination");
    for (const void* s : srcs) check(s, bytes, "reduce source");
    inner_.reduce_async(device, dtype, op, dsts, srcs, count, divisor);
  }

  strata_event_t event_create(int device) override { return inner_.event_create(device); }
  void event_record(strata_event_t event) override { inner_.event_record(event); }
  void stream_wait_event(int device, strata_event_t event) override {
    inner_.stream_wait_event(device, event);
  }
  bool event_query(strata_event_t event) override { return inner_.event_query(event); }
  bool event_wait(strata_event_t event, std::chrono::nanoseconds timeout) override {
    return inner_.event_wait(event, timeout);
  }
  void event_destroy(strata_event_t event) noexcept override { inner_.event_destroy(event); }
  void synchronize(int device, std::chrono::nanoseconds timeout) override {
    inner_.synchronize(device, timeout);
  }

 private:
  void check(const void* p, uint64_t bytes, const char* what) const {
    if (bytes == 0) return;
    const auto a = reinterpret_cast<uintptr_t>(p);
    std::lock_guard lock(mu_);
    auto it = blocks_.upper_bound(a);
    if (it != blocks_.begin()) {
      --it;
      if (a >= it->first && a + bytes <= it->first + it->second) return;
    }
    throw sdk::InvalidArgument(std::string(what) + " " + std::to_string(a) +
                               " is not walled device memory (a host pointer?)");
  }

  CpuDeviceType inner_;
  mutable std::mutex mu_;
  std::map<uintptr_t, uint64_t> blocks_;  // start -> bytes of every live allocation
  std::atomic<int64_t> host_copies_{0};
};

}  // namespace strata::testing

#endif  // STRATA_TESTS_STRATEGY_WALLED_DEVICE_TYPE_H_
