#include "tpu_device_type.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/types.h"

namespace strata::tpu_sim {
namespace {

constexpr uint64_t kAlignment = 64;

CoreEvent* as_event(strata_event_t e) { return static_cast<CoreEvent*>(e); }

std::string mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

TpuDeviceType::TpuDeviceType(const TpuSimOptions& options)
    : DeviceType("tpu", "simulated TPU cores of a " + options.topology() +
                            " torus slice: own memory and worker thread each"),
      options_(options),
      torus_{options.rows, options.cols} {
  for (int i = 0; i < torus_.cores(); ++i) {
    streams_.push_back(std::make_unique<CoreStream>(i, options_.stream_wait_timeout));
    memory_.push_back(std::make_unique<Memory>());
  }
}

TpuDeviceType::~TpuDeviceType() {
  streams_.clear();  // drain and join before the memory goes
  for (auto& m : memory_) {
    for (auto& [ptr, bytes] : m->blocks) std::free(ptr);
  }
}

void TpuDeviceType::check_device(int device, bool allow_host, const char* what) const {
  if ((allow_host && device == STRATA_HOST_INDEX) || (device >= 0 && device < torus_.cores())) {
    return;
  }
  throw sdk::InvalidArgument(std::string(what) + ": no tpu device " + std::to_string(device) +
                             " (the " + options_.topology() + " slice has " +
                             std::to_string(torus_.cores()) + " cores)");
}

void TpuDeviceType::describe(int device, strata_device_props_t& props) {
  std::snprintf(props.name, sizeof props.name, "simulated TPU core %d (row %d, col %d of %s)",
                device, torus_.row_of(device), torus_.col_of(device),
                options_.topology().c_str());
  props.memory_bytes = options_.memory_per_core;
  props.host_accessible = 1;
  // The cores are threads: more of them than host cores do not run faster.
  props.parallel_streams = std::min<uint32_t>(static_cast<uint32_t>(torus_.cores()),
                                              std::max(1u, std::thread::hardware_concurrency()));
  props.launch_latency = 8e-6;
}

double TpuDeviceType::link_bandwidth(int, int) { return 1.0 / options_.beta; }

double TpuDeviceType::link_seconds(int from, int to, uint64_t bytes) const {
  if (from == to || from < 0 || to < 0) return 0;
  return options_.alpha * torus_.hops(from, to) + static_cast<double>(bytes) * options_.beta;
}

void* TpuDeviceType::allocate(int device, uint64_t bytes) {
  check_device(device, false, "allocate");
  if (bytes == 0) return nullptr;
  Memory& m = *memory_[static_cast<size_t>(device)];
  const uint64_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  std::lock_guard lock(m.mu);
  if (m.in_use + rounded > options_.memory_per_core) {
    throw sdk::Error(STRATA_OUT_OF_MEMORY, "tpu:" + std::to_string(device) + " cannot allocate " +
                                               std::to_string(bytes) + " bytes: " +
                                               mib(m.in_use) + " of " +
                                               mib(options_.memory_per_core) + " in use");
  }
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (p == nullptr) {
    throw sdk::Error(STRATA_OUT_OF_MEMORY, "tpu:" + std::to_string(device) +
                                               ": the host has no memory for " +
                                               std::to_string(bytes) + " bytes");
  }
  m.blocks.emplace(p, rounded);
  m.in_use += rounded;
  return p;
}

void TpuDeviceType::free(int device, void* ptr) noexcept {
  if (ptr == nullptr || device < 0 || device >= torus_.cores()) return;
  Memory& m = *memory_[static_cast<size_t>(device)];
  std::lock_guard lock(m.mu);
  auto it = m.blocks.find(ptr);
  if (it == m.blocks.end()) {
    // Another core's memory, or not ours at all: leaking is safer than
    // freeing what someone else still accounts for.
    sdk::Host::log(STRATA_LOG_WARNING, "tpu:" + std::to_string(device) +
                                           " asked to free memory it did not allocate");
    return;
  }
  m.in_use -= it->second;
  std::free(ptr);
  m.blocks.erase(it);
}

uint64_t TpuDeviceType::bytes_in_use(int device) const {
  const Memory& m = *memory_[static_cast<size_t>(device)];
  std::lock_guard lock(m.mu);
  return m.in_use;
}

void TpuDeviceType::copy_async(int stream_device, void* dst, int dst_device, const void* src,
                               int src_device, uint64_t bytes) {
  check_device(stream_device, false, "copy_async stream");
  check_device(dst_device, true, "copy_async destination");
  check_device(src_device, true, "copy_async source");
  if (bytes > 0 && (dst == nullptr || src == nullptr)) {
    throw sdk::InvalidArgument("copy_async of " + std::to_string(bytes) +
                               " bytes with a NULL pointer");
  }
  CoreTask task(CoreTask::Kind::kCopy);
  task.dst = dst;
  task.src = src;
  task.bytes = bytes;
  if (options_.pace_links) {
    task.hold = std::chrono::nanoseconds(
        static_cast<int64_t>(link_seconds(src_device, dst_device, bytes) * 1e9));
  }
  stream(stream_device).enqueue(std::move(task));
}

void TpuDeviceType::reduce_async(int device, strata_dtype_t dtype, strata_redop_t op,
                                 std::span<void* const> dsts, std::span<const void* const> srcs,
                                 uint64_t count, uint32_t divisor) {
  check_device(device, false, "reduce_async");
  if (sdk::dtype_size(dtype) == 0) {
    throw sdk::InvalidArgument("reduce_async: unknown dtype " + std::to_string(dtype));
  }
  if (op < 0 || op >= STRATA_REDOP_COUNT) {
    throw sdk::InvalidArgument("reduce_async: unknown operator " + std::to_string(op));
  }
  if (srcs.empty() || dsts.empty()) {
    throw sdk::InvalidArgument("reduce_async: needs at least one source and one destination");
  }
  if (op == STRATA_MEAN && divisor == 0) {
    throw sdk::InvalidArgument("reduce_async: MEAN with divisor 0");
  }
  CoreTask task(CoreTask::Kind::kReduce);
  task.dsts.assign(dsts.begin(), dsts.end());
  task.srcs.assign(srcs.begin(), srcs.end());
  task.dtype = dtype;
  task.op = op;
  task.divisor = divisor;
  task.count = count;
  stream(device).enqueue(std::move(task));
}

strata_event_t TpuDeviceType::event_create(int device) {
  check_device(device, false, "event_create");
  return new CoreEvent(device);
}

void TpuDeviceType::event_record(strata_event_t e) {
  CoreEvent* ev = as_event(e);
  CoreTask task(CoreTask::Kind::kRecord);
  task.event = ev;
  task.generation = ev->recorded.fetch_add(1, std::memory_order_acq_rel) + 1;
  stream(ev->core).enqueue(std::move(task));
}

void TpuDeviceType::stream_wait_event(int device, strata_event_t e) {
  check_device(device, false, "stream_wait_event");
  CoreEvent* ev = as_event(e);
  const uint64_t generation = ev->recorded.load(std::memory_order_acquire);
  if (ev->is_reached(generation) && ev->failure().empty()) return;
  CoreTask task(CoreTask::Kind::kWait);
  task.event = ev;
  task.generation = generation;
  stream(device).enqueue(std::move(task));
}

void TpuDeviceType::check_event(CoreEvent* event) {
  const std::string failure = event->failure();
  if (!failure.empty()) throw sdk::Error(STRATA_INTERNAL, failure);
}

bool TpuDeviceType::event_query(strata_event_t e) {
  CoreEvent* ev = as_event(e);
  if (!ev->is_reached(ev->recorded.load(std::memory_order_acquire))) return false;
  check_event(ev);
  return true;
}

bool TpuDeviceType::event_wait(strata_event_t e, std::chrono::nanoseconds timeout) {
  CoreEvent* ev = as_event(e);
  if (!ev->wait_for(ev->recorded.load(std::memory_order_acquire), timeout)) return false;
  check_event(ev);
  return true;
}

void TpuDeviceType::event_destroy(strata_event_t e) noexcept {
  CoreEvent* ev = as_event(e);
  { std::lock_guard lock(ev->mu); }  // let a notifying core finish, see mark()
  delete ev;
}

void TpuDeviceType::synchronize(int device, std::chrono::nanoseconds timeout) {
  check_device(device, false, "synchronize");
  auto* ev = new CoreEvent(device);
  event_record(ev);
  if (!ev->wait_for(1, timeout)) {
    // The core still holds the event; leaking it is the safe choice.
    throw sdk::Error(STRATA_TIMED_OUT, "tpu:" + std::to_string(device) +
                                           " did not drain its stream within the timeout");
  }
  const std::string failure = ev->failure();
  event_destroy(ev);
  if (!failure.empty()) throw sdk::Error(STRATA_INTERNAL, failure);
}

}  // namespace strata::tpu_sim
