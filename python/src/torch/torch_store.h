// The c10d Store torch hands a backend, as a Strata Store: the team of a
// process group forms, agrees on each call shape and beats its heartbeats
// through it, so no TF_CONFIG or job store of Strata's own is needed.
//
// c10d's TCPStore serialises every request on one lock and a missing key's
// get() blocks for the store's whole timeout (30 min), which would stall
// the heartbeats and torch's own _store_based_barrier. So get() polls
// check() with a growing pause up to its deadline, and never blocks.
#ifndef STRATA_PYTHON_SRC_TORCH_TORCH_STORE_H_
#define STRATA_PYTHON_SRC_TORCH_TORCH_STORE_H_

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <mutex>
#include <string>
#include <string_view>

#include "core/cluster/store.h"

namespace strata::python {

class TorchStore final : public Store {
 public:
  explicit TorchStore(c10::intrusive_ptr<c10d::Store> store) : store_(std::move(store)) {}

  Status set(std::string_view key, std::string_view value) override;
  StatusOr<std::string> get(std::string_view key, Deadline deadline) override;
  StatusOr<int64_t> add(std::string_view key, int64_t delta) override;

 private:
  // Runs one request on the c10d store; a c10d exception becomes
  // UNAVAILABLE naming the request and key.
  template <class Request>
  Status call(std::string_view what, std::string_view key, Request&& request);

  std::mutex mu_;  // one request at a time from our threads
  c10::intrusive_ptr<c10d::Store> store_;
};

}  // namespace strata::python

#endif  // STRATA_PYTHON_SRC_TORCH_TORCH_STORE_H_
