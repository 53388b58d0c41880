#include "ring_inbox.h"

#include "strata/sdk/error.h"

namespace strata::grpc_ring {

void Signal::notify() {
  {
    std::lock_guard lock(mu_);
    ++count_;
  }
  cv_.notify_all();
}

uint64_t Signal::mark() const {
  std::lock_guard lock(mu_);
  return count_;
}

void Signal::wait(uint64_t seen, std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock lock(mu_);
  cv_.wait_until(lock, deadline, [&] { return count_ != seen; });
}

bool Inbox::claim() {
  {
    std::lock_guard lock(mu_);
    if (claimed_) return false;
    claimed_ = true;
  }
  claimed_cv_.notify_all();
  signal_.notify();
  return true;
}

bool Inbox::wait_claimed(std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock lock(mu_);
  return claimed_cv_.wait_until(lock, deadline, [&] { return claimed_; });
}

void Inbox::push(grpc::ByteBuffer&& message) {
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    queue_.push_back(std::move(message));
  }
  signal_.notify();
}

void Inbox::close(strata_status_t code, const std::string& why) {
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    closed_ = true;
    code_ = code;
    why_ = why;
  }
  signal_.notify();
}

bool Inbox::pop(grpc::ByteBuffer* out) {
  std::lock_guard lock(mu_);
  if (!queue_.empty()) {
    *out = std::move(queue_.front());
    queue_.pop_front();
    return true;
  }
  if (closed_) throw sdk::Error(code_, why_);
  return false;
}

}  // namespace strata::grpc_ring
