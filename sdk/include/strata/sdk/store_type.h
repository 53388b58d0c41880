// Implementing a rendezvous store type in C++.
#ifndef STRATA_SDK_STORE_TYPE_H_
#define STRATA_SDK_STORE_TYPE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "strata/abi/registrar.h"
#include "strata/abi/store.h"

namespace strata::sdk {

// One open connection. Deadlines are absolute, on the host's now_ns clock.
class Store {
 public:
  virtual ~Store() = default;
  virtual void set(std::string_view key, std::string_view value) = 0;
  // Blocks until the key exists; throws sdk::Error(TIMED_OUT) at deadline.
  virtual std::string get(std::string_view key, int64_t deadline_ns) = 0;
  virtual int64_t add(std::string_view key, int64_t delta) = 0;
};

class StoreType {
 public:
  StoreType(std::string name, std::string description);
  virtual ~StoreType() = default;
  StoreType(const StoreType&) = delete;
  StoreType& operator=(const StoreType&) = delete;

  virtual std::unique_ptr<Store> open(std::string_view address, int rank,
                                      int world, int64_t deadline_ns) = 0;

  const std::string& name() const { return name_; }
  strata_store_type_t table();

  // Set by sdk::Registrar: the services of the Runtime this object belongs
  // to, made current around every call into it.
  void bind_host(const strata_host_services_t* services) { services_ = services; }
  const strata_host_services_t* host_services() const { return services_; }

 private:
  const strata_host_services_t* services_ = nullptr;
  std::string name_;
  std::string description_;
};

}  // namespace strata::sdk

#endif  // STRATA_SDK_STORE_TYPE_H_
