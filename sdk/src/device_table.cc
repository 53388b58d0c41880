#include "strata/sdk/device_table.h"

#include <string>

#include "strata/sdk/backoff.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::sdk {
namespace {

struct Msg {
  char text[512] = {0};
  strata_message_t view() { return {text, sizeof text}; }
};

std::string where(const strata_device_type_t* t, const char* fn, int device) {
  return std::string(t->name) + ":" + std::to_string(device) + " " + fn;
}

}  // namespace

DeviceTable DeviceTable::of(uint32_t type_id) {
  return DeviceTable(Host::device_type(type_id));
}

int DeviceTable::count() const {
  Msg m;
  int32_t n = 0;
  check(t_->device_count(t_->user_data, &n, m.view()),
        std::string(t_->name) + " device_count", m.text);
  return n;
}

strata_device_props_t DeviceTable::props(int device) const {
  Msg m;
  strata_device_props_t p{};
  p.struct_size = sizeof p;
  check(t_->get_props(t_->user_data, device, &p, m.view()),
        where(t_, "get_props", device), m.text);
  return p;
}

bool DeviceTable::can_access_peer(int device, int peer) const {
  if (device == peer) return true;
  if (t_->can_access_peer == nullptr) return false;
  int32_t yes = 0;
  return t_->can_access_peer(t_->user_data, device, peer, &yes) == STRATA_OK &&
         yes != 0;
}

double DeviceTable::link_bandwidth(int from, int to) const {
  double bw = 10e9;
  if (t_->link_bandwidth != nullptr &&
      t_->link_bandwidth(t_->user_data, from, to, &bw) == STRATA_OK && bw > 0) {
    return bw;
  }
  return 10e9;
}

void* DeviceTable::allocate(int device, uint64_t bytes) const {
  Msg m;
  void* p = nullptr;
  check(t_->allocate(t_->user_data, device, bytes, &p, m.view()),
        where(t_, "allocate", device), m.text);
  return p;
}

void DeviceTable::free(int device, void* ptr) const noexcept {
  if (ptr != nullptr) t_->free(t_->user_data, device, ptr);
}

void DeviceTable::copy_async(int stream_device, void* dst, int dst_device,
                             const void* src, int src_device,
                             uint64_t bytes) const {
  Msg m;
  check(t_->copy_async(t_->user_data, stream_device, dst, dst_device, src,
                       src_device, bytes, m.view()),
        where(t_, "copy_async", stream_device), m.text);
}

void DeviceTable::reduce_async(int device, strata_dtype_t dtype,
                               strata_redop_t op, std::span<void* const> dsts,
                               std::span<const void* const> srcs,
                               uint64_t count, uint32_t divisor) const {
  Msg m;
  check(t_->reduce_async(t_->user_data, device, dtype, op, dsts.data(),
                         static_cast<uint32_t>(dsts.size()), srcs.data(),
                         static_cast<uint32_t>(srcs.size()), count, divisor,
                         m.view()),
        where(t_, "reduce_async", device), m.text);
}

void DeviceTable::synchronize(int device, std::chrono::nanoseconds timeout) const {
  Msg m;
  check(t_->synchronize(t_->user_data, device, timeout.count(), m.view()),
        where(t_, "synchronize", device), m.text);
}

DeviceEvent::DeviceEvent(const DeviceTable& table, int device)
    : table_(table), device_(device) {
  Msg m;
  const auto* t = table_.raw();
  check(t->event_create(t->user_data, device, &event_, m.view()),
        where(t, "event_create", device), m.text);
}

DeviceEvent::~DeviceEvent() {
  if (event_ != nullptr) table_.raw()->event_destroy(table_.raw()->user_data, event_);
}

void DeviceEvent::record() {
  Msg m;
  const auto* t = table_.raw();
  check(t->event_record(t->user_data, event_, m.view()),
        where(t, "event_record", device_), m.text);
}

void DeviceEvent::make_stream_wait(int device) {
  Msg m;
  const auto* t = table_.raw();
  check(t->stream_wait_event(t->user_data, device, event_, m.view()),
        where(t, "stream_wait_event", device), m.text);
}

bool DeviceEvent::reached() {
  Msg m;
  const auto* t = table_.raw();
  const strata_status_t st = t->event_query(t->user_data, event_, m.view());
  if (st == STRATA_IN_PROGRESS) return false;
  check(st, where(t, "event_query", device_), m.text);
  return true;
}

bool DeviceEvent::wait(std::chrono::nanoseconds timeout) {
  const auto* t = table_.raw();
  if (t->event_wait != nullptr) {
    Msg m;
    const strata_status_t st =
        t->event_wait(t->user_data, event_, timeout.count(), m.view());
    if (st == STRATA_IN_PROGRESS) return false;
    check(st, where(t, "event_wait", device_), m.text);
    return true;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  Backoff backoff;
  while (!reached()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    backoff.pause();
  }
  return true;
}

DeviceBuffer::DeviceBuffer(const DeviceTable& table, int device, uint64_t bytes)
    : table_(table.raw()),
      device_(device),
      data_(table.allocate(device, bytes)),
      bytes_(bytes) {}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : table_(other.table_),
      device_(other.device_),
      data_(other.data_),
      bytes_(other.bytes_) {
  other.data_ = nullptr;
  other.bytes_ = 0;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    table_ = other.table_;
    device_ = other.device_;
    data_ = other.data_;
    bytes_ = other.bytes_;
    other.data_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

void DeviceBuffer::release() noexcept {
  if (data_ != nullptr) table_->free(table_->user_data, device_, data_);
  data_ = nullptr;
}

}  // namespace strata::sdk
