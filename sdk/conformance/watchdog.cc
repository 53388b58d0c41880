#include "sdk/conformance/watchdog.h"

namespace strata::conformance {

Watchdog::Watchdog(std::function<void(const std::string&)> on_fire)
    : on_fire_(std::move(on_fire)), thread_([this] { loop(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Watchdog::arm(std::string what, std::chrono::nanoseconds limit) {
  {
    std::lock_guard lock(mu_);
    armed_ = true;
    what_ = std::move(what);
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(limit);
  }
  cv_.notify_all();
}

void Watchdog::disarm() {
  std::lock_guard lock(mu_);
  armed_ = false;
}

void Watchdog::loop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    if (!armed_) {
      cv_.wait(lock);
      continue;
    }
    const auto deadline = deadline_;
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && armed_ && !stop_ &&
        deadline_ == deadline) {
      const std::string what = what_;
      lock.unlock();
      on_fire_(what);  // does not return
      lock.lock();
    }
  }
}

}  // namespace strata::conformance
