#include "strata/sdk/store_type.h"

#include <cstring>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::sdk {
namespace {

// An open store plus the services of the Runtime that opened it.
struct StoreHandle {
  const strata_host_services_t* services;
  std::unique_ptr<Store> store;
};
StoreHandle* store_handle(void* s) { return static_cast<StoreHandle*>(s); }
Store* as_store(void* s) { return store_handle(s)->store.get(); }

strata_status_t abi_open(void* ud, const char* address, int32_t rank, int32_t world,
                         int64_t deadline_ns, void** store, strata_message_t msg) {
  auto* type = static_cast<StoreType*>(ud);
  HostScope scope(type->host_services());
  return guard(msg, [&] {
    auto opened = type->open(address == nullptr ? "" : address, rank, world, deadline_ns);
    if (opened == nullptr) throw Error(STRATA_INTERNAL, "StoreType::open returned nullptr");
    *store = new StoreHandle{type->host_services(), std::move(opened)};
    return STRATA_OK;
  });
}

strata_status_t abi_set(void* s, const char* key, const void* value,
                    uint64_t length, strata_message_t msg) {
  HostScope scope(store_handle(s)->services);
  return guard(msg, [&] {
    as_store(s)->set(key, {static_cast<const char*>(value), length});
    return STRATA_OK;
  });
}

strata_status_t abi_get(void* s, const char* key, void* buf, uint64_t capacity,
                    uint64_t* length, int64_t deadline_ns, strata_message_t msg) {
  HostScope scope(store_handle(s)->services);
  return guard(msg, [&] {
    const std::string value = as_store(s)->get(key, deadline_ns);
    *length = value.size();
    if (value.size() > capacity) {
      write_message(msg, "value of " + std::to_string(value.size()) +
                             " bytes does not fit the buffer");
      return STRATA_INVALID_ARGUMENT;
    }
    if (!value.empty()) std::memcpy(buf, value.data(), value.size());
    return STRATA_OK;
  });
}

strata_status_t abi_add(void* s, const char* key, int64_t delta, int64_t* value,
                    strata_message_t msg) {
  HostScope scope(store_handle(s)->services);
  return guard(msg, [&] {
    *value = as_store(s)->add(key, delta);
    return STRATA_OK;
  });
}

void abi_close(void* s) {
  HostScope scope(store_handle(s)->services);
  delete store_handle(s);
}

}  // namespace

StoreType::StoreType(std::string name, std::string description)
    : name_(std::move(name)), description_(std::move(description)) {}

strata_store_type_t StoreType::table() {
  strata_store_type_t t{};
  t.struct_size = sizeof t;
  t.name = name_.c_str();
  t.description = description_.c_str();
  t.user_data = this;
  t.open = &abi_open;
  t.set = &abi_set;
  t.get = &abi_get;
  t.add = &abi_add;
  t.close = &abi_close;
  return t;
}

}  // namespace strata::sdk
