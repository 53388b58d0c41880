// The `cuda` device type: every GPU this process sees (CUDA_VISIBLE_DEVICES
// decides which), with device memory from cudaMalloc, one non-blocking
// stream per device, copies in every direction (peer copies staged by CUDA
// when the GPUs cannot reach each other), the reduce kernel for every dtype
// and operator, and CUDA events. Enough for hierarchical_copy and core's
// packing and composition to run on GPUs without knowing what they are.
#ifndef STRATA_PLUGINS_NCCL_CUDA_DEVICE_TYPE_H_
#define STRATA_PLUGINS_NCCL_CUDA_DEVICE_TYPE_H_

#include <memory>

#include "cuda_devices.h"
#include "strata/sdk/device_type.h"

namespace strata::nccl {

class CudaDeviceType final : public sdk::DeviceType {
 public:
  explicit CudaDeviceType(std::shared_ptr<CudaDevices> devices);

  int device_count() override { return devices_->count(); }
  void describe(int device, strata_device_props_t& props) override;
  bool can_access_peer(int device, int peer) override;
  double link_bandwidth(int from, int to) override;

  void* allocate(int device, uint64_t bytes) override;
  void free(int device, void* ptr) noexcept override;
  void copy_async(int stream_device, void* dst, int dst_device, const void* src,
                  int src_device, uint64_t bytes) override;
  void reduce_async(int device, strata_dtype_t dtype, strata_redop_t op,
                    std::span<void* const> dsts, std::span<const void* const> srcs,
                    uint64_t count, uint32_t divisor) override;

  strata_event_t event_create(int device) override;
  void event_record(strata_event_t event) override;
  void stream_wait_event(int device, strata_event_t event) override;
  bool event_query(strata_event_t event) override;
  bool event_wait(strata_event_t event, std::chrono::nanoseconds timeout) override;
  void event_destroy(strata_event_t event) noexcept override;
  void synchronize(int device, std::chrono::nanoseconds timeout) override;

 private:
  // Throws unless `ptr` is device memory that kernels on `device` may use:
  // a host pointer in a kernel is a fault that kills the whole context.
  void check_kernel_pointer(int device, const void* ptr, const char* role);

  std::shared_ptr<CudaDevices> devices_;
};

}  // namespace strata::nccl

#endif  // STRATA_PLUGINS_NCCL_CUDA_DEVICE_TYPE_H_
