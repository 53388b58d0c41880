// A rendezvous key/value store, as core uses it. Store types come from the
// registry (core's built-ins or plugins) and are reached through AbiStore;
// PrefixStore gives each team its own key space.
#ifndef STRATA_CORE_CLUSTER_STORE_H_
#define STRATA_CORE_CLUSTER_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/common/clock.h"
#include "core/common/status.h"

namespace strata {

struct StoreTypeEntry;

class Store {
 public:
  virtual ~Store() = default;
  virtual Status set(std::string_view key, std::string_view value) = 0;
  // Waits until the key exists; TIMED_OUT naming the key at the deadline.
  virtual StatusOr<std::string> get(std::string_view key, Deadline deadline) = 0;
  virtual StatusOr<int64_t> add(std::string_view key, int64_t delta) = 0;
};

// Opens a store of a registered type at `address`.
StatusOr<std::unique_ptr<Store>> open_store(const StoreTypeEntry& type,
                                            std::string_view address, int rank,
                                            int world, Deadline deadline);

// Keys of `inner` under "<prefix>/"; does not own `inner`.
class PrefixStore final : public Store {
 public:
  PrefixStore(Store& inner, std::string prefix)
      : inner_(inner), prefix_(std::move(prefix)) {}
  Status set(std::string_view key, std::string_view value) override;
  StatusOr<std::string> get(std::string_view key, Deadline deadline) override;
  StatusOr<int64_t> add(std::string_view key, int64_t delta) override;

 private:
  std::string full(std::string_view key) const;
  Store& inner_;
  std::string prefix_;
};

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_STORE_H_
