// batch, repeat, shard and take: the transformations that only count
// elements. Each node makes its input's iterator when its own is made, so an
// iteration owns its whole chain and shares no state with another.
#include <algorithm>
#include <memory>
#include <mutex>
#include <utility>

#include "core/data/dataset_node.h"

namespace strata::data_internal {
namespace {

constexpr int64_t kInfinite = -1;
constexpr int64_t kUnknown = -2;

using Next = StatusOr<std::optional<Element>>;

Next end_of_sequence() { return std::optional<Element>(); }

// ---- batch -------------------------------------------------------------------

class BatchIterator final : public Iterator {
 public:
  BatchIterator(std::unique_ptr<Iterator> input, int64_t batch_size, bool drop_remainder)
      : input_(std::move(input)), batch_size_(batch_size), drop_remainder_(drop_remainder) {}

  Next next() override {
    if (input_done_) return end_of_sequence();
    std::vector<Element> pending;
    while (static_cast<int64_t>(pending.size()) < batch_size_) {
      Next element = input_->next();
      if (!element.ok()) return element.status();
      if (!element->has_value()) {
        input_done_ = true;
        break;
      }
      pending.push_back(std::move(**element));
    }
    if (pending.empty()) return end_of_sequence();
    if (drop_remainder_ && static_cast<int64_t>(pending.size()) < batch_size_) {
      return end_of_sequence();
    }
    StatusOr<Element> stacked = stack_elements(pending);
    if (!stacked.ok()) return stacked.status();
    return std::optional<Element>(std::move(stacked).value());
  }

  void cancel() override { input_->cancel(); }

 private:
  std::unique_ptr<Iterator> input_;
  int64_t batch_size_;
  bool drop_remainder_;
  bool input_done_ = false;
};

class BatchNode final : public DatasetNode {
 public:
  BatchNode(NodePtr input, int64_t batch_size, bool drop_remainder)
      : input_(std::move(input)), batch_size_(batch_size), drop_remainder_(drop_remainder) {}

  std::unique_ptr<Iterator> make_iterator() const override {
    return std::make_unique<BatchIterator>(input_->make_iterator(), batch_size_, drop_remainder_);
  }
  std::vector<const DatasetNode*> inputs() const override { return {input_.get()}; }
  int64_t cardinality() const override {
    const int64_t n = input_->cardinality();
    if (n < 0) return n;
    return drop_remainder_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
  }

 private:
  NodePtr input_;
  int64_t batch_size_;
  bool drop_remainder_;
};

// ---- repeat ------------------------------------------------------------------

class RepeatIterator final : public Iterator {
 public:
  RepeatIterator(NodePtr input, int64_t count) : input_(std::move(input)), count_(count) {}

  Next next() override {
    while (!finished()) {
      if (!current_) {
        // A fresh iterator per epoch: that is what reshuffles a shuffle()
        // upstream, and restarts a source from its first element.
        std::unique_ptr<Iterator> fresh = input_->make_iterator();
        const std::lock_guard<std::mutex> lock(current_mu_);
        if (cancelled_) fresh->cancel();
        current_ = std::move(fresh);
        produced_this_epoch_ = false;
      }
      Next element = current_->next();
      if (!element.ok() || element->has_value()) {
        if (element.ok()) produced_this_epoch_ = true;
        return element;
      }
      {
        const std::lock_guard<std::mutex> lock(current_mu_);
        current_.reset();
      }
      ++epochs_done_;
      // An epoch with no elements means every epoch has none: stop rather
      // than spin forever making empty iterators.
      if (!produced_this_epoch_) empty_input_ = true;
    }
    return end_of_sequence();
  }

  // Unlike the other wrappers, repeat replaces its input every epoch, so
  // cancel() (from another thread) and the swap take a lock; next() itself
  // runs the current input unlocked, as only this thread replaces it.
  void cancel() override {
    const std::lock_guard<std::mutex> lock(current_mu_);
    cancelled_ = true;
    if (current_) current_->cancel();
  }

 private:
  bool finished() const { return empty_input_ || (count_ >= 0 && epochs_done_ >= count_); }

  NodePtr input_;
  int64_t count_;
  std::mutex current_mu_;  // guards current_ against cancel(), and cancelled_
  std::unique_ptr<Iterator> current_;
  bool cancelled_ = false;
  int64_t epochs_done_ = 0;
  bool produced_this_epoch_ = false;
  bool empty_input_ = false;
};

class RepeatNode final : public DatasetNode {
 public:
  RepeatNode(NodePtr input, int64_t count) : input_(std::move(input)), count_(count) {}

