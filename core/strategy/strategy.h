// Strategy: how a training step is spread over replicas, after
// tf.distribute.Strategy. The same step function runs unchanged under every
// strategy:
//
//   auto scope = strategy.scope();                 // variables made here are distributed
//   auto losses = strategy.run(step, per_replica_batches);
//   auto total = strategy.reduce(ReduceOp::kSum, *losses, std::nullopt);
//
// `run` calls fn(ReplicaContext&, args...) once per replica — concurrently,
// one thread per replica, for multi-replica strategies. Arguments that are
// PerReplica<T> give each replica its own value; any other argument is
// passed to every replica. Inside fn, the ReplicaContext offers all_reduce,
// all_gather and merge_call; outside, the strategy's own reduce and gather
// work on the per-replica results (the cross-replica context).
#ifndef STRATA_CORE_STRATEGY_STRATEGY_H_
#define STRATA_CORE_STRATEGY_STRATEGY_H_

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/collective/collective_ops.h"
#include "core/common/status.h"
#include "core/strategy/device_staging.h"
#include "core/strategy/replica_context.h"
#include "core/strategy/values.h"
#include "core/tensor/tensor.h"

namespace strata {

class ReplicaPool;
class ReplicaRendezvous;
class Strategy;

// Makes a strategy current on this thread until destroyed (TF's
// `with strategy.scope():`). Scopes nest; entering another strategy's scope
// inside one is refused, as in TF.
class [[nodiscard]] StrategyScope {
 public:
  StrategyScope(StrategyScope&& other) noexcept;
  StrategyScope& operator=(StrategyScope&&) = delete;
  ~StrategyScope();

 private:
  friend class Strategy;
  explicit StrategyScope(Strategy* strategy);
  Strategy* previous_ = nullptr;
  bool active_ = false;
};

// The strategy in scope on this thread, else the process's default
// strategy (one replica, no distribution).
Strategy& get_strategy();
bool has_strategy();  // a strategy other than the default is in scope
// The replica context of the calling replica thread; nullptr in the
// cross-replica context (outside run, or inside a merge_call function).
ReplicaContext* get_replica_context();
bool in_cross_replica_context();

namespace detail {
template <class T> struct is_per_replica : std::false_type {};
template <class T> struct is_per_replica<PerReplica<T>> : std::true_type {};
template <class T>
const auto& replica_value(const T& arg, int replica) {
  if constexpr (is_per_replica<T>::value) return arg[replica];
  else return arg;
}
template <class T> struct unwrap_status_or { using type = T; };
template <class T> struct unwrap_status_or<StatusOr<T>> { using type = T; };
}  // namespace detail

class Strategy {
 public:
  virtual ~Strategy();
  Strategy(const Strategy&) = delete;
  Strategy& operator=(const Strategy&) = delete;

  // "default", "one_device", "mirrored", "central_storage".
  virtual std::string_view kind() const = 0;
  // Replicas in the whole job: this process's replicas times its workers.
  int num_replicas_in_sync() const { return num_local_replicas() * worker_count_; }
  // Replicas this process drives (one thread each in run()); PerReplica
  // values hold this many.
  int num_local_replicas() const { return static_cast<int>(devices_.size()); }
  // Multi-worker strategies: this process's worker rank, the worker count,
  // and the global id of its first replica (replicas are numbered worker by
  // worker). One worker, rank 0, otherwise.
  int worker_rank() const { return worker_rank_; }
  int worker_count() const { return worker_count_; }
  bool is_chief() const { return worker_rank_ == 0; }
  int first_replica_id() const { return worker_rank_ * num_local_replicas(); }
  // The device of each local replica, in replica order.
  const std::vector<strata_device_t>& devices() const { return devices_; }
  // Where variables live: every replica's device (mirrored) or one device.
  virtual std::vector<strata_device_t> variable_devices() const { return devices_; }
  std::chrono::nanoseconds timeout() const { return timeout_; }
  std::string describe() const;  // "mirrored over cpu:0 .. cpu:3 (4 replicas)"
  // How describe() and errors name the devices ("cpu:3"); the factory sets it.
  void set_device_names(std::vector<std::string> names) { device_names_ = std::move(names); }

  StatusOr<StrategyScope> scope();

  // fn(ReplicaContext&, args...) on every replica. fn returning Status or
  // void gives a Status; returning T or StatusOr<T> gives PerReplica<T>.
  // The first failing replica's Status is returned, naming the replica.
  template <class Fn, class... Args>
  auto run(Fn&& fn, const Args&... args);

  // Across replicas (axis nullopt), or also over dimension `axis` of each
  // value (a batch dimension: MEAN then divides by the total number of rows
  // over all replicas, so a partial last batch gives the exact mean).
  StatusOr<Tensor> reduce(ReduceOp op, const PerReplica<Tensor>& value,
                          std::optional<int> axis = std::nullopt);
  // A value that is not distributed: the same on every replica.
  StatusOr<Tensor> reduce(ReduceOp op, const Tensor& value, std::optional<int> axis = std::nullopt);
  // Concatenates the replicas' values along `axis`, in replica order.
  StatusOr<Tensor> gather(const PerReplica<Tensor>& value, int axis = 0);

  template <class T>
  std::vector<T> experimental_local_results(const PerReplica<T>& value) const {
    return value.values();
  }
  template <class T>
  std::vector<T> experimental_local_results(const Mirrored<T>& value) const {
    return value.values();
  }
  template <class Fn>
  auto distribute_values_from_function(Fn&& fn) const;

