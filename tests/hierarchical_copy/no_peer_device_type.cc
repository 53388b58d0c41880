#include "no_peer_device_type.h"

#include <cstdio>
#include <string>

#include "strata/sdk/error.h"
#include "strata/sdk/types.h"

namespace strata::testing {
namespace {

struct Msg {
  char text[256] = {0};
  strata_message_t view() { return {text, sizeof text}; }
};

}  // namespace

NoPeerDeviceType::NoPeerDeviceType(sdk::DeviceTable cpu)
    : DeviceType("no_peer", "test devices without peer access"), cpu_(cpu) {}

void NoPeerDeviceType::describe(int device, strata_device_props_t& props) {
  std::snprintf(props.name, sizeof props.name, "no-peer test device %d", device);
  props.memory_bytes = 0;
  props.host_accessible = 1;
}

void* NoPeerDeviceType::allocate(int device, uint64_t bytes) {
  void* p = cpu_.allocate(device, bytes);
  if (p != nullptr) {
    std::lock_guard lock(mu_);
    blocks_[static_cast<const char*>(p)] = Block{device, bytes};
  }
  return p;
}

void NoPeerDeviceType::free(int device, void* ptr) noexcept {
  {
    std::lock_guard lock(mu_);
    blocks_.erase(static_cast<const char*>(ptr));
  }
  cpu_.free(device, ptr);
}

void NoPeerDeviceType::copy_async(int stream_device, void* dst, int dst_device, const void* src,
                                  int src_device, uint64_t bytes) {
  cpu_.copy_async(stream_device, dst, dst_device, src, src_device, bytes);
}

int NoPeerDeviceType::owner(const void* p, uint64_t bytes) const {
  const auto* c = static_cast<const char*>(p);
  auto it = blocks_.upper_bound(c);
  if (it == blocks_.begin()) return -1;
  --it;
  const uint64_t offset = static_cast<uint64_t>(c - it->first);
  return offset + bytes <= it->second.bytes ? it->second.device : -1;
}

void NoPeerDeviceType::reduce_async(int device, strata_dtype_t dtype, strata_redop_t op,
                                    std::span<void* const> dsts,
                                    std::span<const void* const> srcs, uint64_t count,
                                    uint32_t divisor) {
  const uint64_t bytes = count * sdk::dtype_size(dtype);
  {
    std::lock_guard lock(mu_);
    auto check = [&](const void* p, const char* role) {
      const int where = owner(p, bytes);
      if (where == device) return;
      ++violations_;
      throw sdk::InvalidArgument("no_peer:" + std::to_string(device) + " reduce_async " + role +
                                 " is on " +
                                 (where < 0 ? std::string("no device") : std::to_string(where)) +
                                 ", and this device cannot access peers");
    };
    for (const void* s : srcs) check(s, "source");
    for (void* d : dsts) check(d, "destination");
  }
  cpu_.reduce_async(device, dtype, op, dsts, srcs, count, divisor);
}

strata_event_t NoPeerDeviceType::event_create(int device) {
  Msg m;
  strata_event_t e = nullptr;
  const auto* t = cpu_.raw();
  sdk::check(t->event_create(t->user_data, device, &e, m.view()), "event_create", m.text);
  return e;
}

void NoPeerDeviceType::event_record(strata_event_t event) {
  Msg m;
  const auto* t = cpu_.raw();
  sdk::check(t->event_record(t->user_data, event, m.view()), "event_record", m.text);
}

void NoPeerDeviceType::stream_wait_event(int device, strata_event_t event) {
  Msg m;
  const auto* t = cpu_.raw();
  sdk::check(t->stream_wait_event(t->user_data, device, event, m.view()), "stream_wait_event",
             m.text);
}

bool NoPeerDeviceType::event_query(strata_event_t event) {
  Msg m;
  const auto* t = cpu_.raw();
  const strata_status_t st = t->event_query(t->user_data, event, m.view());
  if (st == STRATA_IN_PROGRESS) return false;
  sdk::check(st, "event_query", m.text);
  return true;
}

bool NoPeerDeviceType::event_wait(strata_event_t event, std::chrono::nanoseconds timeout) {
  Msg m;
  const auto* t = cpu_.raw();
  const strata_status_t st = t->event_wait(t->user_data, event, timeout.count(), m.view());
  if (st == STRATA_IN_PROGRESS) return false;
  sdk::check(st, "event_wait", m.text);
  return true;
}

void NoPeerDeviceType::event_destroy(strata_event_t event) noexcept {
  cpu_.raw()->event_destroy(cpu_.raw()->user_data, event);
}

void NoPeerDeviceType::synchronize(int device, std::chrono::nanoseconds timeout) {
  cpu_.synchronize(device, timeout);
}

int NoPeerDeviceType::violations() const {
  std::lock_guard lock(mu_);
  return violations_;
}

}  // namespace strata::testing
