// The small device steps a composition runs between its sub-team calls:
// a slice of a buffer, a copy, a division (MEAN composed as SUM then one
// division), and the remaining time of a deadline as a call's timeout.
#ifndef STRATA_CORE_COLLECTIVE_DEVICE_STEPS_H_
#define STRATA_CORE_COLLECTIVE_DEVICE_STEPS_H_

#include <cstdint>

#include "core/collective/buffer.h"
#include "core/collective/collective_ops.h"
#include "core/common/clock.h"
#include "core/common/status.h"

namespace strata {

class Runtime;

// `count` elements of `b` from element `offset`.
Buffer slice_of(const Buffer& b, uint64_t offset, uint64_t count);
// Call options whose timeout ends at `deadline` (at least 1 ns).
CallOptions options_until(Deadline deadline);
// The op a composition's steps run: MEAN is SUM, divided once at the end.
ReduceOp summing_op(ReduceOp op);
// dst = src on dst's device, synchronised; nothing when they are one buffer.
Status copy_on_device(const Runtime& runtime, const Buffer& dst, const Buffer& src,
                      Deadline deadline);
// b /= divisor elementwise on b's device, synchronised.
Status divide_on_device(const Runtime& runtime, const Buffer& b, uint32_t divisor,
                        Deadline deadline);

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_DEVICE_STEPS_H_
