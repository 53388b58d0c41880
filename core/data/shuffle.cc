// shuffle(): tf.data's buffered shuffle. The random stream of an iteration
// is fixed by (seed, iteration number) alone, drawn with std::seed_seq,
// mt19937_64 and a modulo -- all three specified exactly by the standard,
// unlike the std:: distributions -- so a seed gives the same order on every
// platform and in every process of a multi-worker job.
#include <atomic>
#include <memory>
#include <random>
#include <utility>

#include "core/data/dataset_node.h"

namespace strata::data_internal {
namespace {

using Next = StatusOr<std::optional<Element>>;

std::mt19937_64 stream_for(uint64_t seed, uint64_t iteration) {
  std::seed_seq sequence{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                         static_cast<uint32_t>(iteration),
                         static_cast<uint32_t>(iteration >> 32)};
  return std::mt19937_64(sequence);
}

class ShuffleIterator final : public Iterator {
 public:
  ShuffleIterator(std::unique_ptr<Iterator> input, int64_t buffer_size, uint64_t seed,
                  uint64_t iteration)
      : input_(std::move(input)),
        buffer_size_(static_cast<size_t>(buffer_size)),
        rng_(stream_for(seed, iteration)) {}

  Next next() override {
    // Top the buffer up to its size (the first call fills it), then hand out
    // a uniformly chosen element; its slot is refilled on the next call.
    while (!input_done_ && buffer_.size() < buffer_size_) {
      Next element = input_->next();
      if (!element.ok()) return element.status();
      if (!element->has_value()) {
        input_done_ = true;
        break;
      }
      buffer_.push_back(std::move(**element));
    }
    if (buffer_.empty()) return std::optional<Element>();
    const size_t chosen = static_cast<size_t>(rng_() % buffer_.size());
    std::swap(buffer_[chosen], buffer_.back());
    Element out = std::move(buffer_.back());
    buffer_.pop_back();
    return std::optional<Element>(std::move(out));
  }

  void cancel() override { input_->cancel(); }

 private:
  std::unique_ptr<Iterator> input_;
  size_t buffer_size_;
  std::mt19937_64 rng_;
  std::vector<Element> buffer_;
  bool input_done_ = false;
};

class ShuffleNode final : public DatasetNode {
 public:
  ShuffleNode(NodePtr input, int64_t buffer_size, uint64_t seed, bool reshuffle_each_iteration)
      : input_(std::move(input)),
        buffer_size_(buffer_size),
        seed_(seed),
        reshuffle_each_iteration_(reshuffle_each_iteration) {}

  std::unique_ptr<Iterator> make_iterator() const override {
    // The one piece of mutable state in a Dataset, as in tf.data's seed
    // generator: which iteration this is. Atomic, since iterators may be
    // made from several threads.
    const uint64_t iteration = reshuffle_each_iteration_ ? iterations_.fetch_add(1) : 0;
    return std::make_unique<ShuffleIterator>(input_->make_iterator(), buffer_size_, seed_,
                                             iteration);
  }
  int64_t cardinality() const override { return input_->cardinality(); }
  std::vector<const DatasetNode*> inputs() const override { return {input_.get()}; }
  std::atomic<uint64_t>* iteration_counter() const override { return &iterations_; }

 private:
  NodePtr input_;
  int64_t buffer_size_;
  uint64_t seed_;
  bool reshuffle_each_iteration_;
  mutable std::atomic<uint64_t> iterations_{0};
};

}  // namespace

NodePtr make_shuffle_node(NodePtr input, int64_t buffer_size, uint64_t seed,
                          bool reshuffle_each_iteration) {
  return std::make_shared<ShuffleNode>(std::move(input), buffer_size, seed,
                                       reshuffle_each_iteration);
}

}  // namespace strata::data_internal
