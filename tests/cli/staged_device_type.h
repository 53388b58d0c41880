// A device type for the CLI tests whose memory the host must not touch:
// host_accessible is 0, no device reads a peer, and the pointers it hands
// out have bit 62 set (non-canonical on x86-64), so any code that
// dereferences device memory directly — instead of going through
// copy_async — crashes at once. Work runs synchronously on the caller, which
// trivially keeps every stream and event ordering the ABI asks for.
#ifndef STRATA_TESTS_CLI_STAGED_DEVICE_TYPE_H_
#define STRATA_TESTS_CLI_STAGED_DEVICE_TYPE_H_

#include <cstdint>
#include <span>

#include "strata/sdk/device_type.h"

namespace strata::cli_test {

class StagedDeviceType final : public sdk::DeviceType {
 public:
  static constexpr int kDevices = 4;

  StagedDeviceType();

  int device_count() override { return kDevices; }
  void describe(int device, strata_device_props_t& props) override;
  bool can_access_peer(int device, int peer) override { return device == peer; }

  void* allocate(int device, uint64_t bytes) override;
  void free(int device, void* ptr) noexcept override;
  void copy_async(int stream_device, void* dst, int dst_device, const void* src, int src_device,
                  uint64_t bytes) override;
  void reduce_async(int device, strata_dtype_t dtype, strata_redop_t op,
                    std::span<void* const> dsts, std::span<const void* const> srcs, uint64_t count,
                    uint32_t divisor) override;

  // Synchronous work: every event is reached as soon as it is recorded.
  strata_event_t event_create(int device) override;
  void event_record(strata_event_t) override {}
  void stream_wait_event(int, strata_event_t) override {}
  bool event_query(strata_event_t) override { return true; }
  bool event_wait(strata_event_t, std::chrono::nanoseconds) override { return true; }
  void event_destroy(strata_event_t event) noexcept override;
  void synchronize(int, std::chrono::nanoseconds) override {}
};

}  // namespace strata::cli_test

#endif  // STRATA_TESTS_CLI_STAGED_DEVICE_TYPE_H_
