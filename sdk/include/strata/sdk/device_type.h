// Implementing a device type in C++: derive from sdk::DeviceType, implement
// the pure virtuals, register it with Registrar::add_device_type. The SDK
// builds the C table with noexcept trampolines.
#ifndef STRATA_SDK_DEVICE_TYPE_H_
#define STRATA_SDK_DEVICE_TYPE_H_

#include <chrono>
#include <cstdint>
#include <span>
#include <string>

#include "strata/abi/registrar.h"
#include "strata/abi/device.h"

namespace strata::sdk {

class DeviceType {
 public:
  DeviceType(std::string name, std::string description);
  virtual ~DeviceType() = default;
  DeviceType(const DeviceType&) = delete;
  DeviceType& operator=(const DeviceType&) = delete;

  virtual int device_count() = 0;
  // Fill name, memory_bytes and host_accessible.
  virtual void describe(int device, strata_device_props_t& props) = 0;
  virtual bool can_access_peer(int /*device*/, int /*peer*/) { return false; }
  virtual double link_bandwidth(int /*from*/, int /*to*/) { return 10e9; }

  virtual void* allocate(int device, uint64_t bytes) = 0;
  virtual void free(int device, void* ptr) noexcept = 0;
  virtual void copy_async(int stream_device, void* dst, int dst_device,
                          const void* src, int src_device, uint64_t bytes) = 0;
  virtual void reduce_async(int device, strata_dtype_t dtype,
                            strata_redop_t op, std::span<void* const> dsts,
                            std::span<const void* const> srcs, uint64_t count,
                            uint32_t divisor) = 0;

  virtual strata_event_t event_create(int device) = 0;
  virtual void event_record(strata_event_t event) = 0;
  virtual void stream_wait_event(int device, strata_event_t event) = 0;
  // true when reached; throws when work before it failed.
  virtual bool event_query(strata_event_t event) = 0;
  virtual bool event_wait(strata_event_t event,
                          std::chrono::nanoseconds timeout) = 0;
  virtual void event_destroy(strata_event_t event) noexcept = 0;
  // Throws sdk::Error(TIMED_OUT) when the stream does not drain in time.
  virtual void synchronize(int device, std::chrono::nanoseconds timeout) = 0;

  const std::string& name() const { return name_; }
  strata_device_type_t table();

  // Set by sdk::Registrar: the services of the Runtime this object belongs
  // to, made current around every call into it.
  void bind_host(const strata_host_services_t* services) { services_ = services; }
  const strata_host_services_t* host_services() const { return services_; }

 private:
  const strata_host_services_t* services_ = nullptr;
  std::string name_;
  std::string description_;
};

}  // namespace strata::sdk

#endif  // STRATA_SDK_DEVICE_TYPE_H_
