#include "core/strategy/device_staging.h"

#include <set>
#include <string>
#include <utility>

#include "core/plugin/abi_status.h"
#include "core/runtime/runtime.h"

namespace strata {

namespace {

// NCCL and the cuda reduce kernel read whole cache lines; 256 bytes is what
// cudaMalloc itself guarantees.
constexpr uint64_t kAlignment = 256;

uint64_t aligned(uint64_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

StatusOr<const strata_device_type_t*> table_of(const Runtime& runtime, strata_device_t device) {
  const DeviceTypeEntry* entry = runtime.registry().device_type(device.type);
  if (entry == nullptr) {
    return InvalidArgumentError("device type id " + std::to_string(device.type) +
                                " is not registered");
  }
  return &entry->table;
}

}  // namespace

StatusOr<bool> DeviceStaging::needed(const Runtime& runtime,
                                     std::span<const strata_device_t> devices) {
  for (const strata_device_t& d : devices) {
    STRATA_ASSIGN_OR_RETURN(const strata_device_type_t* type, table_of(runtime, d));
    strata_device_props_t props{};
    props.struct_size = sizeof props;  // ABI rule 3: the plugin fills what we know
    AbiMessage m;
    STRATA_RETURN_IF_ERROR(from_abi(type->get_props(type->user_data, d.index, &props, m.view()), m,
                                    "get_props of " + runtime.device_name(d)));
    if (props.host_accessible == 0) return true;
  }
  return false;
}

DeviceStaging::DeviceStaging(const Runtime& runtime, std::chrono::nanoseconds timeout)
    : runtime_(runtime), timeout_(timeout) {}

Status DeviceStaging::run(const Lists& host, const Collective& collective) {
  Lists device(host.size());
  for (size_t r = 0; r < host.size(); ++r) {
    if (host[r].empty()) continue;
    const strata_device_t dev = host[r].front().device;
    uint64_t total = 0;
    for (const Buffer& b : host[r]) {
      if (!(b.device == dev)) {
        return InvalidArgumentError("staging: replica " + std::to_string(r) + " has buffers on " +
                                    runtime_.device_name(dev) + " and " +
                                    runtime_.device_name(b.device));
      }
      total += aligned(b.bytes());
    }
    STRATA_ASSIGN_OR_RETURN(const strata_device_type_t* type, table_of(runtime_, dev));
    STRATA_ASSIGN_OR_RETURN(void* block, scratch_.get(*type, dev, total));
    auto* cursor = static_cast<char*>(block);
    for (const Buffer& b : host[r]) {
      device[r].push_back(Buffer{cursor, b.dtype, b.count, dev});
      cursor += aligned(b.bytes());
    }
  }
  STRATA_RETURN_IF_ERROR(copy_all(host, device, Direction::kToDevice));
  STRATA_RETURN_IF_ERROR(collective(device));
  return copy_all(host, device, Direction::kToHost);
}

Status DeviceStaging::copy_all(const Lists& host, const Lists& device, Direction direction) {
  const bool in = direction == Direction::kToDevice;
  std::set<std::pair<uint32_t, int>> used;
  Status failed;
  for (size_t r = 0; r < host.size() && failed.ok(); ++r) {
    for (size_t k = 0; k < host[r].size(); ++k) {
      const Buffer& h = host[r][k];
      const Buffer& d = device[r][k];
      if (h.bytes() == 0) continue;
      auto type_or = table_of(runtime_, d.device);
      if (!type_or.ok()) {
        failed = type_or.status();
        break;
      }
      const strata_device_type_t* type = *type_or;
      const int index = d.device.index;
      AbiMessage m;
      const strata_status_t s =
          in ? type->copy_async(type->user_data, index, d.data, index, h.data, STRATA_HOST_INDEX,
                                h.bytes(), m.view())
             : type->copy_async(type->user_data, index, h.data, STRATA_HOST_INDEX, d.data, index,
                                h.bytes(), m.view());
      failed = from_abi(s, m,
                        std::string("staging copy ") + (in ? "to " : "from ") +
                            runtime_.device_name(d.device));
      if (!failed.ok()) break;
      used.insert({d.device.type, index});
    }
  }
  // The collective runs on each device's stream after the copies in, but
  // the host reads its tensors as soon as run() returns: wait both ways,
  // and also after a failed copy, so none still in flight outlives the call.
  for (const auto& [type_id, index] : used) {
    const strata_device_t dev{type_id, index};
    const strata_device_type_t* type = &runtime_.registry().device_type(type_id)->table;
    AbiMessage m;
    Status synced = from_abi(type->synchronize(type->user_data, index, timeout_.count(), m.view()),
                             m, "staging synchronize on " + runtime_.device_name(dev));
    if (failed.ok()) failed = synced;
  }
  return failed;
}

}  // namespace strata
