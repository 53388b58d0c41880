// ProcessGroupStrata: torch.distributed's backend "strata". Each group is a
// Strata team formed through the c10d store torch hands the backend; its
// collectives go through CollectiveOps (selector, config, AUTO, every
// plugin) on the group's WorkQueue. Calls are checked on the caller's
// thread, so a bad argument raises at the call, not at wait().
#ifndef STRATA_PYTHON_SRC_TORCH_PROCESS_GROUP_STRATA_H_
#define STRATA_PYTHON_SRC_TORCH_PROCESS_GROUP_STRATA_H_

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/collective/selector.h"
#include "core/runtime/runtime.h"
#include "python/src/torch/work_queue.h"

namespace strata::python {

class ProcessGroupStrata final : public c10d::ProcessGroup {
 public:
  struct Spec {
    int rank = 0;
    int size = 1;
    std::chrono::milliseconds timeout{std::chrono::minutes(30)};
    std::string group_id = "0";         // torch's group name: "0" for the default group
    std::vector<int64_t> global_ranks;  // empty: the group is the whole world
    std::optional<std::string> implementation;
    std::optional<uint64_t> bytes_per_pack;
  };

  // Forms the group's team (every member calls it at once); throws
  // StatusError naming what failed.
  static c10::intrusive_ptr<ProcessGroupStrata> create(std::shared_ptr<Runtime> runtime,
                                                       c10::intrusive_ptr<c10d::Store> store,
                                                       const Spec& spec);
  ProcessGroupStrata(int rank, int size, Spec spec, strata_device_t device,
                     std::shared_ptr<WorkQueue> queue);
  // Fails queued calls, waits for the running one and leaves the job, with
  // the GIL released if the caller held it.
  ~ProcessGroupStrata() override;

  const std::string getBackendName() const override { return "strata"; }
  void setSequenceNumberForGroup() override {}
  uint64_t getSequenceNumberForGroup() override { return sequence_.load(); }

  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(
      std::vector<at::Tensor>& tensors, const c10d::AllreduceCoalescedOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors,
                                        const c10d::ReduceOptions& opts) override;
  // process_group_gather_ops.cc
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(
      at::Tensor& output, at::Tensor& input, const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs,
                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override;
  // process_group_exchange_ops.cc: built from all_gather and broadcast.
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs,
                                        std::vector<at::Tensor>& inputs,
                                        const c10d::GatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs,
                                         std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input,
                                               std::vector<int64_t>& output_splits,
                                               std::vector<int64_t>& input_splits,
                                               const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs,
                                          std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions& opts) override;
  // NOT_SUPPORTED, saying what the backend lacks and what to use instead.
  c10::intrusive_ptr<c10d::Work> allgather_coalesced(
      std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
      const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst,
                                      int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src,
                                      int tag) override;
  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor>& tensors,
                                               int tag) override;
  void monitoredBarrier(const c10d::BarrierOptions& opts, bool wait_all_ranks) override;

  // "rank 1 (global rank 3)" for messages.
  std::string describe_rank(int rank) const;

  // What serves torch's `op` ("all_reduce", "gather", ...) of `tensor` on
  // this group, and why: the core call it runs as, described as `strata
  // explain` describes calls, and the selector's verdict for that call
  // (CollectiveOps::explain). process_group_explain.cc.
  struct Explained {
    std::string call;  // torch's call, then the core call that serves it
    std::string team;
    Selection selection;
  };
  Explained explain(const std::string& op, const at::Tensor& tensor,
                    const c10d::ReduceOp& reduce_op, int64_t root);

 private:
  c10::intrusive_ptr<c10d::Work> enqueue(c10d::OpType type, std::vector<at::Tensor> outputs,
                                         WorkStrata::Body body);
  CallOptions call_options(std::chrono::milliseconds timeout) const;
  // The root as an int, or InvalidArgument naming `call` (thrown).
  int checked_root(int64_t root_rank, int64_t root_tensor, const std::string& call) const;

  Spec spec_;
  strata_device_t device_;  // the team's one device: cpu:0
  std::shared_ptr<WorkQueue> queue_;
  std::atomic<uint64_t> sequence_{0};
};

}  // namespace strata::python

#endif  // STRATA_PYTHON_SRC_TORCH_PROCESS_GROUP_STRATA_H_
