// The "shm_host" device type: host memory that the processes of one host
// share (shared_heap.h). Buffers allocated on it let the shm plugin's
// mapped algorithms use a peer's input or output where it lies, which
// saves the copy into a segment that ordinary host memory needs: the
// counterpart of MPI_Alloc_mem or ncclMemAlloc for this transport.
//
// One device per process (index 0). Work runs on the caller's thread as it
// is enqueued: host copies and reductions have nothing to overlap with on
// a host that runs them, so the stream is always drained and every event
// is reached once recorded.
#ifndef STRATA_PLUGINS_SHM_SHM_DEVICE_TYPE_H_
#define STRATA_PLUGINS_SHM_SHM_DEVICE_TYPE_H_

#include <chrono>
#include <cstdint>
#include <span>

#include "strata/sdk/device_type.h"

namespace strata::shm {

inline constexpr const char* kDeviceTypeName = "shm_host";

class ShmDeviceType final : public sdk::DeviceType {
 public:
  ShmDeviceType();

  int device_count() override { return 1; }
  void describe(int device, strata_device_props_t& props) override;
  bool can_access_peer(int device, int peer) override { return device == 0 && peer == 0; }
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
};

}  // namespace strata::shm

#endif  // STRATA_PLUGINS_SHM_SHM_DEVICE_TYPE_H_
