// Dataset: an input pipeline with tf.data's semantics, small enough to read.
//
//   STRATA_ASSIGN_OR_RETURN(Dataset ds, Dataset::from_arrays({features, labels}));
//   STRATA_ASSIGN_OR_RETURN(ds, ds.shuffle(1024, /*seed=*/7));
//   STRATA_ASSIGN_OR_RETURN(ds, ds.batch(64));
//   STRATA_ASSIGN_OR_RETURN(ds, ds.prefetch(2));
//   auto it = ds.make_iterator();
//   while (true) {
//     STRATA_ASSIGN_OR_RETURN(std::optional<Element> batch, it->next());
//     if (!batch) break;
//     ...
//   }
//
// A Dataset is an immutable value: transformations return a new Dataset and
// share the old one's (immutable) description, so copies are cheap and
// iterating one never changes another. Nothing runs until an iterator asks
// for an element. Bad arguments are reported by the transformation itself
// (INVALID_ARGUMENT); errors while producing elements by next().
#ifndef STRATA_CORE_DATA_DATASET_H_
#define STRATA_CORE_DATA_DATASET_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "core/common/status.h"
#include "core/data/iterator.h"
#include "core/tensor/tensor.h"

namespace strata {

namespace data_internal {
class DatasetNode;
}  // namespace data_internal

class Dataset {
 public:
  static constexpr int64_t kInfiniteCardinality = -1;
  static constexpr int64_t kUnknownCardinality = -2;

  // One element per row: element i is {arrays[0][i], arrays[1][i], ...},
  // each component shaped like its array without axis 0. Every array must
  // have rank >= 1 and the same first dimension. The arrays are shared by
  // all copies and iterators, not copied.
  static StatusOr<Dataset> from_arrays(std::vector<Tensor> arrays);

  // Elements from a user-supplied iterator; `make` is called once per
  // iteration (and by repeat() once per epoch), from the thread that calls
  // make_iterator() -- or a prefetch thread. For sources the pipeline does
  // not know, and for tests.
  static Dataset from_generator(std::function<std::unique_ptr<Iterator>()> make,
                                int64_t cardinality = kUnknownCardinality);

  // Stacks `batch_size` consecutive elements: a component shaped S becomes
  // [batch_size, S...]. The last, smaller batch is kept unless
  // drop_remainder. Components of one batch must share a shape (an error
  // from next() otherwise). batch_size >= 1.
  StatusOr<Dataset> batch(int64_t batch_size, bool drop_remainder = false) const;

  // tf.data's buffered shuffle: a buffer of `buffer_size` elements, each
  // output drawn uniformly from it and replaced by the next input. A buffer
  // at least the dataset's size gives a uniform permutation. The order is a
  // function of (seed, iteration): the k-th iteration over this shuffle --
  // through any copy or any dataset built on it -- uses iteration k, so
  // each epoch of a repeat() after
  // shuffle() is reshuffled, and two Datasets built alike give the same
  // epochs in the same order. With reshuffle_each_iteration false every
  // iteration uses iteration 0. buffer_size >= 1.
  StatusOr<Dataset> shuffle(int64_t buffer_size, uint64_t seed,
                            bool reshuffle_each_iteration = true) const;

  // The whole dataset `count` times; -1 repeats forever. An input that turns
  // out empty ends the repetition instead of spinning. count >= -1.
  StatusOr<Dataset> repeat(int64_t count = -1) const;

  // Elements index, index + num_shards, index + 2 * num_shards, ...
  // (tf.data's shard: each worker takes one shard; shard before shuffling
  // so that the shards do not overlap). 0 <= index < num_shards.
  StatusOr<Dataset> shard(int64_t num_shards, int64_t index) const;

  // The first `count` elements; -1 takes all. count >= -1.
  StatusOr<Dataset> take(int64_t count) const;

  // Produces up to `buffer_size` elements ahead on a background thread, so
  // the pipeline's work overlaps the consumer's. Same elements, same order,
  // same errors as without it. Destroying the iterator stops and joins the
  // thread. buffer_size >= 1.
  StatusOr<Dataset> prefetch(int64_t buffer_size) const;

  // Never fails: errors, including a thread that could not be started,
  // come from next().
  std::unique_ptr<Iterator> make_iterator() const;

  // Number of elements when it can be known without iterating;
  // kInfiniteCardinality or kUnknownCardinality otherwise.
  int64_t cardinality() const;

  // Where the pipeline stands between iterations: for each shuffle() in it
  // (walking from this dataset towards the source, inputs in order), how
  // many iterations it has made, which fixes the order of its next one.
  // Model::fit saves it with a checkpoint's position so that a resumed run
  // replays an interrupted epoch in the same order. Sources keep no state:
  // from_arrays is a pure function of the index, and a generator must be
  // one of its call count for a resume to be exact.
  std::vector<uint64_t> iteration_state() const;
  // Sets the counters iteration_state() read, on every copy of this
  // dataset (they share the nodes). InvalidArgument, changing nothing,
  // when `state` has another length than this pipeline's shuffle count.
  // Not while an iterator over the dataset is being made.
  Status restore_iteration_state(std::span<const uint64_t> state) const;

 private:
  explicit Dataset(std::shared_ptr<const data_internal::DatasetNode> node)
      : node_(std::move(node)) {}

  std::shared_ptr<const data_internal::DatasetNode> node_;
};

}  // namespace strata

#endif  // STRATA_CORE_DATA_DATASET_H_
