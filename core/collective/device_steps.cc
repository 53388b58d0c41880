#include "core/collective/device_steps.h"

#include <algorithm>

#include "core/plugin/abi_status.h"
#include "core/runtime/runtime.h"

namespace strata {

Buffer slice_of(const Buffer& b, uint64_t offset, uint64_t count) {
  Buffer s = b;
  s.data = static_cast<char*>(b.data) + offset * dtype_size(b.dtype);
  s.count = count;
  return s;
}

CallOptions options_until(Deadline deadline) {
  CallOptions o;
  o.timeout = std::max<std::chrono::nanoseconds>(deadline - Clock::now(),
                                                 std::chrono::nanoseconds(1));
  return o;
}

ReduceOp summing_op(ReduceOp op) { return op == ReduceOp::kMean ? ReduceOp::kSum : op; }

Status copy_on_device(const Runtime& runtime, const Buffer& dst, const Buffer& src,
                      Deadline deadline) {
  if (dst.bytes() == 0 || dst.data == src.data) return Status::Ok();
  const strata_device_type_t& type = runtime.registry().device_type(dst.device.type)->table;
  AbiMessage m;
  STRATA_RETURN_IF_ERROR(from_abi(type.copy_async(type.user_data, dst.device.index, dst.data,
                                                  dst.device.index, src.data, src.device.index,
                                                  dst.bytes(), m.view()),
                                  m, "composed copy"));
  AbiMessage w;
  return from_abi(type.synchronize(type.user_data, dst.device.index,
                                   (deadline - Clock::now()).count(), w.view()),
                  w, "composed copy");
}

Status divide_on_device(const Runtime& runtime, const Buffer& b, uint32_t divisor,
                        Deadline deadline) {
  if (b.count == 0) return Status::Ok();
  const strata_device_type_t& type = runtime.registry().device_type(b.device.type)->table;
  void* dsts[] = {b.data};
  const void* srcs[] = {b.data};
  AbiMessage m;
  STRATA_RETURN_IF_ERROR(from_abi(type.reduce_async(type.user_data, b.device.index,
                                                    to_abi(b.dtype), STRATA_MEAN, dsts, 1, srcs,
                                                    1, b.count, divisor, m.view()),
                                  m, "dividing a composed mean"));
  AbiMessage w;
  return from_abi(type.synchronize(type.user_data, b.device.index,
                                   (deadline - Clock::now()).count(), w.view()),
                  w, "dividing a composed mean");
}

}  // namespace strata
