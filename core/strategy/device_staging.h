// The training layer's tensors live in host memory (core/tensor/tensor.h),
// tagged with their replica's device. On a device type whose memory the host
// can touch (cpu, tpu_sim) the collectives use them where they are. On one
// whose memory it cannot (cuda: NCCL and the reduce kernel need device
// pointers, and a host pointer handed to them can fault the whole context),
// DeviceStaging copies each replica's tensors into scratch on its device,
// the collective runs there, and the results are copied back: TF keeps
// MirroredStrategy's variables on the GPUs; Strata keeps them on the host and
// moves only what a collective needs.
#ifndef STRATA_CORE_STRATEGY_DEVICE_STAGING_H_
#define STRATA_CORE_STRATEGY_DEVICE_STAGING_H_

#include <chrono>
#include <functional>
#include <span>
#include <vector>

#include "core/collective/buffer.h"
#include "core/collective/packing.h"
#include "core/common/status.h"
#include "strata/abi/device.h"

namespace strata {

class Runtime;

class DeviceStaging {
 public:
  using Lists = std::vector<std::vector<Buffer>>;  // [replica][buffer]
  using Collective = std::function<Status(const Lists&)>;

  // Whether any of `devices` has memory the host cannot touch.
  static StatusOr<bool> needed(const Runtime& runtime, std::span<const strata_device_t> devices);

  // `timeout` bounds each wait for the copies.
  DeviceStaging(const Runtime& runtime, std::chrono::nanoseconds timeout);

  // Runs `collective` on device copies of `host` (host[r] holds replica r's
  // buffers, all on the replica's device): every buffer is copied in, and
  // after the collective every buffer is copied back, so in-place and
  // out-of-place calls both see their results. Each replica's copies sit
  // back to back in one scratch block of its device, kept between calls.
  Status run(const Lists& host, const Collective& collective);

 private:
  enum class Direction { kToDevice, kToHost };
  Status copy_all(const Lists& host, const Lists& device, Direction direction);

  const Runtime& runtime_;
  std::chrono::nanoseconds timeout_;
  PackScratch scratch_;
};

}  // namespace strata

#endif  // STRATA_CORE_STRATEGY_DEVICE_STAGING_H_
