#include "python/src/torch/torch_store.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <thread>
#include <vector>

namespace strata::python {

template <class Request>
Status TorchStore::call(std::string_view what, std::string_view key, Request&& request) {
  try {
    std::lock_guard<std::mutex> lock(mu_);
    request();
    return Status();
  } catch (const std::exception& e) {
    return UnavailableError("c10d store: " + std::string(what) + " of key '" + std::string(key) +
                            "' failed: " + e.what());
  }
}

Status TorchStore::set(std::string_view key, std::string_view value) {
  const std::vector<uint8_t> bytes(value.begin(), value.end());
  return call("set", key, [&] { store_->set(std::string(key), bytes); });
}

StatusOr<int64_t> TorchStore::add(std::string_view key, int64_t delta) {
  int64_t value = 0;
  STRATA_RETURN_IF_ERROR(
      call("add", key, [&] { value = store_->add(std::string(key), delta); }));
  return value;
}

StatusOr<std::string> TorchStore::get(std::string_view key, Deadline deadline) {
  const std::string name(key);
  const std::vector<std::string> keys{name};
  auto pause = std::chrono::microseconds(50);
  for (;;) {
    bool present = false;
    STRATA_RETURN_IF_ERROR(call("check", key, [&] { present = store_->check(keys); }));
    if (present) break;
    const auto now = Clock::now();
    if (now >= deadline) {
      return TimedOutError("c10d store: key '" + name +
                           "' was not set by the deadline (a peer that never arrived, or one "
                           "that called something else)");
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, std::chrono::microseconds(5000));
  }
  std::vector<uint8_t> value;
  STRATA_RETURN_IF_ERROR(call("get", key, [&] { value = store_->get(name); }));
  return std::string(value.begin(), value.end());
}

}  // namespace strata::python
