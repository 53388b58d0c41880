// Iterator: one pass over a Dataset. A Dataset is an immutable description
// of a pipeline; make_iterator() builds the chain of iterators that does the
// work, so the same Dataset can be iterated many times, from several threads
// at once, each iteration with its own state.
#ifndef STRATA_CORE_DATA_ITERATOR_H_
#define STRATA_CORE_DATA_ITERATOR_H_

#include <optional>
#include <vector>

#include "core/common/status.h"
#include "core/tensor/tensor.h"

namespace strata {

// One element of a dataset: its components, e.g. {features, labels}.
using Element = std::vector<Tensor>;

class Iterator {
 public:
  virtual ~Iterator() = default;
  Iterator() = default;
  Iterator(const Iterator&) = delete;
  Iterator& operator=(const Iterator&) = delete;

  // The next element; nullopt at the end of the sequence (and on every call
  // after it). An error is returned again by later calls: a pipeline that
  // failed does not quietly carry on. Not thread-safe: one consumer.
  virtual StatusOr<std::optional<Element>> next() = 0;

  // Asks a blocked or later next() to return ABORTED soon. Safe to call from
  // any thread, at any time. Only prefetch ever waits; the other stages pass
  // the call on to their input, so cancelling the outermost iterator reaches
  // every prefetch in the pipeline. A source that never blocks may ignore
  // it: its next() returns by itself.
  virtual void cancel() {}
};

}  // namespace strata

#endif  // STRATA_CORE_DATA_ITERATOR_H_
