// Bench's buffers: one input and one output per replica, allocated once for
// the largest size of the sweep on the replica's own device (through its
// device type, as a user's tensors would be), fully written before anything
// is timed, and reused by every algorithm and size.
#ifndef STRATA_TOOLS_STRATA_BENCH_BUFFERS_H_
#define STRATA_TOOLS_STRATA_BENCH_BUFFERS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/collective/buffer.h"
#include "core/collective/team.h"
#include "core/common/status.h"
#include "core/plugin/registry.h"
#include "tools/strata/bench_pattern.h"

namespace strata::cli {

// One allocation on one device, freed through its device type.
class DeviceArena {
 public:
  DeviceArena() = default;
  static StatusOr<DeviceArena> allocate(const DeviceTypeEntry& type, int device, uint64_t bytes);
  DeviceArena(DeviceArena&& other) noexcept { *this = std::move(other); }
  DeviceArena& operator=(DeviceArena&& other) noexcept;
  ~DeviceArena();

  std::byte* data() const { return ptr_; }

  // Host-visible windows onto [offset, offset + bytes): `fn(pos, window,
  // len)` gets the device memory itself when the host can reach it, else a
  // staging copy uploaded after (write) or downloaded before (read) each
  // window. `pos` counts bytes from `offset`.
  using WindowFn = std::function<void(uint64_t pos, std::byte* window, uint64_t len)>;
  Status write(uint64_t offset, uint64_t bytes, const WindowFn& fn);
  Status read(uint64_t offset, uint64_t bytes, const WindowFn& fn) const;

 private:
  Status copy(void* dst, int dst_device, const void* src, int src_device, uint64_t bytes) const;

  const strata_device_type_t* table_ = nullptr;
  int device_ = 0;
  std::byte* ptr_ = nullptr;
  bool host_accessible_ = false;
};

// The per-replica buffers of one call, as CollectiveOps takes them.
struct CallBuffers {
  std::vector<Buffer> inputs;
  std::vector<Buffer> outputs;
};

class ReplicaBuffers {
 public:
  // Room for calls of up to `max_count` elements (the ABI's count). In place
  // allocates only the larger side: the smaller one lives inside it.
  static StatusOr<ReplicaBuffers> allocate(const Registry& registry, const Team& team,
                                           CollectiveKind op, DType dtype, uint64_t max_count,
                                           bool in_place);

  CallBuffers view(uint64_t count) const;
  // Inputs get the pattern, outputs the sentinel (never a correct value).
  Status prepare(const Pattern& pattern, uint64_t count);
  // Wrong output elements after one call, over every replica that has a
  // result (only the root for reduce), as nccl-tests counts them.
  StatusOr<uint64_t> count_wrong(const Pattern& pattern, uint64_t count, int root) const;

 private:
  ReplicaBuffers() = default;
  uint64_t elem() const { return dtype_size(dtype_); }
  uint64_t n() const { return devices_.size(); }
  uint64_t input_count(uint64_t count) const;
  uint64_t output_count(uint64_t count) const;
  // Byte offsets of replica r's input and output inside their arenas.
  uint64_t input_offset(size_t r, uint64_t count) const;
  uint64_t output_offset(size_t r, uint64_t count) const;
  // In place, outputs_ holds each replica's single buffer and inputs_ is
  // empty: the input (or, for reduce_scatter, the output) is a slot in it.
  DeviceArena& input_arena(size_t r) { return in_place_ ? outputs_[r] : inputs_[r]; }

  CollectiveKind op_ = CollectiveKind::kAllReduce;
  DType dtype_ = DType::kF32;
  bool in_place_ = false;
  std::vector<strata_device_t> devices_;
  std::vector<DeviceArena> inputs_;
  std::vector<DeviceArena> outputs_;
};

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_BENCH_BUFFERS_H_
