// The built-in "cpu" device type: N virtual devices in this process, each
// with its own memory accounting and its own worker thread (its stream), so
// multi-device code — Mirrored training, hierarchical all-reduce — runs and
// is tested on a laptop. All of them share the address space, so every
// device can access every peer.
#ifndef STRATA_CORE_DEVICE_CPU_DEVICE_TYPE_H_
#define STRATA_CORE_DEVICE_CPU_DEVICE_TYPE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/device/cpu_stream.h"
#include "strata/sdk/device_type.h"

namespace strata {

struct CpuDeviceOptions {
  int count = 8;                                   // virtual devices
  uint64_t memory_per_device = uint64_t{16} << 30;  // accounting limit
  double bandwidth = 0;     // bytes/s one thread copies; 0: measure once
  double launch_latency = 8e-6;  // s for a sleeping worker to start work
};

class CpuDeviceType final : public sdk::DeviceType {
 public:
  explicit CpuDeviceType(CpuDeviceOptions options);
  ~CpuDeviceType() override;

  int device_count() override { return options_.count; }
  void describe(int device, strata_device_props_t& props) override;
  bool can_access_peer(int device, int peer) override;
  double link_bandwidth(int from, int to) override;

  void* allocate(int device, uint64_t bytes) override;
  void free(int device, void* ptr) noexcept override;
  void copy_async(int stream_device, void* dst, int dst_device, const void* src,
                  int src_device, uint64_t bytes) override;
  void reduce_async(int device, strata_dtype_t dtype, strata_redop_t op,
                    std::span<void* const> dsts, std::span<const void* const> srcs,
                    uint64_t count, uint32_t divisor) override;

  strata_event_t event_create(int device) override;
  void event_record(strata_event_t event) override;
  void stream_wait_event(int device, strata_event_t event) override;
  bool event_query(strata_event_t event) override;
  bool event_wait(strata_event_t event, std::chrono::nanoseconds timeout) override;
  void event_destroy(strata_event_t event) noexcept override;
  void synchronize(int device, std::chrono::nanoseconds timeout) override;

  uint64_t bytes_in_use(int device) const;

 private:
  struct Memory {
    mutable std::mutex mu;
    std::unordered_map<void*, uint64_t> blocks;
    uint64_t in_use = 0;
  };
  void check_device(int device, bool allow_host, const char* what) const;
  CpuStream& stream(int device) { return *streams_[static_cast<size_t>(device)]; }

  CpuDeviceOptions options_;
  std::vector<std::unique_ptr<CpuStream>> streams_;
  std::vector<std::unique_ptr<Memory>> memory_;
};

}  // namespace strata

#endif  // STRATA_CORE_DEVICE_CPU_DEVICE_TYPE_H_
