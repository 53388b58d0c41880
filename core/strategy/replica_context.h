// ReplicaContext: what a replica sees inside Strategy::run. Its calls are
// cross-replica: every replica must make the same ones in the same order
// (checked: a mismatch fails the step for all, naming both calls), and each
// one waits for all replicas, up to the strategy's timeout.
#ifndef STRATA_CORE_STRATEGY_REPLICA_CONTEXT_H_
#define STRATA_CORE_STRATEGY_REPLICA_CONTEXT_H_

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/status.h"
#include "core/strategy/values.h"
#include "core/tensor/tensor.h"

namespace strata {

class Strategy;

class ReplicaContext {
 public:
  // `local_id`: the replica's index among this process's replicas.
  ReplicaContext(Strategy& strategy, int local_id);

  Strategy& strategy() const { return *strategy_; }
  // This replica's id in the whole job (TF's replica_id_in_sync_group).
  int replica_id_in_sync_group() const;
  // Its index among this process's replicas: what indexes PerReplica values
  // and per-replica copies here.
  int local_replica_id() const { return replica_id_; }
  int num_replicas_in_sync() const;
  strata_device_t device() const;

  // The reduction of `value` over all replicas; every replica gets it.
  StatusOr<Tensor> all_reduce(ReduceOp op, const Tensor& value);
  // Several tensors at once, in place (packed into few collective calls).
  Status all_reduce(ReduceOp op, std::span<Tensor* const> values);
  // The replicas' values concatenated along `axis`, in replica order; the
  // other dimensions must agree (sizes along `axis` may differ).
  StatusOr<Tensor> all_gather(const Tensor& value, int axis = 0);

  // TF's merge_call: every replica hands in `arg`; once all have, fn runs
  // once, in the cross-replica context, with the PerReplica of all args,
  // and every replica receives its result.
  template <class T, class Fn>
  auto merge_call(Fn&& fn, const T& arg);
  // Without an argument: fn(Strategy&).
  template <class Fn>
  auto merge_call(Fn&& fn);

 private:
  // Meets the other replicas; the last to arrive runs step(payloads).
  Status rendezvous(const std::string& what, void* payload,
                    const std::function<Status(std::span<void* const>)>& step);

  Strategy* strategy_;
  int replica_id_;
};

namespace detail {
template <class T> struct is_status_or : std::false_type {};
template <class T> struct is_status_or<StatusOr<T>> : std::true_type {};

// Marks the calling thread as in the cross-replica context while alive.
class CrossReplicaSection {
 public:
  CrossReplicaSection();
  ~CrossReplicaSection();
  CrossReplicaSection(const CrossReplicaSection&) = delete;
  CrossReplicaSection& operator=(const CrossReplicaSection&) = delete;

 private:
  ReplicaContext* saved_;
};
}  // namespace detail

template <class T, class Fn>
auto ReplicaContext::merge_call(Fn&& fn, const T& arg) {
  using Result = std::invoke_result_t<Fn&, Strategy&, const PerReplica<T>&>;
  struct Payload {
    const T* arg;
    std::optional<Result>* out;
  };
  std::optional<Result> out;
  Payload mine{&arg, &out};
  Status status = rendezvous("merge_call", &mine, [&](std::span<void* const> payloads) {
    std::vector<T> args;
    for (void* p : payloads) args.push_back(*static_cast<Payload*>(p)->arg);
    detail::CrossReplicaSection section;
    Result result = fn(*strategy_, PerReplica<T>(std::move(args)));
    for (void* p : payloads) static_cast<Payload*>(p)->out->emplace(result);
    return Status();
  });
  if constexpr (std::is_same_v<Result, Status> || detail::is_status_or<Result>::value) {
    if (!status.ok()) return Result(status);
    return std::move(*out);
  } else {
    using Out = StatusOr<Result>;
    if (!status.ok()) return Out(status);
    return Out(std::move(*out));
  }
}

template <class Fn>
auto ReplicaContext::merge_call(Fn&& fn) {
  return merge_call<int>([&](Strategy& s, const PerReplica<int>&) { return fn(s); }, 0);
}

}  // namespace strata

#endif  // STRATA_CORE_STRATEGY_REPLICA_CONTEXT_H_
