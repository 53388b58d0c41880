// Everything plugins (and core's built-ins) registered: algorithms, device
// types, cluster resolvers and store types. Ids are "plugin/op/name" for
// algorithms and plain names for the rest; duplicates are refused.
//
// Tables are copied in and normalised: a plugin built against an older minor
// ABI has its missing trailing fields zeroed, a newer one has fields this
// host does not know ignored (sdk/README.md, rule 3).
#ifndef STRATA_CORE_PLUGIN_REGISTRY_H_
#define STRATA_CORE_PLUGIN_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/status.h"
#include "strata/abi/plugin.h"

namespace strata {

struct AlgorithmEntry {
  std::string id;      // "hierarchical_copy/all_reduce/ring"
  std::string plugin;  // "hierarchical_copy"
  std::string name;    // "ring"
  CollectiveKind op;
  strata_algorithm_t table;
  // Set once core has warned that estimate() answered NaN, an infinity or a
  // negative time: one warning per registration, not one per selection.
  mutable std::atomic<bool> bad_estimate_reported{false};
};

struct DeviceTypeEntry {
  uint32_t id;
  std::string name;
  std::string plugin;
  strata_device_type_t table;
};

struct ResolverEntry {
  std::string name;
  std::string plugin;
  strata_resolver_t table;
};

struct StoreTypeEntry {
  std::string name;
  std::string plugin;
  strata_store_type_t table;
};

class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Each add_* validates the table (name, required functions, size) first.
  Status add_algorithm(std::string_view plugin, const strata_algorithm_t& table);
  StatusOr<uint32_t> add_device_type(std::string_view plugin,
                                     const strata_device_type_t& table);
  Status add_resolver(std::string_view plugin, const strata_resolver_t& table);
  Status add_store_type(std::string_view plugin, const strata_store_type_t& table);

  // Removes everything `plugin` registered (a failed load's rollback, an unload;
  // the loader quiesces the call watchdog first). Device type ids are never reused.
  void remove_plugin(std::string_view plugin);

  // Lookups. Pointers stay valid until the owning plugin is removed.
  const AlgorithmEntry* find_algorithm(std::string_view id) const;
  std::vector<const AlgorithmEntry*> algorithms() const;  // sorted by id
  std::vector<const AlgorithmEntry*> algorithms_for(CollectiveKind op) const;
  const DeviceTypeEntry* device_type(uint32_t id) const;
  const DeviceTypeEntry* find_device_type(std::string_view name) const;
  std::vector<const DeviceTypeEntry*> device_types() const;
  const ResolverEntry* find_resolver(std::string_view name) const;
  std::vector<const ResolverEntry*> resolvers() const;
  const StoreTypeEntry* find_store_type(std::string_view name) const;
  std::vector<const StoreTypeEntry*> store_types() const;

  // Names of everything registered by `plugin`, for messages and tests.
  std::vector<std::string> registered_by(std::string_view plugin) const;

 private:
  mutable std::shared_mutex mu_;
  std::map<std::string, std::unique_ptr<AlgorithmEntry>, std::less<>> algorithms_;
  std::map<uint32_t, std::unique_ptr<DeviceTypeEntry>> device_types_;
  std::map<std::string, std::unique_ptr<ResolverEntry>, std::less<>> resolvers_;
  std::map<std::string, std::unique_ptr<StoreTypeEntry>, std::less<>> store_types_;
  uint32_t next_device_type_id_ = 1;
};

// True for names made of [a-z0-9_], 1 to 63 characters.
bool is_valid_name(std::string_view name);

}  // namespace strata

#endif  // STRATA_CORE_PLUGIN_REGISTRY_H_
