// CollectiveOps: the collectives of one team, with one buffer per local
// replica per call. Each call is validated, assigned an algorithm by the
// Selector (cached per call shape), run with a deadline, and returns OK or a
// Status carrying plugin, algorithm, op, rank and sequence number.
//
// Calls on one CollectiveOps are serialised; use one per thread of control
// that issues collectives. Every rank must issue the same calls in the same
// order (as with MPI and NCCL).
#ifndef STRATA_CORE_COLLECTIVE_COLLECTIVE_OPS_H_
#define STRATA_CORE_COLLECTIVE_COLLECTIVE_OPS_H_

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/collective/buffer.h"
#include "core/collective/composed_collective.h"
#include "core/collective/host_composed_collective.h"
#include "core/collective/host_hierarchy.h"
#include "core/collective/packing.h"
#include "core/collective/selector.h"
#include "core/collective/team.h"
#include "core/common/status.h"
#include "core/plugin/call_watchdog.h"

namespace strata {

// TF's CommunicationOptions: overrides of the config's collectives section.
struct CommunicationOptions {
  std::optional<std::string> implementation;  // auto | ring | nccl | <plugin> | <id>
  std::optional<uint64_t> bytes_per_pack;      // 0 disables packing
  std::optional<std::chrono::nanoseconds> timeout;
};

struct CallOptions {
  std::optional<std::chrono::nanoseconds> timeout;  // default: the team's
  std::string algorithm;  // force this algorithm id (benchmarks, conformance)
};

class CollectiveOps {
 public:
  static StatusOr<std::unique_ptr<CollectiveOps>> create(std::shared_ptr<Runtime> runtime,
                                                         TeamSpec spec,
                                                         CommunicationOptions options = {});

  // inputs[i] and outputs[i] belong to local replica i (team device i).
  // Pass the same spans for in-place calls.
  Status all_reduce(std::span<const Buffer> inputs, std::span<const Buffer> outputs,
                    ReduceOp op, const CallOptions& options = {});
  Status broadcast(std::span<const Buffer> inputs, std::span<const Buffer> outputs,
                   int root, const CallOptions& options = {});
  // outputs hold replica_count() * inputs[i].count elements, replica r's
  // contribution at offset r * count.
  Status all_gather(std::span<const Buffer> inputs, std::span<const Buffer> outputs,
                    const CallOptions& options = {});
  // inputs hold replica_count() * outputs[i].count elements; replica r
  // receives the reduction of slice r.
  Status reduce_scatter(std::span<const Buffer> inputs, std::span<const Buffer> outputs,
                        ReduceOp op, const CallOptions& options = {});
  // Only the root's output is written.
  Status reduce(std::span<const Buffer> inputs, std::span<const Buffer> outputs,
                ReduceOp op, int root, const CallOptions& options = {});
  Status barrier(const CallOptions& options = {});

  // All-reduces many tensors in place: per_replica[r][t] is tensor t of
  // replica r. Small tensors are fused into packs of bytes_per_pack (TF's
  // rule: reverse order, a new pack once the current one passes the size).
  Status batch_all_reduce(std::span<const std::vector<Buffer>> per_replica, ReduceOp op,
                          const CallOptions& options = {});

  // What the selector picks for a call of this shape, and why, with every
  // candidate's verdict. For a shape already called: what its first call
  // decided, declines found on any rank included. Otherwise, on a team of
  // one process: the walk a call would make, team_create included (the
  // state it makes is kept for the calls); on a team of several processes,
  // where team_create needs every rank at once: supports() and the
  // team_create declines this team has met so far.
  StatusOr<Selection> explain(CollectiveKind op, DType dtype, uint64_t count,
                              ReduceOp redop = ReduceOp::kSum, bool in_place = false,
                              int root = 0);

  // Whether a call of this shape runs flat or composed by host
  // (host_hierarchy.h), each level's steps and winners, and why. For a
  // shape already called: what its first call decided (on every rank).
  StatusOr<HierarchyDecision> explain_hierarchy(CollectiveKind op, DType dtype, uint64_t count,
                                                ReduceOp redop = ReduceOp::kSum,
                                                bool in_place = false, int root = 0);

