// The inside of a Dataset: an immutable graph of nodes, one per
// transformation, each knowing how to make an iterator over its input's
// iterator. Not part of the public API; dataset.cc validates arguments and
// calls the factories below, which may assume the arguments are valid.
#ifndef STRATA_CORE_DATA_DATASET_NODE_H_
#define STRATA_CORE_DATA_DATASET_NODE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/data/iterator.h"
#include "core/tensor/tensor.h"

namespace strata::data_internal {

class DatasetNode {
 public:
  virtual ~DatasetNode() = default;
  DatasetNode() = default;
  DatasetNode(const DatasetNode&) = delete;
  DatasetNode& operator=(const DatasetNode&) = delete;

  // Called concurrently from any thread: nodes are immutable, except for
  // state that is atomic by design (shuffle's iteration counter).
  virtual std::unique_ptr<Iterator> make_iterator() const = 0;
  virtual int64_t cardinality() const = 0;
  // The nodes this one reads (none for a source), so Dataset can walk the
  // graph for its iteration state. Pure, so a new transformation cannot
  // forget to pass the walk on.
  virtual std::vector<const DatasetNode*> inputs() const = 0;
  // shuffle()'s count of iterations made, the graph's only mutable state;
  // null for every other node.
  virtual std::atomic<uint64_t>* iteration_counter() const { return nullptr; }
};

using NodePtr = std::shared_ptr<const DatasetNode>;

// An iterator that only returns `status`: how make_iterator(), which cannot
// fail, hands a failure to the first next().
std::unique_ptr<Iterator> make_error_iterator(Status status);

// Sources (dataset_sources.cc).
NodePtr make_arrays_node(std::vector<Tensor> arrays);  // validated, rank >= 1, one dim 0
NodePtr make_generator_node(std::function<std::unique_ptr<Iterator>()> make,
                            int64_t cardinality);

// Transformations (dataset_transforms.cc, shuffle.cc, prefetch.cc).
NodePtr make_batch_node(NodePtr input, int64_t batch_size, bool drop_remainder);
NodePtr make_shuffle_node(NodePtr input, int64_t buffer_size, uint64_t seed,
                          bool reshuffle_each_iteration);
NodePtr make_repeat_node(NodePtr input, int64_t count);
NodePtr make_shard_node(NodePtr input, int64_t num_shards, int64_t index);
NodePtr make_take_node(NodePtr input, int64_t count);
NodePtr make_prefetch_node(NodePtr input, int64_t buffer_size);

// Stacks elements along a new first axis (what batch() does), or explains
// which component of which element does not fit.
StatusOr<Element> stack_elements(const std::vector<Element>& elements);

}  // namespace strata::data_internal

#endif  // STRATA_CORE_DATA_DATASET_NODE_H_
