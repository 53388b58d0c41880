// Input for a strategy's replicas, after strategy.distribute_dataset and
// distribute_datasets_from_function:
//
//  - from a dataset of *global* batches: each batch is split along axis 0
//    into one slice per replica, as evenly as possible. A last partial
//    batch gives some replicas fewer rows (or none); the batch's true
//    global size travels with it, so compute_average_loss divides by the
//    rows that exist and the mean is right.
//  - from a function of InputContext returning a dataset of *per-replica*
//    batches: each step takes one element per replica, in replica order.
#ifndef STRATA_CORE_STRATEGY_DISTRIBUTED_DATASET_H_
#define STRATA_CORE_STRATEGY_DISTRIBUTED_DATASET_H_

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/data/dataset.h"
#include "core/strategy/strategy.h"
#include "core/strategy/values.h"

namespace strata {

// How a dataset of global batches is divided between the workers of a
// multi-worker strategy (TF's tf.data.experimental.AutoShardPolicy).
//   AUTO: DATA — Strata datasets are in memory, there are no files to shard.
//   DATA: every worker reads the same global batches and keeps the rows of
//         its own replicas; together the workers take each batch once.
//   OFF:  no sharding: each worker splits every global batch among its own
//         replicas, so every worker trains on the whole dataset.
// FILE is refused with that reason. One worker: every policy is the same.
enum class AutoShardPolicy { kAuto, kData, kOff, kFile };

struct DistributedBatch {
  PerReplica<Element> values;   // replica r's slice of every component
  int64_t global_batch_size = 0;  // rows over all replicas in this step
};

class DistributedIterator {
 public:
  virtual ~DistributedIterator() = default;
  // The next step's input; nullopt at the end.
  virtual StatusOr<std::optional<DistributedBatch>> next() = 0;
};

class DistributedDataset {
 public:
  std::unique_ptr<DistributedIterator> make_iterator() const { return make_(); }
  // Steps in one pass when the dataset's cardinality says so, else
  // Dataset::kInfiniteCardinality or kUnknownCardinality.
  int64_t steps_per_pass() const { return steps_per_pass_; }
  // The underlying dataset's (Dataset::iteration_state): what a resumed
  // Model::fit restores before replaying an interrupted epoch.
  std::vector<uint64_t> iteration_state() const { return dataset_.iteration_state(); }
  Status restore_iteration_state(std::span<const uint64_t> state) const {
    return dataset_.restore_iteration_state(state);
  }

 private:
  friend StatusOr<DistributedDataset> distribute_dataset(const Strategy&, const Dataset&,
                                                         AutoShardPolicy);
  friend StatusOr<DistributedDataset> distribute_datasets_from_function(
      const Strategy&, const std::function<StatusOr<Dataset>(const InputContext&)>&);
  DistributedDataset(std::function<std::unique_ptr<DistributedIterator>()> make, Dataset dataset,
                     int64_t steps_per_pass)
      : make_(std::move(make)), dataset_(std::move(dataset)), steps_per_pass_(steps_per_pass) {}
  std::function<std::unique_ptr<DistributedIterator>()> make_;
  Dataset dataset_;
  int64_t steps_per_pass_;
};

// `dataset` yields global batches (every component batched along axis 0).
StatusOr<DistributedDataset> distribute_dataset(const Strategy& strategy, const Dataset& dataset,
                                                AutoShardPolicy policy = AutoShardPolicy::kAuto);

// fn is called once per process with the context: input_pipeline_id is the
// worker's rank and num_input_pipelines the worker count, so fn shards its
// own input (TF's distribute_datasets_from_function).
StatusOr<DistributedDataset> distribute_datasets_from_function(
    const Strategy& strategy, const std::function<StatusOr<Dataset>(const InputContext&)>& fn);

// Splits rows [0, rows) into `parts` contiguous slices, sizes differing by
// at most one, larger ones first: the split of a global batch.
std::vector<std::pair<int64_t, int64_t>> even_row_split(int64_t rows, int parts);

}  // namespace strata

#endif  // STRATA_CORE_STRATEGY_DISTRIBUTED_DATASET_H_