  Team& team() { return *team_; }
  // The compositions this team's calls have used so far (null: none yet).
  const ComposedCollective* local_composition() const { return composed_.get(); }
  const HostComposedCollective* host_composition() const { return host_composed_.get(); }
  const CollectivesConfig& config() const { return config_; }
  int replica_count() const { return team_->replica_count(); }

 private:
  CollectiveOps(std::unique_ptr<Team> team, CollectivesConfig config);
  Status run(CollectiveKind kind, std::span<const Buffer> inputs,
             std::span<const Buffer> outputs, ReduceOp op, int root,
             const CallOptions& options);
  Status run_locked(CollectiveKind kind, std::span<const Buffer> inputs,
                    std::span<const Buffer> outputs, ReduceOp op, int root,
                    const CallOptions& options);
  strata_call_desc_t describe(CollectiveKind kind, DType dtype, uint64_t count, ReduceOp op,
                              int root, bool in_place) const;
  static SelectionQuery query_of(const strata_call_desc_t& desc, std::string_view forced);
  struct Chosen {
    const AlgorithmEntry* algorithm;
    void* team_state;
  };
  // The algorithm for this shape and its team state: cached, or selected
  // on every rank alike (agreed_selection.h) the first time the shape is
  // seen; a failure that leaves the ranks in doubt breaks the team.
  StatusOr<Chosen> select(const strata_call_desc_t& desc, const SelectionQuery& query,
                          uint64_t sequence, Deadline deadline);
  // Whether a shape no single algorithm serves is composed instead: a team
  // of several processes with several devices each, and nothing forced.
  bool should_compose(const CallOptions& options) const;
  Status run_composed(CollectiveKind kind, std::span<const Buffer> inputs,
                      std::span<const Buffer> outputs, ReduceOp op, int root,
                      const strata_call_desc_t& desc, const CallOptions& options);
  // collectives.hierarchy: host on a team of several devices per process
  // whose processes share hosts: composed locally at once, and the
  // cross-process step composes by host.
  bool local_then_hosts(const CallOptions& options) const;
  // The first call of a shape on a team that qualifies: decides, agreed by
  // every rank under AUTO (supports() may differ between ranks: the shape
  // is composed when any rank would compose it), and keeps the decision.
  StatusOr<bool> composes_by_host(const strata_call_desc_t& desc, const SelectionQuery& query,
                                  Deadline deadline);
  Status run_host_composed(CollectiveKind kind, std::span<const Buffer> inputs,
                           std::span<const Buffer> outputs, ReduceOp op, int root,
                           const strata_call_desc_t& desc, const CallOptions& options);

  std::mutex mu_;
  std::unique_ptr<Team> team_;
  CollectivesConfig config_;
  Selector selector_;
  PackScratch scratch_;
  std::unique_ptr<ComposedCollective> composed_;  // built on the first composed call
  std::set<SelectionKey, std::less<>> composed_shapes_;
  std::unique_ptr<HostComposedCollective> host_composed_;  // built on its first call
  // Every shape decided flat or composed by host, and why (for explain).
  std::map<SelectionKey, HierarchyDecision, std::less<>> hierarchy_;
  // How each shape's first call chose its algorithm, for explain().
  std::map<SelectionKey, Selection, std::less<>> selections_;
  // The previous call's shape, algorithm and team state. A training loop
  // repeats its shapes, and right after a context switch the two map walks
  // that find them cost more than one comparison (docs/performance/mpi_per_call.md,
  // "Per-call cost, third pass").
  struct LastCall {
    SelectionKey key;
    const AlgorithmEntry* algo = nullptr;  // nullptr: no call yet
    void* state = nullptr;
  } last_call_;
  // The plugin call in flight, for the watchdog that reports one blocked
  // past its deadline (calls on one CollectiveOps are serialised).
  CallWatchdog::Slot watch_;
  friend class PackRunner;
};

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_COLLECTIVE_OPS_H_
