// A C++ view over a registered device type, for algorithms that move and
// reduce data on devices they know nothing about (hierarchical_copy). Every
// method throws sdk::Error with the device type's own message on failure.
#ifndef STRATA_SDK_DEVICE_TABLE_H_
#define STRATA_SDK_DEVICE_TABLE_H_

#include <chrono>
#include <cstdint>
#include <span>
#include <string>

#include "strata/abi/device.h"

namespace strata::sdk {

class DeviceTable {
 public:
  explicit DeviceTable(const strata_device_type_t* table) : t_(table) {}
  // The table of a registered type, looked up through the host services.
  static DeviceTable of(uint32_t type_id);

  const char* name() const { return t_->name; }
  int count() const;
  strata_device_props_t props(int device) const;
  bool can_access_peer(int device, int peer) const;
  double link_bandwidth(int from, int to) const;

  void* allocate(int device, uint64_t bytes) const;
  void free(int device, void* ptr) const noexcept;
  void copy_async(int stream_device, void* dst, int dst_device,
                  const void* src, int src_device, uint64_t bytes) const;
  // Every destination receives the same reduction of `srcs`.
  void reduce_async(int device, strata_dtype_t dtype, strata_redop_t op,
                    std::span<void* const> dsts, std::span<const void* const> srcs,
                    uint64_t count, uint32_t divisor) const;
  void synchronize(int device, std::chrono::nanoseconds timeout) const;

  const strata_device_type_t* raw() const { return t_; }

 private:
  const strata_device_type_t* t_;
};

// An event on one device, destroyed with the object.
class DeviceEvent {
 public:
  DeviceEvent(const DeviceTable& table, int device);
  ~DeviceEvent();
  DeviceEvent(const DeviceEvent&) = delete;
  DeviceEvent& operator=(const DeviceEvent&) = delete;

  int device() const { return device_; }
  void record();
  // Work enqueued on `device` after this waits for the event.
  void make_stream_wait(int device);
  bool reached();
  // Blocks up to timeout: sleeps in event_wait when the type offers it,
  // otherwise polls event_query with back-off.
  bool wait(std::chrono::nanoseconds timeout);

 private:
  DeviceTable table_;
  int device_;
  strata_event_t event_ = nullptr;
};

// Memory on one device, freed with the object.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceTable& table, int device, uint64_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

  void* data() const { return data_; }
  uint64_t bytes() const { return bytes_; }
  int device() const { return device_; }

 private:
  void release() noexcept;
  const strata_device_type_t* table_ = nullptr;
  int device_ = 0;
  void* data_ = nullptr;
  uint64_t bytes_ = 0;
};

}  // namespace strata::sdk

#endif  // STRATA_SDK_DEVICE_TABLE_H_
