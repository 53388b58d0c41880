// Dataset's public methods: argument checks with messages that name the
// transformation and the value, then a new node on top of this one.
#include "core/data/dataset.h"

#include <atomic>
#include <exception>
#include <source_location>
#include <string>
#include <utility>

#include "core/data/dataset_node.h"

namespace strata {
namespace {

Status bad_argument(const char* op, const std::string& what,
                    std::source_location where = std::source_location::current()) {
  return InvalidArgumentError(std::string("Dataset::") + op + ": " + what, where);
}

// Every shuffle's counter, in the walk order iteration_state() documents.
std::vector<std::atomic<uint64_t>*> iteration_counters(const data_internal::DatasetNode& output) {
  std::vector<std::atomic<uint64_t>*> counters;
  std::vector<const data_internal::DatasetNode*> pending{&output};
  while (!pending.empty()) {
    const data_internal::DatasetNode* node = pending.back();
    pending.pop_back();
    if (std::atomic<uint64_t>* counter = node->iteration_counter()) counters.push_back(counter);
    const std::vector<const data_internal::DatasetNode*> inputs = node->inputs();
    pending.insert(pending.end(), inputs.rbegin(), inputs.rend());
  }
  return counters;
}

}  // namespace

StatusOr<Dataset> Dataset::from_arrays(std::vector<Tensor> arrays) {
  if (arrays.empty()) return bad_argument("from_arrays", "no arrays given");
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (arrays[i].rank() == 0) {
      return bad_argument("from_arrays", "array " + std::to_string(i) +
                                             " is a scalar; elements are sliced along axis 0, "
                                             "so every array needs rank >= 1");
    }
    if (arrays[i].dim(0) != arrays[0].dim(0)) {
      return bad_argument(
          "from_arrays", "array " + std::to_string(i) + " " + arrays[i].describe() + " has " +
                             std::to_string(arrays[i].dim(0)) + " rows but array 0 " +
                             arrays[0].describe() + " has " + std::to_string(arrays[0].dim(0)) +
                             "; all arrays must have the same first dimension");
    }
  }
  return Dataset(data_internal::make_arrays_node(std::move(arrays)));
}

Dataset Dataset::from_generator(std::function<std::unique_ptr<Iterator>()> make,
                                int64_t cardinality) {
  if (cardinality < kUnknownCardinality) cardinality = kUnknownCardinality;
  return Dataset(data_internal::make_generator_node(std::move(make), cardinality));
}

StatusOr<Dataset> Dataset::batch(int64_t batch_size, bool drop_remainder) const {
  if (batch_size < 1) {
    return bad_argument("batch", "batch_size must be >= 1, got " + std::to_string(batch_size));
  }
  return Dataset(data_internal::make_batch_node(node_, batch_size, drop_remainder));
}

StatusOr<Dataset> Dataset::shuffle(int64_t buffer_size, uint64_t seed,
                                   bool reshuffle_each_iteration) const {
  if (buffer_size < 1) {
    return bad_argument("shuffle", "buffer_size must be >= 1, got " + std::to_string(buffer_size));
  }
  return Dataset(
      data_internal::make_shuffle_node(node_, buffer_size, seed, reshuffle_each_iteration));
}

StatusOr<Dataset> Dataset::repeat(int64_t count) const {
  if (count < -1) {
    return bad_argument("repeat", "count must be >= 0, or -1 to repeat forever; got " +
                                      std::to_string(count));
  }
  return Dataset(data_internal::make_repeat_node(node_, count));
}

StatusOr<Dataset> Dataset::shard(int64_t num_shards, int64_t index) const {
  if (num_shards < 1) {
    return bad_argument("shard", "num_shards must be >= 1, got " + std::to_string(num_shards));
  }
  if (index < 0 || index >= num_shards) {
    return bad_argument("shard", "index must be in [0, " + std::to_string(num_shards) +
                                     "), got " + std::to_string(index));
  }
  return Dataset(data_internal::make_shard_node(node_, num_shards, index));
}

StatusOr<Dataset> Dataset::take(int64_t count) const {
  if (count < -1) {
    return bad_argument("take",
                        "count must be >= 0, or -1 to take all; got " + std::to_string(count));
  }
  return Dataset(data_internal::make_take_node(node_, count));
}

StatusOr<Dataset> Dataset::prefetch(int64_t buffer_size) const {
  if (buffer_size < 1) {
    return bad_argument("prefetch",
                        "buffer_size must be >= 1, got " + std::to_string(buffer_size));
  }
  return Dataset(data_internal::make_prefetch_node(node_, buffer_size));
}

std::unique_ptr<Iterator> Dataset::make_iterator() const {
  // Building an iterator allocates (and prefetch starts a thread, which
  // reports its own failure); an exception must not leave the library.
  try {
    return node_->make_iterator();
  } catch (const std::exception& e) {
    return data_internal::make_error_iterator(
        InternalError(std::string("Dataset::make_iterator: ") + e.what()));
  }
}

int64_t Dataset::cardinality() const { return node_->cardinality(); }

std::vector<uint64_t> Dataset::iteration_state() const {
  std::vector<uint64_t> state;
  for (std::atomic<uint64_t>* counter : iteration_counters(*node_)) {
    state.push_back(counter->load());
  }
  return state;
}

Status Dataset::restore_iteration_state(std::span<const uint64_t> state) const {
  const std::vector<std::atomic<uint64_t>*> counters = iteration_counters(*node_);
  if (state.size() != counters.size()) {
    return bad_argument("restore_iteration_state",
                        "the state holds " + std::to_string(state.size()) +
                            " shuffle counter(s) but this pipeline has " +
                            std::to_string(counters.size()) +
                            " shuffle(s); was it saved from another input pipeline?");
  }
  for (size_t i = 0; i < state.size(); ++i) counters[i]->store(state[i]);
  return Status();
}

}  // namespace strata
