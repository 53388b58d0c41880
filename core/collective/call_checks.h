// Validation of one call's buffers against its team, before any plugin sees
// them: right number of buffers, on the team's devices, one dtype, counts
// that fit the op, no NULL data, in place for every replica or for none.
#ifndef STRATA_CORE_COLLECTIVE_CALL_CHECKS_H_
#define STRATA_CORE_COLLECTIVE_CALL_CHECKS_H_

#include <span>

#include "core/collective/buffer.h"
#include "core/collective/team.h"
#include "core/common/dtype.h"
#include "core/common/status.h"

namespace strata {

struct CallShape {
  DType dtype = DType::kF32;
  uint64_t count = 0;  // per strata_call_desc_t's convention
  bool in_place = false;
};

StatusOr<CallShape> check_call(const Team& team, CollectiveKind kind,
                               std::span<const Buffer> inputs,
                               std::span<const Buffer> outputs, int root);

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_CALL_CHECKS_H_
