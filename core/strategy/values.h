// Distributed values, as the seeds define them: a PerReplica holds one
// possibly different value per replica (what `run` returns, a batch split
// across replicas); a Mirrored holds one value per replica that are kept
// identical (a mirrored variable's copies). They are distinct types so a
// function that needs identical values cannot be handed per-replica ones.
#ifndef STRATA_CORE_STRATEGY_VALUES_H_
#define STRATA_CORE_STRATEGY_VALUES_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace strata {

template <class T>
class PerReplica {
 public:
  PerReplica() = default;
  explicit PerReplica(std::vector<T> values) : values_(std::move(values)) {}

  int num_replicas() const { return static_cast<int>(values_.size()); }
  const T& operator[](int replica) const { return values_.at(static_cast<size_t>(replica)); }
  T& operator[](int replica) { return values_.at(static_cast<size_t>(replica)); }
  const std::vector<T>& values() const { return values_; }
  std::vector<T>& values() { return values_; }

 private:
  std::vector<T> values_;
};

template <class T>
class Mirrored {
 public:
  Mirrored() = default;
  explicit Mirrored(std::vector<T> values) : values_(std::move(values)) {}

  int num_replicas() const { return static_cast<int>(values_.size()); }
  const T& operator[](int replica) const { return values_.at(static_cast<size_t>(replica)); }
  const std::vector<T>& values() const { return values_; }
  // The value every replica holds (replica 0's copy).
  const T& primary() const { return values_.at(0); }

 private:
  std::vector<T> values_;
};

// What distribute_values_from_function tells the value function.
struct ValueContext {
  int replica_id_in_sync_group = 0;
  int num_replicas_in_sync = 1;
};

// What distribute_datasets_from_function tells the input function: how many
// input pipelines there are (one per worker), which one this is, and how
// many replicas consume them.
struct InputContext {
  int num_input_pipelines = 1;
  int input_pipeline_id = 0;
  int num_replicas_in_sync = 1;

  // The batch each replica sees for a global batch (global must divide
  // evenly, as in TF; checked by the caller that owns the error message).
  int64_t get_per_replica_batch_size(int64_t global_batch_size) const {
    return global_batch_size / num_replicas_in_sync;
  }
};

}  // namespace strata

#endif  // STRATA_CORE_STRATEGY_VALUES_H_
