#include "tools/strata/bench_buffers.h"

#include <algorithm>
#include <cstring>

#include "core/plugin/abi_status.h"

namespace strata::cli {
namespace {

// Staging window for devices the host cannot reach: big enough to keep the
// copies efficient, a multiple of every element size.
constexpr uint64_t kStagingBytes = uint64_t{4} << 20;
constexpr int64_t kCopyTimeoutNs = int64_t{60} * 1000 * 1000 * 1000;

}  // namespace

StatusOr<DeviceArena> DeviceArena::allocate(const DeviceTypeEntry& type, int device,
                                            uint64_t bytes) {
  const strata_device_type_t& t = type.table;
  const std::string where = type.name + ":" + std::to_string(device);
  strata_device_props_t props{};
  props.struct_size = sizeof props;
  AbiMessage m;
  STRATA_RETURN_IF_ERROR(
      from_abi(t.get_props(t.user_data, device, &props, m.view()), m, where + " get_props"));
  void* ptr = nullptr;
  STRATA_RETURN_IF_ERROR(from_abi(t.allocate(t.user_data, device, bytes, &ptr, m.view()), m,
                                  where + " allocate " + std::to_string(bytes) + " B"));
  DeviceArena arena;
  arena.table_ = &t;
  arena.device_ = device;
  arena.ptr_ = static_cast<std::byte*>(ptr);
  arena.host_accessible_ = props.host_accessible != 0;
  return arena;
}

DeviceArena& DeviceArena::operator=(DeviceArena&& other) noexcept {
  std::swap(table_, other.table_);
  std::swap(device_, other.device_);
  std::swap(ptr_, other.ptr_);
  std::swap(host_accessible_, other.host_accessible_);
  return *this;
}

DeviceArena::~DeviceArena() {
  if (table_ != nullptr && ptr_ != nullptr) table_->free(table_->user_data, device_, ptr_);
}

Status DeviceArena::copy(void* dst, int dst_device, const void* src, int src_device,
                         uint64_t bytes) const {
  AbiMessage m;
  STRATA_RETURN_IF_ERROR(from_abi(table_->copy_async(table_->user_data, device_, dst, dst_device,
                                                     src, src_device, bytes, m.view()),
                                  m, "bench staging copy_async"));
  return from_abi(table_->synchronize(table_->user_data, device_, kCopyTimeoutNs, m.view()), m,
                  "bench staging synchronize");
}

Status DeviceArena::write(uint64_t offset, uint64_t bytes, const WindowFn& fn) {
  if (bytes == 0) return Status::Ok();
  if (host_accessible_) {
    fn(0, ptr_ + offset, bytes);
    return Status::Ok();
  }
  std::vector<std::byte> staging(std::min(bytes, kStagingBytes));
  for (uint64_t pos = 0; pos < bytes; pos += staging.size()) {
    const uint64_t len = std::min<uint64_t>(staging.size(), bytes - pos);
    fn(pos, staging.data(), len);
    STRATA_RETURN_IF_ERROR(
        copy(ptr_ + offset + pos, device_, staging.data(), STRATA_HOST_INDEX, len));
  }
  return Status::Ok();
}

Status DeviceArena::read(uint64_t offset, uint64_t bytes, const WindowFn& fn) const {
  if (bytes == 0) return Status::Ok();
  if (host_accessible_) {
    fn(0, ptr_ + offset, bytes);
    return Status::Ok();
  }
  std::vector<std::byte> staging(std::min(bytes, kStagingBytes));
  for (uint64_t pos = 0; pos < bytes; pos += staging.size()) {
    const uint64_t len = std::min<uint64_t>(staging.size(), bytes - pos);
    STRATA_RETURN_IF_ERROR(
        copy(staging.data(), STRATA_HOST_INDEX, ptr_ + offset + pos, device_, len));
    fn(pos, staging.data(), len);
  }
  return Status::Ok();
}

StatusOr<ReplicaBuffers> ReplicaBuffers::allocate(const Registry& registry, const Team& team,
                                                  CollectiveKind op, DType dtype,
                                                  uint64_t max_count, bool in_place) {
  ReplicaBuffers b;
  b.op_ = op;
  b.dtype_ = dtype;
  b.in_place_ = in_place;
  b.devices_ = team.devices();
  const DeviceTypeEntry* type = registry.device_type(team.device_type());
  if (type == nullptr) return InternalError("the team's device type is not registered");
  const uint64_t in_bytes = b.input_count(max_count) * b.elem();
  const uint64_t out_bytes = b.output_count(max_count) * b.elem();
  for (const strata_device_t& d : b.devices_) {
    if (!in_place) {
      STRATA_ASSIGN_OR_RETURN(DeviceArena in, DeviceArena::allocate(*type, d.index, in_bytes));
      b.inputs_.push_back(std::move(in));
    }
    const uint64_t bytes = in_place ? std::max(in_bytes, out_bytes) : out_bytes;
    STRATA_ASSIGN_OR_RETURN(DeviceArena out, DeviceArena::allocate(*type, d.index, bytes));
    b.outputs_.push_back(std::move(out));
  }
  // Touch every page now: first-touch faults must not land in a timed call.
  const std::byte fill = std::byte{0x5A};
  auto touch = [fill](uint64_t, std::byte* w, uint64_t len) {
    std::memset(w, static_cast<int>(fill), len);
  };
  for (size_t r = 0; r < b.devices_.size(); ++r) {
    if (!in_place) STRATA_RETURN_IF_ERROR(b.inputs_[r].write(0, in_bytes, touch));
    STRATA_RETURN_IF_ERROR(
        b.outputs_[r].write(0, in_place ? std::max(in_bytes, out_bytes) : out_bytes, touch));
  }
  return b;
}

uint64_t ReplicaBuffers::input_count(uint64_t count) const {
  return op_ == CollectiveKind::kReduceScatter ? count * n() : count;
}

uint64_t ReplicaBuffers::output_count(uint64_t count) const {
  return op_ == CollectiveKind::kAllGather ? count * n() : count;
}

uint64_t ReplicaBuffers::input_offset(size_t r, uint64_t count) const {
  return in_place_ && op_ == CollectiveKind::kAllGather ? r * count * elem() : 0;
}

uint64_t ReplicaBuffers::output_offset(size_t r, uint64_t count) const {
  return in_place_ && op_ == CollectiveKind::kReduceScatter ? r * count * elem() : 0;
}

CallBuffers ReplicaBuffers::view(uint64_t count) const {
  CallBuffers v;
  for (size_t r = 0; r < devices_.size(); ++r) {
    std::byte* in_base = in_place_ ? outputs_[r].data() : inputs_[r].data();
    std::byte* out_base = outputs_[r].data();
    v.inputs.push_back({in_base == nullptr ? nullptr : in_base + input_offset(r, count), dtype_,
                        input_count(count), devices_[r]});
    v.outputs.push_back({out_base == nullptr ? nullptr : out_base + output_offset(r, count), dtype_,
                         output_count(count), devices_[r]});
  }
  return v;
}

Status ReplicaBuffers::prepare(const Pattern& pattern, uint64_t count) {
  const uint64_t e = elem();
  const std::byte sentinel = pattern.sentinel();
  for (size_t r = 0; r < devices_.size(); ++r) {
    // The sentinel first: in place, the input is written over part of it.
    if (!in_place_ || op_ == CollectiveKind::kAllGather) {
      STRATA_RETURN_IF_ERROR(outputs_[r].write(output_offset(r, count), output_count(count) * e,
                                               [sentinel](uint64_t, std::byte* w, uint64_t len) {
                                                 std::memset(w, static_cast<int>(sentinel), len);
                                               }));
    }
    const Tiled& values = pattern.input(static_cast<int>(r));
    STRATA_RETURN_IF_ERROR(input_arena(r).write(
        input_offset(r, count), input_count(count) * e,
        [&](uint64_t pos, std::byte* w, uint64_t len) { values.fill(pos / e, len / e, w); }));
  }
  return Status::Ok();
}

StatusOr<uint64_t> ReplicaBuffers::count_wrong(const Pattern& pattern, uint64_t count,
                                               int root) const {
  const uint64_t e = elem();
  uint64_t wrong = 0;
  for (size_t r = 0; r < devices_.size(); ++r) {
    if (op_ == CollectiveKind::kReduce && static_cast<int>(r) != root) continue;
    const uint64_t slot = count * e;
    auto check = [&](uint64_t pos, std::byte* w, uint64_t len) {
      if (op_ == CollectiveKind::kAllGather) {
        // Output slot j holds replica j's input, window by window.
        for (uint64_t done = 0; done < len;) {
          const uint64_t at = pos + done;
          const uint64_t j = at / slot;
          const uint64_t take = std::min(len - done, (j + 1) * slot - at);
          wrong += pattern.input(static_cast<int>(j))
                       .mismatches((at - j * slot) / e, take / e, w + done);
          done += take;
        }
      } else if (op_ == CollectiveKind::kBroadcast) {
        wrong += pattern.input(root).mismatches(pos / e, len / e, w);
      } else {
        // reduce_scatter: replica r holds slice r of the reduced buffer.
        const uint64_t first = op_ == CollectiveKind::kReduceScatter ? r * count : 0;
        wrong += pattern.reduced().mismatches(first + pos / e, len / e, w);
      }
    };
    STRATA_RETURN_IF_ERROR(
        outputs_[r].read(output_offset(r, count), output_count(count) * e, check));
  }
  return wrong;
}

}  // namespace strata::cli
