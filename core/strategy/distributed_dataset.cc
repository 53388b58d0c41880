#include "core/strategy/distributed_dataset.h"

namespace strata {

std::vector<std::pair<int64_t, int64_t>> even_row_split(int64_t rows, int parts) {
  std::vector<std::pair<int64_t, int64_t>> slices;
  const int64_t base = rows / parts;
  const int64_t extra = rows % parts;
  int64_t begin = 0;
  for (int p = 0; p < parts; ++p) {
    const int64_t size = base + (p < extra ? 1 : 0);
    slices.emplace_back(begin, begin + size);
    begin += size;
  }
  return slices;
}

namespace {

class SplittingIterator final : public DistributedIterator {
 public:
  // Splits every batch into `parts` slices and keeps `keep` of them from
  // `first` on: this worker's replicas' share of the global batch.
  SplittingIterator(std::unique_ptr<Iterator> input, int parts, int first, int keep)
      : input_(std::move(input)), parts_(parts), first_(first), keep_(keep) {}

  StatusOr<std::optional<DistributedBatch>> next() override {
    STRATA_ASSIGN_OR_RETURN(std::optional<Element> global, input_->next());
    if (!global) return std::optional<DistributedBatch>();
    if (global->empty() || global->front().rank() == 0) {
      return InvalidArgumentError("distribute_dataset needs batched elements (components of "
                                  "rank >= 1, rows along axis 0); batch the dataset first");
    }
    const int64_t rows = global->front().dim(0);
    for (const Tensor& c : *global) {
      if (c.rank() == 0 || c.dim(0) != rows) {
        return InvalidArgumentError("distribute_dataset: components of one batch have different "
                                    "row counts (" + global->front().describe() + " and " +
                                    c.describe() + ")");
      }
    }
    DistributedBatch batch;
    batch.global_batch_size = rows;
    std::vector<Element> per_replica;
    const auto slices = even_row_split(rows, parts_);
    for (int s = first_; s < first_ + keep_; ++s) {
      const auto [begin, end] = slices[static_cast<size_t>(s)];
      Element slice;
      for (const Tensor& c : *global) slice.push_back(c.slice_rows(begin, end));
      per_replica.push_back(std::move(slice));
    }
    batch.values = PerReplica<Element>(std::move(per_replica));
    return std::optional<DistributedBatch>(std::move(batch));
  }

 private:
  std::unique_ptr<Iterator> input_;
  int parts_;
  int first_;
  int keep_;
};

class PerReplicaIterator final : public DistributedIterator {
 public:
  // `workers`: every worker's pipeline yields batches like this one's, so
  // the global batch is this worker's rows times the worker count.
  PerReplicaIterator(std::unique_ptr<Iterator> input, int replicas, int workers)
      : input_(std::move(input)), replicas_(replicas), workers_(workers) {}

  StatusOr<std::optional<DistributedBatch>> next() override {
    DistributedBatch batch;
    std::vector<Element> per_replica;
    for (int r = 0; r < replicas_; ++r) {
      STRATA_ASSIGN_OR_RETURN(std::optional<Element> element, input_->next());
      if (!element) {
        // The pipeline ran out mid-step: the replicas that got nothing get
        // empty slices shaped like replica 0's, as a partial global batch.
        if (r == 0) return std::optional<DistributedBatch>();
        Element empty;
        for (const Tensor& c : per_replica.front()) empty.push_back(c.slice_rows(0, 0));
        per_replica.push_back(std::move(empty));
        continue;
      }
      if (!element->empty() && element->front().rank() > 0) {
        batch.global_batch_size += element->front().dim(0);
      }
      per_replica.push_back(std::move(*element));
    }
    batch.global_batch_size *= workers_;
    batch.values = PerReplica<Element>(std::move(per_replica));
    return std::optional<DistributedBatch>(std::move(batch));
  }

 private:
  std::unique_ptr<Iterator> input_;
  int replicas_;
  int workers_;
};

}  // namespace

StatusOr<DistributedDataset> distribute_dataset(const Strategy& strategy, const Dataset& dataset,
                                                AutoShardPolicy policy) {
  if (policy == AutoShardPolicy::kFile) {
    return InvalidArgumentError("auto-shard policy FILE needs a dataset read from files; Strata "
                                "datasets are in memory: use AUTO or DATA");
  }
  const int local = strategy.num_local_replicas();
  int parts = strategy.num_replicas_in_sync();
  int first = strategy.first_replica_id();
  if (policy == AutoShardPolicy::kOff) {
    parts = local;
    first = 0;
  }
  return DistributedDataset(
      [dataset, parts, first, local] {
        return std::unique_ptr<DistributedIterator>(
            std::make_unique<SplittingIterator>(dataset.make_iterator(), parts, first, local));
      },
      dataset, dataset.cardinality());  // one global batch per step
}

StatusOr<DistributedDataset> distribute_datasets_from_function(
    const Strategy& strategy, const std::function<StatusOr<Dataset>(const InputContext&)>& fn) {
  InputContext context;
  context.num_input_pipelines = strategy.worker_count();
  context.input_pipeline_id = strategy.worker_rank();
  context.num_replicas_in_sync = strategy.num_replicas_in_sync();
  STRATA_ASSIGN_OR_RETURN(Dataset dataset, fn(context));
  const int replicas = strategy.num_local_replicas();
  const int workers = strategy.worker_count();
  // One element per local replica per step; a last partial step counts.
  const int64_t elements = dataset.cardinality();
  const int64_t steps = elements < 0 ? elements : (elements + replicas - 1) / replicas;
  return DistributedDataset(
      [dataset, replicas, workers] {
        return std::unique_ptr<DistributedIterator>(
            std::make_unique<PerReplicaIterator>(dataset.make_iterator(), replicas, workers));
      },
      dataset, steps);
}

}  // namespace strata
