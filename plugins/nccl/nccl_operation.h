// The shape every nccl operation shares. post() issues one NCCL collective
// per local GPU inside a group, on the cuda device type's stream of that GPU
// (so it runs after the copies and reductions enqueued before it). Since the
// communicators are non-blocking the group may still be setting up when
// post() returns; test() waits for that (ncclCommGetAsyncError), then
// enqueues MEAN's division and an event per stream, and reports done once
// every event is reached. While waiting it keeps asking NCCL for
// asynchronous errors, so a dead peer surfaces as PEER_FAILED rather than
// as a kernel that spins until core's deadline.
#ifndef STRATA_PLUGINS_NCCL_NCCL_OPERATION_H_
#define STRATA_PLUGINS_NCCL_NCCL_OPERATION_H_

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <vector>

#include "nccl_comms.h"
#include "strata/sdk/algorithm.h"

namespace strata::nccl {

class NcclOperation : public sdk::Operation {
 public:
  NcclOperation(NcclComms& comms, const strata_call_t& call);
  // Work queued on a stream cannot be recalled and uses the caller's
  // buffers: an operation destroyed before it finished (aborted, or failed
  // half-way) waits, bounded, for its streams (rule 8).
  ~NcclOperation() override;
  void post() final;
  bool test() final;
  void abort() final;

 protected:
  // Issues the NCCL call of local replica i (inside a group).
  virtual ncclResult_t issue(size_t i, ncclComm_t comm, cudaStream_t stream) = 0;
  // Local replicas whose output MEAN must divide (every replica; for
  // reduce only the root's), and how many elements that output holds.
  virtual bool divides(size_t /*i*/) const { return true; }
  virtual uint64_t output_count() const { return count(); }

  const strata_call_desc_t& desc() const { return *call_.desc; }
  uint64_t count() const { return call_.desc->count; }
  size_t elem() const { return elem_; }
  void* in(size_t i) const { return call_.inputs[i].data; }
  void* out(size_t i) const { return call_.outputs[i].data; }
  int root() const { return call_.desc->root; }  // a global replica rank = NCCL rank
  int rank(size_t i) const { return comms_.rank(i); }

 private:
  enum class Stage { kCreated, kSettingUp, kRunning, kDone };
  void enqueue_tail();  // MEAN's division and the completion events
  void drain() noexcept;

  NcclComms& comms_;
  strata_call_t call_;
  size_t elem_;
  Stage stage_ = Stage::kCreated;
  std::vector<cudaEvent_t> events_;
};

}  // namespace strata::nccl

#endif  // STRATA_PLUGINS_NCCL_NCCL_OPERATION_H_
