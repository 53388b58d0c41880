// Ready-made Operation shapes for common backends.
#ifndef STRATA_SDK_OPERATIONS_H_
#define STRATA_SDK_OPERATIONS_H_

#include <functional>
#include <memory>
#include <string>

#include "strata/sdk/algorithm.h"

namespace strata::sdk {

// Does all its work inside post() on the calling thread: right for cheap
// host-side work that cannot wait on a peer.
class ImmediateOperation final : public Operation {
 public:
  explicit ImmediateOperation(std::function<void()> work)
      : work_(std::move(work)) {}
  void post() override { work_(); }
  bool test() override { return true; }

 private:
  std::function<void()> work_;
};

// Runs a blocking backend call on a helper thread so that core keeps control
// of the deadline. If core aborts, the thread is left to finish on its own:
// the call cannot be interrupted, so the team is broken afterwards and the
// buffers may still be written until the backend returns (rule 7).
class BlockingOperation : public Operation {
 public:
  explicit BlockingOperation(std::function<void()> work);
  ~BlockingOperation() override;
  void post() override;
  bool test() override;
  bool wait(std::chrono::nanoseconds timeout) override;
  void abort() override;

 private:
  struct Shared;
  std::function<void()> work_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace strata::sdk

#endif  // STRATA_SDK_OPERATIONS_H_
