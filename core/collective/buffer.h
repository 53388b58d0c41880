// A buffer handed to a collective: described, never owned.
#ifndef STRATA_CORE_COLLECTIVE_BUFFER_H_
#define STRATA_CORE_COLLECTIVE_BUFFER_H_

#include <cstdint>

#include "core/common/dtype.h"
#include "strata/abi/types.h"

namespace strata {

struct Buffer {
  void* data = nullptr;
  DType dtype = DType::kF32;
  uint64_t count = 0;           // elements
  strata_device_t device{0, 0};

  uint64_t bytes() const { return count * dtype_size(dtype); }
  strata_buffer_t to_abi() const { return {data, strata::to_abi(dtype), count, device}; }
};

inline bool operator==(const strata_device_t& a, const strata_device_t& b) {
  return a.type == b.type && a.index == b.index;
}

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_BUFFER_H_
