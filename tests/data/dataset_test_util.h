// Shared helpers for the dataset tests: a numbered dataset whose elements
// say where they came from, ways to drain an iterator, and generator
// iterators that fail, throw or block on purpose.
#ifndef STRATA_TESTS_DATA_DATASET_TEST_UTIL_H_
#define STRATA_TESTS_DATA_DATASET_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/data/dataset.h"

namespace strata::testing_data {

// Element i is {features [2] = {i, 100 + i}, label [] = i}.
inline Dataset numbered(int64_t n) {
  Tensor features({n, 2});
  Tensor labels({n});
  for (int64_t i = 0; i < n; ++i) {
    features.at(i, 0) = static_cast<float>(i);
    features.at(i, 1) = static_cast<float>(100 + i);
    labels[i] = static_cast<float>(i);
  }
  return *Dataset::from_arrays({features, labels});
}

// Every element, or the first error.
inline StatusOr<std::vector<Element>> drain(Iterator& it, int64_t limit = 1 << 20) {
  std::vector<Element> out;
  for (int64_t i = 0; i < limit; ++i) {
    StatusOr<std::optional<Element>> next = it.next();
    if (!next.ok()) return next.status();
    if (!next->has_value()) return out;
    out.push_back(std::move(**next));
  }
  return out;
}

inline StatusOr<std::vector<Element>> drain(const Dataset& ds) {
  return drain(*ds.make_iterator());
}

// The label of each element (for numbered() datasets, its original index).
inline std::vector<int64_t> labels_of(const std::vector<Element>& elements) {
  std::vector<int64_t> out;
  for (const Element& e : elements) {
    for (float v : e.back().values()) out.push_back(static_cast<int64_t>(v));
  }
  return out;
}

inline std::vector<int64_t> labels_of(const Dataset& ds) {
  StatusOr<std::vector<Element>> all = drain(ds);
  EXPECT_TRUE(all.ok()) << all.status();
  return all.ok() ? labels_of(*all) : std::vector<int64_t>{};
}

// Yields {i} for i in [0, n) through `produce`, which may fail, throw or
// block instead (it sees i).
class ScriptedIterator : public Iterator {
 public:
  using Step = std::function<StatusOr<std::optional<Element>>(int64_t)>;
  explicit ScriptedIterator(Step step) : step_(std::move(step)) {}
  StatusOr<std::optional<Element>> next() override { return step_(i_++); }

 private:
  Step step_;
  int64_t i_ = 0;
};

inline Element scalar_element(int64_t i) { return {Tensor::scalar(static_cast<float>(i))}; }

// n elements, then `error` (again on every later call).
inline Dataset failing_after(int64_t n, Status error) {
  return Dataset::from_generator([n, error] {
    return std::make_unique<ScriptedIterator>(
        [n, error](int64_t i) -> StatusOr<std::optional<Element>> {
          if (i < n) return std::optional<Element>(scalar_element(i));
          return error;
        });
  });
}

// Counts to infinity, each element taking `delay`.
inline Dataset slow_counter(std::chrono::milliseconds delay) {
  return Dataset::from_generator([delay] {
    return std::make_unique<ScriptedIterator>(
        [delay](int64_t i) -> StatusOr<std::optional<Element>> {
          std::this_thread::sleep_for(delay);
          return std::optional<Element>(scalar_element(i));
        });
  }, Dataset::kInfiniteCardinality);
}

// Blocks in next() until cancelled, then reports ABORTED: a source waiting
// on something that never comes (a socket, a file system).
class BlockingIterator : public Iterator {
 public:
  StatusOr<std::optional<Element>> next() override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return cancelled_; });
    return AbortedError("blocking source cancelled");
  }
  void cancel() override {
    const std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool cancelled_ = false;
};

}  // namespace strata::testing_data

#endif  // STRATA_TESTS_DATA_DATASET_TEST_UTIL_H_
