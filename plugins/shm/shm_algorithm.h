// Base of every shm algorithm: scope CROSS_PROCESS, the declines every call
// shares (one host-readable buffer per process, processes on one host, a
// dtype and operator this build knows), the shared team, and the
// alpha-beta-gamma cost model AUTO ranks them by. Subclasses build the call's
// ShmOperation and price it.
#ifndef STRATA_PLUGINS_SHM_SHM_ALGORITHM_H_
#define STRATA_PLUGINS_SHM_SHM_ALGORITHM_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "shm_operation.h"
#include "shm_options.h"
#include "shm_team.h"
#include "strata/sdk/algorithm.h"

namespace strata::shm {

class ShmAlgorithm : public sdk::Algorithm {
 public:
  ShmAlgorithm(std::string name, strata_op_t op, std::string description,
               const ShmOptions& options);

  std::optional<std::string> decline(const strata_call_desc_t& call) const final;
  std::optional<double> estimate(const strata_call_desc_t& call) const final;
  std::unique_ptr<sdk::TeamState> create_team(const strata_team_desc_t& team) final;
  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) final;

  // The team's host count when the host filled it (ABI 1.2), else 0.
  static int32_t host_count(const strata_team_desc_t& team);

 protected:
  virtual std::unique_ptr<ShmOperation> operation(ShmTeam& team, const strata_call_t& call) = 0;
  // Seconds for `bytes` per process (the larger side for all_gather and
  // reduce_scatter) on `p` processes.
  virtual double cost(double bytes, int p) const = 0;

  // A reason to decline buffers of this device type; none by default (any
  // host-accessible memory).
  virtual std::optional<std::string> decline_device_type(uint32_t /*device_type*/) const {
    return std::nullopt;
  }
  const ShmOptions& options() const { return options_; }
  // Chunks of at most `per_chunk` elements covering `count`.
  static uint64_t chunks_of(uint64_t count, uint64_t per_chunk) {
    return (count + per_chunk - 1) / per_chunk;
  }
  // Elements of `dtype` in one chunk.
  uint64_t chunk_elements(strata_dtype_t dtype) const;
  // Whether an all_reduce or reduce of `bytes` skips the slicing.
  bool direct(uint64_t bytes) const {
    return bytes <= options_.direct_bytes && bytes <= options_.chunk_bytes;
  }
  double copied(double bytes) const { return bytes * options_.beta; }
  double reduced(double bytes) const { return bytes * options_.gamma; }
  // Flag hand-offs of `bytes` in chunks: one per chunk, but after the first
  // they overlap with the copies.
  double handoffs(double bytes, int per_chunk) const;

 private:
  ShmOptions options_;
};

// Base of the mapped algorithms (mapped_operation.h): they serve only calls
// whose buffers are shm_host memory, type id `shm_host_type`.
class MappedAlgorithm : public ShmAlgorithm {
 public:
  MappedAlgorithm(std::string name, strata_op_t op, std::string description,
                  const ShmOptions& options, uint32_t shm_host_type)
      : ShmAlgorithm(std::move(name), op, std::move(description), options),
        shm_host_type_(shm_host_type) {}

 protected:
  std::optional<std::string> decline_device_type(uint32_t device_type) const final;

 private:
  uint32_t shm_host_type_;
};

std::unique_ptr<sdk::Algorithm> make_all_reduce_sliced(const ShmOptions& options);
std::unique_ptr<sdk::Algorithm> make_reduce_sliced(const ShmOptions& options);
std::unique_ptr<sdk::Algorithm> make_reduce_scatter_sliced(const ShmOptions& options);
std::unique_ptr<sdk::Algorithm> make_all_gather_copy(const ShmOptions& options);
std::unique_ptr<sdk::Algorithm> make_broadcast_copy(const ShmOptions& options);
std::unique_ptr<sdk::Algorithm> make_barrier_flags(const ShmOptions& options);
std::unique_ptr<sdk::Algorithm> make_all_reduce_mapped(const ShmOptions& options,
                                                       uint32_t shm_host_type);
std::unique_ptr<sdk::Algorithm> make_all_gather_mapped(const ShmOptions& options,
                                                       uint32_t shm_host_type);
std::unique_ptr<sdk::Algorithm> make_broadcast_mapped(const ShmOptions& options,
                                                      uint32_t shm_host_type);

}  // namespace strata::shm

#endif  // STRATA_PLUGINS_SHM_SHM_ALGORITHM_H_
