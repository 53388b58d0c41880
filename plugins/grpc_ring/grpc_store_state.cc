#include "grpc_store_state.h"

#include <charconv>
#include <vector>

#include "strata/sdk/error.h"

namespace strata::grpc_ring {
namespace {

using Parked = std::vector<std::shared_ptr<GrpcStoreState::Waiter>>;

// Replies go out with the lock released: a reply starts a gRPC write.
void answer_all(const Parked& parked, const std::string* value) {
  for (const auto& w : parked) {
    if (w->claim()) w->answer(value);
  }
}

}  // namespace

GrpcStoreState::GrpcStoreState(GrpcStoreLimits limits)
    : quota_(limits), timer_([this] { expire_loop(); }) {}

GrpcStoreState::~GrpcStoreState() {
  release_all();
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  timer_cv_.notify_all();
  timer_.join();
}

void GrpcStoreState::set(const std::string& key, std::string value, int rank) {
  Parked parked;
  {
    std::lock_guard lock(mu_);
    auto slot = values_.find(key);
    const bool new_key = slot == values_.end();
    quota_.admit_set(key, new_key, value.size(), rank);
    quota_.stored(key, new_key, new_key ? 0 : slot->second.size(), value.size());
    if (new_key) slot = values_.emplace(key, std::string()).first;
    slot->second = value;
    auto range = by_key_.equal_range(key);
    for (auto it = range.first; it != range.second; ++it) parked.push_back(it->second);
    by_key_.erase(range.first, range.second);
  }
  answer_all(parked, &value);
}

std::optional<std::string> GrpcStoreState::get_or_park(const std::string& key,
                                                       std::chrono::milliseconds wait,
                                                       const std::shared_ptr<Waiter>& waiter) {
  {
    std::lock_guard lock(mu_);
    if (auto it = values_.find(key); it != values_.end()) return it->second;
    if (!releasing_ && wait.count() > 0) {
      by_key_.emplace(key, waiter);
      by_deadline_.emplace(Clock::now() + wait, std::make_pair(key, waiter));
      timer_cv_.notify_all();
      return std::nullopt;
    }
  }
  if (waiter->claim()) waiter->answer(nullptr);
  return std::nullopt;
}

int64_t GrpcStoreState::add(const std::string& key, int64_t delta, int rank) {
  Parked parked;
  int64_t sum = 0;
  {
    std::lock_guard lock(mu_);
    const bool new_key = values_.find(key) == values_.end();
    if (new_key) quota_.admit_new_key(key, rank);
    std::string& slot = values_[key];
    if (new_key) quota_.stored(key, true, 0, 0);
    // The same rules as core's stores: missing or empty is 0.
    int64_t number = 0;
    if (!slot.empty()) {
      const auto [end, ec] = std::from_chars(slot.data(), slot.data() + slot.size(), number);
      if (ec != std::errc() || end != slot.data() + slot.size()) {
        throw sdk::InvalidArgument("key '" + key + "' holds '" + slot.substr(0, 64) +
                                   "', which is not an integer");
      }
    }
    if (__builtin_add_overflow(number, delta, &sum)) {
      throw sdk::InvalidArgument("adding " + std::to_string(delta) + " to key '" + key + "' (" +
                                 slot.substr(0, 64) + ") would overflow");
    }
    const std::string text = std::to_string(sum);
    quota_.stored(key, false, slot.size(), text.size());
    slot = text;
    // A get parked on a counter is answered like one parked on a set.
    auto range = by_key_.equal_range(key);
    for (auto it = range.first; it != range.second; ++it) parked.push_back(it->second);
    by_key_.erase(range.first, range.second);
  }
  const std::string text = std::to_string(sum);
  answer_all(parked, &text);
  return sum;
}

void GrpcStoreState::release_all() {
  Parked parked;
  {
    std::lock_guard lock(mu_);
    releasing_ = true;
    for (auto& [key, w] : by_key_) parked.push_back(w);
    by_key_.clear();
    by_deadline_.clear();
  }
  answer_all(parked, nullptr);
}

bool GrpcStoreState::releasing() {
  std::lock_guard lock(mu_);
  return releasing_;
}

uint64_t GrpcStoreState::held_bytes() {
  std::lock_guard lock(mu_);
  return quota_.bytes();
}

uint64_t GrpcStoreState::held_keys() {
  std::lock_guard lock(mu_);
  return quota_.keys();
}

void GrpcStoreState::expire_loop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    if (by_deadline_.empty()) {
      timer_cv_.wait(lock);
      continue;
    }
    const auto first = by_deadline_.begin()->first;
    if (Clock::now() < first) {
      timer_cv_.wait_until(lock, first);
      continue;
    }
    Parked expired;
    while (!by_deadline_.empty() && by_deadline_.begin()->first <= Clock::now()) {
      auto node = by_deadline_.extract(by_deadline_.begin());
      const auto& [key, waiter] = node.mapped();
      auto range = by_key_.equal_range(key);
      for (auto it = range.first; it != range.second; ++it) {
        if (it->second == waiter) {
          by_key_.erase(it);
          break;
        }
      }
      expired.push_back(waiter);
    }
    lock.unlock();
    answer_all(expired, nullptr);
    lock.lock();
  }
}

}  // namespace strata::grpc_ring
