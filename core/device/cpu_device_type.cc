#include "core/device/cpu_device_type.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/common/units.h"
#include "strata/sdk/error.h"
#include "strata/sdk/types.h"

namespace strata {
namespace {

constexpr uint64_t kAlignment = 64;

CpuEvent* as_event(strata_event_t e) { return static_cast<CpuEvent*>(e); }

// What one thread copies per second on this machine, measured once per
// process (a few ms) so cost models price copies in real units. 8 MiB is
// past most caches yet quick to fault in.
double measured_copy_bandwidth() {
  static const double bandwidth = [] {
    constexpr size_t kBytes = size_t{8} << 20;
    std::vector<char> src(kBytes, 1);
    std::vector<char> dst(kBytes, 0);
    double best = 0;
    for (int i = 0; i < 4; ++i) {
      const auto start = std::chrono::steady_clock::now();
      std::memcpy(dst.data(), src.data(), kBytes);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (s > 0) best = std::max(best, static_cast<double>(kBytes) / s);
    }
    return best > 0 ? best : 10e9;
  }();
  return bandwidth;
}

}  // namespace

CpuDeviceType::CpuDeviceType(CpuDeviceOptions options)
    : DeviceType("cpu", "virtual CPU devices: own memory accounting and worker thread each"),
      options_(options) {
  for (int i = 0; i < options_.count; ++i) {
    streams_.push_back(std::make_unique<CpuStream>());
    memory_.push_back(std::make_unique<Memory>());
  }
}

CpuDeviceType::~CpuDeviceType() {
  streams_.clear();  // drain and join before the memory goes
  for (auto& m : memory_) {
    for (auto& [ptr, bytes] : m->blocks) std::free(ptr);
  }
}

void CpuDeviceType::check_device(int device, bool allow_host, const char* what) const {
  if ((allow_host && device == STRATA_HOST_INDEX) || (device >= 0 && device < options_.count)) {
    return;
  }
  throw sdk::InvalidArgument(std::string(what) + ": no cpu device " + std::to_string(device) +
                             " (this process has " + std::to_string(options_.count) + ")");
}

void CpuDeviceType::describe(int device, strata_device_props_t& props) {
  std::snprintf(props.name, sizeof props.name, "virtual CPU device %d", device);
  props.memory_bytes = options_.memory_per_device;
  props.host_accessible = 1;
  // The virtual devices share the machine's cores: more streams than cores
  // do not run faster.
  props.parallel_streams = std::max(1u, std::thread::hardware_concurrency());
  props.launch_latency = options_.launch_latency;
}

bool CpuDeviceType::can_access_peer(int device, int peer) {
  return device >= 0 && peer >= 0 && device < options_.count && peer < options_.count;
}

double CpuDeviceType::link_bandwidth(int, int) {
  return options_.bandwidth > 0 ? options_.bandwidth : measured_copy_bandwidth();
}

void* CpuDeviceType::allocate(int device, uint64_t bytes) {
  check_device(device, false, "allocate");
  if (bytes == 0) return nullptr;
  Memory& m = *memory_[static_cast<size_t>(device)];
  const uint64_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  std::lock_guard lock(m.mu);
  if (m.in_use + rounded > options_.memory_per_device) {
    throw sdk::Error(STRATA_OUT_OF_MEMORY,
                     "cpu:" + std::to_string(device) + " cannot allocate " +
                         format_size(bytes) + ": " + format_size(m.in_use) + " of " +
                         format_size(options_.memory_per_device) + " in use");
  }
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (p == nullptr) throw sdk::Error(STRATA_OUT_OF_MEMORY, "aligned_alloc failed");
  m.blocks.emplace(p, rounded);
  m.in_use += rounded;
  return p;
}

void CpuDeviceType::free(int device, void* ptr) noexcept {
  if (ptr == nullptr || device < 0 || device >= options_.count) return;
  Memory& m = *memory_[static_cast<size_t>(device)];
  std::lock_guard lock(m.mu);
  auto it = m.blocks.find(ptr);
  if (it == m.blocks.end()) {
    // Freeing memory of another device is a caller bug; leaking is safer
    // than freeing memory another device still accounts for.
    std::fprintf(stderr, "[strata W] cpu:%d free of %p which it did not allocate\n", device, ptr);
    return;
  }
  m.in_use -= it->second;
  std::free(ptr);
  m.blocks.erase(it);
}

uint64_t CpuDeviceType::bytes_in_use(int device) const {
  const Memory& m = *memory_[static_cast<size_t>(device)];
  std::lock_guard lock(m.mu);
  return m.in_use;
}

void CpuDeviceType::copy_async(int stream_device, void* dst, int dst_device,
                               const void* src, int src_device, uint64_t bytes) {
  check_device(stream_device, false, "copy_async stream");
  check_device(dst_device, true, "copy_async destination");
  check_device(src_device, true, "copy_async source");
  if (bytes > 0 && (dst == nullptr || src == nullptr)) {
    throw sdk::InvalidArgument("copy_async of " + std::to_string(bytes) + " bytes with a NULL pointer");
  }
  CpuTask task(CpuTask::Kind::kCopy);
  task.dst = dst;
  task.src = src;
  task.bytes = bytes;
  stream(stream_device).enqueue(std::move(task));
}

void CpuDeviceType::reduce_async(int device, strata_dtype_t dtype, strata_redop_t op,
                                 std::span<void* const> dsts,
                                 std::span<const void* const> srcs, uint64_t count,
                                 uint32_t divisor) {
  check_device(device, false, "reduce_async");
  if (sdk::dtype_size(dtype) == 0) {
    throw sdk::InvalidArgument("reduce_async: unknown dtype " + std::to_string(dtype));
  }
  if (op < 0 || op >= STRATA_REDOP_COUNT) {
    throw sdk::InvalidArgument("reduce_async: unknown operator " + std::to_string(op));
  }
  if (srcs.empty()) throw sdk::InvalidArgument("reduce_async: no sources");
  if (dsts.empty()) throw sdk::InvalidArgument("reduce_async: no destinations");
  if (op == STRATA_MEAN && divisor == 0) {
    throw sdk::InvalidArgument("reduce_async: MEAN with divisor 0");
  }
  CpuTask task(CpuTask::Kind::kReduce);
  task.dsts.assign(dsts.begin(), dsts.end());
  task.dtype = dtype;
  task.op = op;
  task.divisor = divisor;
  task.count = count;
  task.srcs.assign(srcs.begin(), srcs.end());
  stream(device).enqueue(std::move(task));
}

strata_event_t CpuDeviceType::event_create(int device) {
  check_device(device, false, "event_create");
  return new CpuEvent(device);
}

void CpuDeviceType::event_record(strata_event_t e) {
  CpuEvent* ev = as_event(e);
  CpuTask task(CpuTask::Kind::kRecord);
  task.event = ev;
  task.generation = ev->recorded.fetch_add(1, std::memory_order_acq_rel) + 1;
  stream(ev->device).enqueue(std::move(task));
}

void CpuDeviceType::stream_wait_event(int device, strata_event_t e) {
  check_device(device, false, "stream_wait_event");
  CpuEvent* ev = as_event(e);
  const uint64_t generation = ev->recorded.load(std::memory_order_acquire);
  if (ev->is_reached(generation)) return;  // nothing to wait for
  CpuTask task(CpuTask::Kind::kWait);
  task.event = ev;
  task.generation = generation;
  stream(device).enqueue(std::move(task));
}

bool CpuDeviceType::event_query(strata_event_t e) {
  CpuEvent* ev = as_event(e);
  return ev->is_reached(ev->recorded.load(std::memory_order_acquire));
}

bool CpuDeviceType::event_wait(strata_event_t e, std::chrono::nanoseconds timeout) {
  CpuEvent* ev = as_event(e);
  return ev->wait_for(ev->recorded.load(std::memory_order_acquire), timeout);
}

void CpuDeviceType::event_destroy(strata_event_t e) noexcept {
  CpuEvent* ev = as_event(e);
  { std::lock_guard lock(ev->mu); }  // let a notifying stream finish, see mark()
  delete ev;
}

void CpuDeviceType::synchronize(int device, std::chrono::nanoseconds timeout) {
  check_device(device, false, "synchronize");
  auto* ev = new CpuEvent(device);
  event_record(ev);
  if (!ev->wait_for(1, timeout)) {
    // The stream still holds the event; leaking it is the safe choice.
    throw sdk::Error(STRATA_TIMED_OUT, "cpu:" + std::to_string(device) +
                                           " did not drain within the timeout");
  }
  event_destroy(ev);
}

}  // namespace strata
