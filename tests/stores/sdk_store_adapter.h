// A core Store over an sdk::Store, turning its exceptions into statuses the
// way the SDK's trampolines do: lets a test, or strata_store_peer, use a
// store it opened itself (rank 0 hosting a TCP store on port 0, to learn the
// real port) where core expects a Store. No gtest here: strata_store_peer
// is not a test binary.
#ifndef STRATA_TESTS_STORES_SDK_STORE_ADAPTER_H_
#define STRATA_TESTS_STORES_SDK_STORE_ADAPTER_H_

#include <memory>
#include <string>
#include <string_view>

#include "core/cluster/store.h"
#include "core/common/clock.h"
#include "strata/sdk/error.h"
#include "strata/sdk/store_type.h"

namespace strata::testing {

class SdkStoreAdapter final : public Store {
 public:
  explicit SdkStoreAdapter(std::unique_ptr<sdk::Store> inner) : inner_(std::move(inner)) {}
  sdk::Store& inner() { return *inner_; }
  void close() { inner_.reset(); }

  Status set(std::string_view key, std::string_view value) override {
    return run([&] { inner_->set(key, value); return 0; }).status();
  }
  StatusOr<std::string> get(std::string_view key, Deadline deadline) override {
    return run([&] { return inner_->get(key, to_ns(deadline)); });
  }
  StatusOr<int64_t> add(std::string_view key, int64_t delta) override {
    return run([&] { return inner_->add(key, delta); });
  }

 private:
  template <class F>
  static auto run(F&& f) -> StatusOr<decltype(f())> {
    try {
      return f();
    } catch (const sdk::Error& e) {
      return Status(static_cast<Code>(e.code()), e.what());
    }
  }
  std::unique_ptr<sdk::Store> inner_;
};

}  // namespace strata::testing

#endif  // STRATA_TESTS_STORES_SDK_STORE_ADAPTER_H_