  std::unique_ptr<Iterator> make_iterator() const override {
    return std::make_unique<RepeatIterator>(input_, count_);
  }
  std::vector<const DatasetNode*> inputs() const override { return {input_.get()}; }
  int64_t cardinality() const override {
    const int64_t n = input_->cardinality();
    if (count_ == 0 || n == 0) return 0;
    if (n == kUnknown) return kUnknown;
    if (count_ == kInfinite || n == kInfinite) return kInfinite;
    return n * count_;
  }

 private:
  NodePtr input_;
  int64_t count_;
};

// ---- shard -------------------------------------------------------------------

class ShardIterator final : public Iterator {
 public:
  ShardIterator(std::unique_ptr<Iterator> input, int64_t num_shards, int64_t index)
      : input_(std::move(input)), num_shards_(num_shards), index_(index) {}

  Next next() override {
    while (true) {
      Next element = input_->next();
      if (!element.ok() || !element->has_value()) return element;
      if (position_++ % num_shards_ == index_) return element;
    }
  }

  void cancel() override { input_->cancel(); }

 private:
  std::unique_ptr<Iterator> input_;
  int64_t num_shards_;
  int64_t index_;
  int64_t position_ = 0;  // of the next input element
};

class ShardNode final : public DatasetNode {
 public:
  ShardNode(NodePtr input, int64_t num_shards, int64_t index)
      : input_(std::move(input)), num_shards_(num_shards), index_(index) {}

  std::unique_ptr<Iterator> make_iterator() const override {
    return std::make_unique<ShardIterator>(input_->make_iterator(), num_shards_, index_);
  }
  std::vector<const DatasetNode*> inputs() const override { return {input_.get()}; }
  int64_t cardinality() const override {
    const int64_t n = input_->cardinality();
    if (n < 0) return n;
    return n / num_shards_ + (index_ < n % num_shards_ ? 1 : 0);
  }

 private:
  NodePtr input_;
  int64_t num_shards_;
  int64_t index_;
};

// ---- take --------------------------------------------------------------------

class TakeIterator final : public Iterator {
 public:
  TakeIterator(std::unique_ptr<Iterator> input, int64_t count)
      : input_(std::move(input)), count_(count) {}

  Next next() override {
    // Stop asking once the count is reached: the input may be infinite, or
    // expensive (a prefetch thread keeps working only while asked).
    if (count_ >= 0 && taken_ >= count_) return end_of_sequence();
    Next element = input_->next();
    if (element.ok() && element->has_value()) ++taken_;
    return element;
  }

  void cancel() override { input_->cancel(); }

 private:
  std::unique_ptr<Iterator> input_;
  int64_t count_;
  int64_t taken_ = 0;
};

class TakeNode final : public DatasetNode {
 public:
  TakeNode(NodePtr input, int64_t count) : input_(std::move(input)), count_(count) {}

  std::unique_ptr<Iterator> make_iterator() const override {
    return std::make_unique<TakeIterator>(input_->make_iterator(), count_);
  }
  std::vector<const DatasetNode*> inputs() const override { return {input_.get()}; }
  int64_t cardinality() const override {
    const int64_t n = input_->cardinality();
    if (count_ == kInfinite) return n;
    if (count_ == 0 || n == kInfinite) return count_;
    if (n == kUnknown) return kUnknown;
    return std::min(n, count_);
  }

 private:
  NodePtr input_;
  int64_t count_;
};

}  // namespace

NodePtr make_batch_node(NodePtr input, int64_t batch_size, bool drop_remainder) {
  return std::make_shared<BatchNode>(std::move(input), batch_size, drop_remainder);
}

NodePtr make_repeat_node(NodePtr input, int64_t count) {
  return std::make_shared<RepeatNode>(std::move(input), count);
}

NodePtr make_shard_node(NodePtr input, int64_t num_shards, int64_t index) {
  return std::make_shared<ShardNode>(std::move(input), num_shards, index);
}

NodePtr make_take_node(NodePtr input, int64_t count) {
  return std::make_shared<TakeNode>(std::move(input), count);
}

}  // namespace strata::data_internal
