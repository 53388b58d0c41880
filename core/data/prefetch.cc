// prefetch(): a producer thread runs the input pipeline ahead of the
// consumer into a bounded queue. It must not change what the pipeline
// yields (same elements, order and errors), must never leave a thread
// behind, and must never wait on something nobody will signal:
//   - the producer waits only for room in the queue, and cancel() (called
//     by the destructor) wakes it;
//   - the consumer waits only for the producer, which always ends with an
//     element, the end, or an error; cancel() wakes it too;
//   - the destructor cancels, passes the cancel on to the input (so a
//     prefetch upstream stops waiting as well) and joins.
// Exceptions from the input (std::bad_alloc, a generator that throws) are
// caught on the producer thread, where they would otherwise terminate the
// process, and delivered as errors.
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "core/data/dataset_node.h"

namespace strata::data_internal {
namespace {

using Next = StatusOr<std::optional<Element>>;

Next pull(Iterator& input) {
  try {
    return input.next();
  } catch (const std::exception& e) {
    return InternalError(std::string("prefetch: the input pipeline threw: ") + e.what());
  } catch (...) {
    return InternalError("prefetch: the input pipeline threw a non-standard exception");
  }
}

class PrefetchIterator final : public Iterator {
 public:
  PrefetchIterator(std::unique_ptr<Iterator> input, size_t capacity)
      : input_(std::move(input)), capacity_(capacity) {}

  ~PrefetchIterator() override {
    cancel();
    if (worker_.joinable()) worker_.join();
  }

  // Separate from the constructor so that `this` is complete before the
  // thread sees it, and so a failure to start is an error, not a throw.
  void start() {
    try {
      worker_ = std::thread([this] { produce(); });
    } catch (const std::system_error& e) {
      const std::lock_guard<std::mutex> lock(mu_);
      error_ = UnavailableError(std::string("prefetch: cannot start the prefetch thread: ") +
                                e.what());
      finished_ = true;
    }
  }

  Next next() override {
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait(lock, [this] { return cancelled_ || finished_ || !queue_.empty(); });
    if (cancelled_) return AbortedError("prefetch: the iterator was cancelled");
    if (!queue_.empty()) {
      Element element = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      not_full_.notify_one();
      return std::optional<Element>(std::move(element));
    }
    // Finished and drained: the end, or the input's error, every time.
    if (error_) return *error_;
    return std::optional<Element>();
  }

  void cancel() override {
    {
      const std::lock_guard<std::mutex> lock(mu_);
      cancelled_ = true;
    }
    not_empty_.notify_all();
    not_full_.notify_all();
    input_->cancel();  // input_ is never reassigned, so this is safe from any thread
  }

 private:
  void produce() {
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        not_full_.wait(lock, [this] { return cancelled_ || queue_.size() < capacity_; });
        if (cancelled_) return;
      }
      // The input runs unlocked: the consumer takes elements meanwhile.
      Next element = pull(*input_);
      bool done = false;
      {
        const std::lock_guard<std::mutex> lock(mu_);
        if (!element.ok()) {
          error_ = element.status();
          done = true;
        } else if (!element->has_value()) {
          done = true;
        } else {
          queue_.push_back(std::move(**element));
        }
        finished_ = done;
      }
      not_empty_.notify_one();
      if (done) return;
    }
  }

  std::unique_ptr<Iterator> input_;  // used by the producer thread only (and cancel())
  const size_t capacity_;

  std::mutex mu_;
  std::condition_variable not_empty_;  // the consumer waits on it
  std::condition_variable not_full_;   // the producer waits on it
  std::deque<Element> queue_;
  std::optional<Status> error_;
  bool finished_ = false;   // the producer has stopped: end or error
  bool cancelled_ = false;  // cancel() or the destructor

  std::thread worker_;  // last: started after, and joined before, the rest is gone
};

class PrefetchNode final : public DatasetNode {
 public:
  PrefetchNode(NodePtr input, int64_t buffer_size)
      : input_(std::move(input)), buffer_size_(buffer_size) {}

  std::unique_ptr<Iterator> make_iterator() const override {
    auto it = std::make_unique<PrefetchIterator>(input_->make_iterator(),
                                                 static_cast<size_t>(buffer_size_));
    it->start();
    return it;
  }
  int64_t cardinality() const override { return input_->cardinality(); }
  std::vector<const DatasetNode*> inputs() const override { return {input_.get()}; }

 private:
  NodePtr input_;
  int64_t buffer_size_;
};

}  // namespace

NodePtr make_prefetch_node(NodePtr input, int64_t buffer_size) {
  return std::make_shared<PrefetchNode>(std::move(input), buffer_size);
}

}  // namespace strata::data_internal
