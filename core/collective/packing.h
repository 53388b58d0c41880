// Tensor fusion for batched all-reduce: many small tensors are copied into
// one contiguous pack per replica, reduced with one collective, and copied
// back. Packing follows TF's CollectiveAllReduce: the tensor list is
// reversed (gradients of the last layers are ready first) and a new pack
// starts once the current one has passed bytes_per_pack. A pack holds one
// dtype; bytes_per_pack == 0 disables packing.
#ifndef STRATA_CORE_COLLECTIVE_PACKING_H_
#define STRATA_CORE_COLLECTIVE_PACKING_H_

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "core/collective/buffer.h"
#include "core/common/status.h"
#include "strata/abi/device.h"

namespace strata {

struct PackPlan {
  DType dtype = DType::kF32;
  std::vector<size_t> tensors;  // indices into one replica's tensor list
  uint64_t count = 0;           // elements in the pack
};

std::vector<PackPlan> plan_packs(std::span<const Buffer> tensors, uint64_t bytes_per_pack);

// Per-device scratch for packs, grown on demand and kept between calls.
class PackScratch {
 public:
  PackScratch() = default;
  ~PackScratch();
  PackScratch(const PackScratch&) = delete;
  PackScratch& operator=(const PackScratch&) = delete;

  StatusOr<void*> get(const strata_device_type_t& type, strata_device_t device,
                      uint64_t bytes);

 private:
  struct Block {
    const strata_device_type_t* type = nullptr;
    int index = 0;
    void* data = nullptr;
    uint64_t bytes = 0;
  };
  std::map<std::pair<uint32_t, int>, Block> blocks_;
};

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_PACKING_H_
