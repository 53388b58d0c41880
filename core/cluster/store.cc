#include "core/cluster/store.h"

#include "core/plugin/abi_status.h"
#include "core/plugin/registry.h"

namespace strata {
namespace {

// A store reached through a registered strata_store_type_t.
class AbiStore final : public Store {
 public:
  AbiStore(const StoreTypeEntry& type, void* handle) : type_(type), handle_(handle) {}
  ~AbiStore() override { type_.table.close(handle_); }

  Status set(std::string_view key, std::string_view value) override {
    AbiMessage m;
    const std::string k(key);
    return from_abi(type_.table.set(handle_, k.c_str(), value.data(), value.size(), m.view()),
                    m, what("set", k));
  }

  StatusOr<std::string> get(std::string_view key, Deadline deadline) override {
    const std::string k(key);
    std::string value(1024, '\0');
    for (;;) {
      AbiMessage m;
      uint64_t length = 0;
      const strata_status_t st = type_.table.get(handle_, k.c_str(), value.data(),
                                                 value.size(), &length,
                                                 to_ns(deadline), m.view());
      if (st == STRATA_INVALID_ARGUMENT && length > value.size()) {
        value.resize(length);
        continue;
      }
      STRATA_RETURN_IF_ERROR(from_abi(st, m, what("get", k)));
      value.resize(length);
      return value;
    }
  }

  StatusOr<int64_t> add(std::string_view key, int64_t delta) override {
    AbiMessage m;
    const std::string k(key);
    int64_t out = 0;
    STRATA_RETURN_IF_ERROR(
        from_abi(type_.table.add(handle_, k.c_str(), delta, &out, m.view()), m, what("add", k)));
    return out;
  }

 private:
  std::string what(std::string_view fn, std::string_view key) const {
    return "store '" + type_.name + "' " + std::string(fn) + " '" + std::string(key) + "'";
  }
  const StoreTypeEntry& type_;
  void* handle_;
};

}  // namespace

StatusOr<std::unique_ptr<Store>> open_store(const StoreTypeEntry& type,
                                            std::string_view address, int rank,
                                            int world, Deadline deadline) {
  AbiMessage m;
  void* handle = nullptr;
  const std::string addr(address);
  STRATA_RETURN_IF_ERROR(from_abi(
      type.table.open(type.table.user_data, addr.c_str(), rank, world, to_ns(deadline),
                      &handle, m.view()),
      m, "opening store '" + type.name + "' at '" + addr + "'"));
  return std::unique_ptr<Store>(std::make_unique<AbiStore>(type, handle));
}

std::string PrefixStore::full(std::string_view key) const {
  return prefix_ + "/" + std::string(key);
}

Status PrefixStore::set(std::string_view key, std::string_view value) {
  return inner_.set(full(key), value);
}

StatusOr<std::string> PrefixStore::get(std::string_view key, Deadline deadline) {
  return inner_.get(full(key), deadline);
}

StatusOr<int64_t> PrefixStore::add(std::string_view key, int64_t delta) {
  return inner_.add(full(key), delta);
}

}  // namespace strata
