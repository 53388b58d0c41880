// The "tpu" device type: the cores of a simulated pod slice. Each core has
// its own memory (accounted against memory_per_core, like HBM) and its own
// worker thread executing its stream in order. A core reaches another
// core's memory only through copies over the torus links — no direct peer
// access, as on a real TPU — and with pace_links a copy between cores takes
// the modelled link time, so wall time follows the interconnect model.
//
// The memory is host RAM, so host_accessible is 1: the training layer's
// host tensors can be handed to the torus collectives as core buffers.
#ifndef STRATA_PLUGINS_TPU_SIM_TPU_DEVICE_TYPE_H_
#define STRATA_PLUGINS_TPU_SIM_TPU_DEVICE_TYPE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "core_stream.h"
#include "strata/sdk/device_type.h"
#include "torus.h"
#include "tpu_sim_options.h"

namespace strata::tpu_sim {

class TpuDeviceType final : public sdk::DeviceType {
 public:
  explicit TpuDeviceType(const TpuSimOptions& options);
  ~TpuDeviceType() override;

  int device_count() override { return torus_.cores(); }
  void describe(int device, strata_device_props_t& props) override;
  bool can_access_peer(int device, int peer) override { return device == peer; }
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

  const Torus& torus() const { return torus_; }
  const TpuSimOptions& options() const { return options_; }
  // Seconds the interconnect model gives a copy of `bytes` from core `from`
  // to core `to`: one alpha per link crossed, then the bytes at link speed.
  double link_seconds(int from, int to, uint64_t bytes) const;
  uint64_t bytes_in_use(int device) const;

 private:
  struct Memory {
    mutable std::mutex mu;
    std::unordered_map<void*, uint64_t> blocks;
    uint64_t in_use = 0;
  };
  void check_device(int device, bool allow_host, const char* what) const;
  CoreStream& stream(int device) { return *streams_[static_cast<size_t>(device)]; }
  // Throws the event's (or its core's) asynchronous failure, if any.
  void check_event(CoreEvent* event);

  TpuSimOptions options_;
  Torus torus_;
  std::vector<std::unique_ptr<CoreStream>> streams_;
  std::vector<std::unique_ptr<Memory>> memory_;
};

}  // namespace strata::tpu_sim

#endif  // STRATA_PLUGINS_TPU_SIM_TPU_DEVICE_TYPE_H_
