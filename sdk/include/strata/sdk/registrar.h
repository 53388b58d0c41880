// The C++ face of strata_registrar_t: registers objects and keeps them alive
// for as long as the plugin is loaded.
#ifndef STRATA_SDK_REGISTRAR_H_
#define STRATA_SDK_REGISTRAR_H_

#include <memory>
#include <utility>
#include <vector>

#include "strata/abi/registrar.h"
#include "strata/sdk/algorithm.h"
#include "strata/sdk/device_type.h"
#include "strata/sdk/resolver.h"
#include "strata/sdk/store_type.h"

namespace strata::sdk {

// Owns what a plugin registered. Released when the plugin unloads, or when
// registration fails (then core has already rolled the tables back).
class Keeper {
 public:
  void keep(std::shared_ptr<void> object) { objects_.push_back(std::move(object)); }
  void clear() noexcept { objects_.clear(); }

 private:
  std::vector<std::shared_ptr<void>> objects_;
};

class Registrar {
 public:
  Registrar(const strata_registrar_t* raw, Keeper& keeper)
      : raw_(raw), keeper_(keeper) {}

  // Each add_* throws sdk::Error when core refuses the table.
  void add_algorithm(std::unique_ptr<Algorithm> algorithm);
  uint32_t add_device_type(std::unique_ptr<DeviceType> type);
  void add_resolver(std::unique_ptr<Resolver> resolver);
  void add_store_type(std::unique_ptr<StoreType> store_type);

  template <class A, class... Args>
  void add(Args&&... args) {
    add_algorithm(std::make_unique<A>(std::forward<Args>(args)...));
  }

  const strata_host_services_t* services() const { return raw_->services; }

 private:
  const strata_registrar_t* raw_;
  Keeper& keeper_;
};

}  // namespace strata::sdk

#endif  // STRATA_SDK_REGISTRAR_H_
