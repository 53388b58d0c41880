// A device type for tests whose devices cannot access each other's memory:
// the virtual CPU devices underneath, but can_access_peer says no and every
// reduce_async checks that all its sources and destinations lie in memory
// allocated on the device whose stream runs it. An algorithm that reads or
// writes a peer directly without staging fails loudly instead of silently
// working on shared host memory. Copies still go anywhere, as the ABI says.
#ifndef STRATA_TESTS_HIERARCHICAL_COPY_NO_PEER_DEVICE_TYPE_H_
#define STRATA_TESTS_HIERARCHICAL_COPY_NO_PEER_DEVICE_TYPE_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <span>

#include "strata/sdk/device_table.h"
#include "strata/sdk/device_type.h"

namespace strata::testing {

class NoPeerDeviceType final : public sdk::DeviceType {
 public:
  // `cpu` is the registered cpu type, which does the real work.
  explicit NoPeerDeviceType(sdk::DeviceTable cpu);

  int device_count() override { return cpu_.count(); }
  void describe(int device, strata_device_props_t& props) override;
  bool can_access_peer(int device, int peer) override { return device == peer; }

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

  // Reduce calls refused because they touched another device's memory.
  int violations() const;

 private:
  struct Block {
    int device;
    uint64_t bytes;
  };
  // The device whose allocation holds all of [p, p + bytes), or -1.
  int owner(const void* p, uint64_t bytes) const;

  sdk::DeviceTable cpu_;
  mutable std::mutex mu_;
  std::map<const char*, Block> blocks_;  // by start address
  int violations_ = 0;
};

}  // namespace strata::testing

#endif  // STRATA_TESTS_HIERARCHICAL_COPY_NO_PEER_DEVICE_TYPE_H_
