// Trampolines from strata_device_type_t to sdk::DeviceType.
#include "strata/sdk/device_type.h"

#include <cstring>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::sdk {
namespace {

DeviceType* device_type_of(void* ud) { return static_cast<DeviceType*>(ud); }
constexpr strata_message_t kNoMessage{nullptr, 0};

strata_status_t abi_device_count(void* ud, int32_t* count, strata_message_t msg) {
  HostScope scope(device_type_of(ud)->host_services());
  return guard(msg, [&] {
    *count = device_type_of(ud)->device_count();
    return STRATA_OK;
  });
}

strata_status_t abi_get_props(void* ud, int32_t device, strata_device_props_t* out,
                          strata_message_t msg) {
  HostScope scope(device_type_of(ud)->host_services());
  return guard(msg, [&] {
    if (device < 0 || device >= device_type_of(ud)->device_count()) {
      throw InvalidArgument("no device " + std::to_string(device));
    }
    strata_device_props_t props{};
    props.struct_size = sizeof props;
    device_type_of(ud)->describe(device, props);
    // Copy only the prefix the caller knows (ABI rule 3).
    const size_t n = std::min(out->struct_size, sizeof props);
    const size_t caller_size = out->struct_size;
    std::memcpy(out, &props, n);
    out->struct_size = caller_size;
    return STRATA_OK;
  });
}

strata_status_t abi_can_access_peer(void* ud, int32_t device, int32_t peer,
                                int32_t* yes) {
  HostScope scope(device_type_of(ud)->host_services());
  return guard(kNoMessage, [&] {
    *yes = device_type_of(ud)->can_access_peer(device, peer) ? 1 : 0;
    return STRATA_OK;
  });
}

strata_status_t abi_link_bandwidth(void* ud, int32_t a, int32_t b, double* bw) {
  HostScope scope(device_type_of(ud)->host_services());
  return guard(kNoMessage, [&] {
    *bw = device_type_of(ud)->link_bandwidth(a, b);
    return STRATA_OK;
  });
}

strata_status_t abi_allocate(void* ud, int32_t device, uint64_t bytes, void** ptr,
                         strata_message_t msg) {
  HostScope scope(device_type_of(ud)->host_services());
  return guard(msg, [&] {
    *ptr = device_type_of(ud)->allocate(device, bytes);
    return STRATA_OK;
  });
}

void abi_free_memory(void* ud, int32_t device, void* ptr) {
  HostScope scope(device_type_of(ud)->host_services());
  device_type_of(ud)->free(device, ptr);
}

strata_status_t abi_copy_async(void* ud, int32_t stream_device, void* dst,
                           int32_t dst_device, const void* src,
                           int32_t src_device, uint64_t bytes,
                           strata_message_t msg) {
  HostScope scope(device_type_of(ud)->host_services());
  return guard(msg, [&] {
    device_type_of(ud)->copy_async(stream_device, dst, dst_device, src, src_device, bytes);
    return STRATA_OK;
  });
}

strata_status_t abi_reduce_async(void* ud, int32_t device, strata_dtype_t dtype,
                                 strata_redop_t op, void* const* dsts, uint32_t num_dsts,
                                 const void* const* srcs, uint32_t num_srcs,
                                 uint64_t count, uint32_t divisor,
                                 strata_message_t msg) {
  HostScope scope(device_type_of(ud)->host_services());
  return guard(msg, [&] {
    device_type_of(ud)->reduce_async(device, dtype, op, {dsts, num_dsts}, {srcs, num_srcs},
                                     count, divisor);
    return STRATA_OK;
  });
}

strata_status_t abi_event_create(void* ud, int32_t device, strata_event_t* event,
                             strata_message_t msg) {
  HostScope scope(device_type_of(ud)->host_services());
  return guard(msg, [&] {
    *event = device_type_of(ud)->event_create(device);
    return STRATA_OK;
  });
}

strata_status_t abi_event_record(void* ud, strata_event_t event,
                             strata_message_t msg) {
  HostScope scope(device_type_of(ud)->host_services());
  return guard(msg, [&] {
    device_type_of(ud)->event_record(event);
    return STRATA_OK;
  });
}

strata_status_t abi_stream_wait_event(void* ud, int32_t device,
                                  strata_event_t event, strata_message_t msg) {
  HostScope scope(device_type_of(ud)->host_services());
  return guard(msg, [&] {
    device_type_of(ud)->stream_wait_event(device, event);
    return STRATA_OK;
  });
}

strata_status_t abi_event_query(void* ud, strata_event_t event,
                            strata_message_t msg) {
  HostScope scope(device_type_of(ud)->host_services());
  return guard(msg, [&] {
    return device_type_of(ud)->event_query(event) ? STRATA_OK : STRATA_IN_PROGRESS;
  });
}

strata_status_t abi_event_wait(void* ud, strata_event_t event, int64_t timeout_ns,
                           strata_message_t msg) {
  HostScope scope(device_type_of(ud)->host_services());
  return guard(msg, [&] {
    return device_type_of(ud)->event_wait(event, std::chrono::nanoseconds(timeout_ns))
               ? STRATA_OK
               : STRATA_IN_PROGRESS;
  });
}

void abi_event_destroy(void* ud, strata_event_t event) {
  HostScope scope(device_type_of(ud)->host_services());
  device_type_of(ud)->event_destroy(event);
}

strata_status_t abi_synchronize(void* ud, int32_t device, int64_t timeout_ns,
                            strata_message_t msg) {
  HostScope scope(device_type_of(ud)->host_services());
  return guard(msg, [&] {
    device_type_of(ud)->synchronize(device, std::chrono::nanoseconds(timeout_ns));
    return STRATA_OK;
  });
}

}  // namespace

DeviceType::DeviceType(std::string name, std::string description)
    : name_(std::move(name)), description_(std::move(description)) {}

strata_device_type_t DeviceType::table() {
  strata_device_type_t t{};
  t.struct_size = sizeof t;
  t.name = name_.c_str();
  t.description = description_.c_str();
  t.user_data = this;
  t.device_count = &abi_device_count;
  t.get_props = &abi_get_props;
  t.can_access_peer = &abi_can_access_peer;
  t.link_bandwidth = &abi_link_bandwidth;
  t.allocate = &abi_allocate;
  t.free = &abi_free_memory;
  t.copy_async = &abi_copy_async;
  t.reduce_async = &abi_reduce_async;
  t.event_create = &abi_event_create;
  t.event_record = &abi_event_record;
  t.stream_wait_event = &abi_stream_wait_event;
  t.event_query = &abi_event_query;
  t.event_wait = &abi_event_wait;
  t.event_destroy = &abi_event_destroy;
  t.synchronize = &abi_synchronize;
  return t;
}

}  // namespace strata::sdk
