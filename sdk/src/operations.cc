#include "strata/sdk/operations.h"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::sdk {

// Shared with the helper thread, so an abandoned call can finish after the
// operation object is gone.
struct BlockingOperation::Shared {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::exception_ptr error;
};

BlockingOperation::BlockingOperation(std::function<void()> work)
    : work_(std::move(work)), shared_(std::make_shared<Shared>()) {}

BlockingOperation::~BlockingOperation() = default;

void BlockingOperation::post() {
  std::thread([shared = shared_, work = work_, services = Host::services()] {
    HostScope scope(services);
    std::exception_ptr error;
    try {
      work();
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(shared->mu);
    shared->done = true;
    shared->error = error;
    shared->cv.notify_all();
  }).detach();
}

bool BlockingOperation::test() {
  std::lock_guard lock(shared_->mu);
  if (shared_->error) std::rethrow_exception(shared_->error);
  return shared_->done;
}

bool BlockingOperation::wait(std::chrono::nanoseconds timeout) {
  std::unique_lock lock(shared_->mu);
  shared_->cv.wait_for(lock, timeout, [&] { return shared_->done; });
  if (shared_->error) std::rethrow_exception(shared_->error);
  return shared_->done;
}

void BlockingOperation::abort() {
  // The backend call cannot be interrupted; it finishes on its own thread.
}

}  // namespace strata::sdk