  // In place, across replicas: per_replica[r] holds replica r's tensors, the
  // same shapes on every replica. Small tensors are packed (bytes_per_pack).
  // What ReplicaContext::all_reduce and optimizers use; public for them.
  virtual Status all_reduce_replicas(ReduceOp op, std::span<std::vector<Tensor*>> per_replica);

  // `copies` holds one tensor per local replica, the same shape on every
  // worker; multi-worker strategies overwrite them all with the chief's
  // first one (replica 0 of the job), a collective every worker makes
  // together. What a new mirrored variable starts from and what an
  // ONLY_FIRST_REPLICA variable reads. Default (one worker): nothing to do.
  virtual Status broadcast_from_chief(std::span<Tensor* const> copies);

  // The collectives of this strategy's team (null with one replica).
  CollectiveOps* collectives() const { return collectives_.get(); }
  ReplicaRendezvous& rendezvous() { return *rendezvous_; }

 protected:
  // timeout 0: the collectives' configured timeout (300 s without them).
  Strategy(std::vector<strata_device_t> devices, std::unique_ptr<CollectiveOps> collectives,
           std::chrono::nanoseconds timeout = std::chrono::nanoseconds(0));
  // Same number of tensors, same shapes on every replica, or a clear error.
  Status check_replica_values(std::span<std::vector<Tensor*>> per_replica) const;
  // gather() of a job with several workers (multi_worker_gather.cc).
  StatusOr<Tensor> gather_across_workers(const PerReplica<Tensor>& value, int axis);
  // Multi-worker strategies call this once, before any run().
  void set_workers(int worker_rank, int worker_count);
  // Tags each tensor with its replica's device and describes it as a buffer.
  std::vector<std::vector<Buffer>> replica_buffers(std::span<std::vector<Tensor*>> per_replica) const;
  // Runs `collective` on `buffers` ([replica][buffer], host memory tagged
  // with the replicas' devices) as they are, or on device copies of them
  // when the devices' memory is not host-accessible (device_staging.h).
  Status on_devices(const DeviceStaging::Lists& buffers,
                    const DeviceStaging::Collective& collective);

 private:
  // Calls body once per replica, each with its own ReplicaContext current.
  Status run_replicas(const std::function<Status(ReplicaContext&)>& body);
  Status run_one(ReplicaContext& context, const std::function<Status(ReplicaContext&)>& body);

  std::vector<strata_device_t> devices_;
  std::vector<std::string> device_names_;
  std::unique_ptr<CollectiveOps> collectives_;
  std::chrono::nanoseconds timeout_;
  std::unique_ptr<ReplicaRendezvous> rendezvous_;
  std::unique_ptr<ReplicaPool> pool_;  // threads for replicas 1..n-1
  std::unique_ptr<DeviceStaging> staging_;  // null: the host can touch every device's memory
  Status staging_status_;                   // why the devices' properties could not be read
  int worker_rank_ = 0;
  int worker_count_ = 1;
  std::mutex run_mu_;                  // one run at a time
};

template <class Fn, class... Args>
auto Strategy::run(Fn&& fn, const Args&... args) {
  using Result = std::invoke_result_t<Fn&, ReplicaContext&,
                                      decltype(detail::replica_value(args, 0))...>;
  Status shape_check;
  auto check = [&](const auto& arg) {
    if constexpr (detail::is_per_replica<std::decay_t<decltype(arg)>>::value) {
      if (arg.num_replicas() != num_local_replicas() && shape_check.ok()) {
        shape_check = InvalidArgumentError(
            "run: a PerReplica argument holds " + std::to_string(arg.num_replicas()) +
            " value(s) but " + describe() + " has " + std::to_string(num_local_replicas()) +
            " local replica(s)");
      }
    }
  };
  (check(args), ...);
  (void)check;  // unused when no argument is given

  if constexpr (std::is_void_v<Result> || std::is_same_v<Result, Status>) {
    if (!shape_check.ok()) return shape_check;
    return run_replicas([&](ReplicaContext& ctx) -> Status {
      const int r = ctx.local_replica_id();
      if constexpr (std::is_void_v<Result>) {
        fn(ctx, detail::replica_value(args, r)...);
        return Status();
      } else {
        return fn(ctx, detail::replica_value(args, r)...);
      }
    });
  } else {
    using Value = typename detail::unwrap_status_or<Result>::type;
    using Out = StatusOr<PerReplica<Value>>;
    if (!shape_check.ok()) return Out(shape_check);
    std::vector<std::optional<Value>> results(static_cast<size_t>(num_local_replicas()));
    Status status = run_replicas([&](ReplicaContext& ctx) -> Status {
      const int r = ctx.local_replica_id();
      auto value = fn(ctx, detail::replica_value(args, r)...);
      if constexpr (std::is_same_v<Result, StatusOr<Value>>) {
        if (!value.ok()) return value.status();
        results[static_cast<size_t>(r)].emplace(std::move(value).value());
      } else {
        results[static_cast<size_t>(r)].emplace(std::move(value));
      }
      return Status();
    });
    if (!status.ok()) return Out(status);
    std::vector<Value> values;
    values.reserve(results.size());
    for (auto& v : results) values.push_back(std::move(*v));
    return Out(PerReplica<Value>(std::move(values)));
  }
}

template <class Fn>
auto Strategy::distribute_values_from_function(Fn&& fn) const {
  using Value = std::invoke_result_t<Fn&, const ValueContext&>;
  std::vector<Value> values;
  for (int r = 0; r < num_local_replicas(); ++r) {
    values.push_back(fn(ValueContext{first_replica_id() + r, num_replicas_in_sync()}));
  }
  return PerReplica<Value>(std::move(values));
}

}  // namespace strata

#endif  // STRATA_CORE_STRATEGY_STRATEGY_H_
