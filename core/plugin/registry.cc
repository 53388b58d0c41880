#include "core/plugin/registry.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <mutex>

#include "core/common/logging.h"

namespace strata {
namespace {

// The size of each table in ABI 1.0. Later minors append fields, so these
// stay fixed: a table smaller than this cannot be a 1.x table.
constexpr size_t kAlgorithmV1Size =
    offsetof(strata_algorithm_t, destroy) + sizeof(void*);
constexpr size_t kDeviceTypeV1Size =
    offsetof(strata_device_type_t, synchronize) + sizeof(void*);
constexpr size_t kResolverV1Size =
    offsetof(strata_resolver_t, resolve) + sizeof(void*);
constexpr size_t kStoreTypeV1Size =
    offsetof(strata_store_type_t, close) + sizeof(void*);

// Copies the prefix of `raw` both sides know into a zeroed table.
template <class T>
StatusOr<T> normalise(const T& raw, size_t v1_size, std::string_view what) {
  if (raw.struct_size < v1_size) {
    return InvalidArgumentError(std::string(what) + " table has struct_size " +
                                std::to_string(raw.struct_size) +
                                ", smaller than ABI 1.0's " + std::to_string(v1_size) +
                                " (uninitialised struct_size?)");
  }
  T table{};
  std::memcpy(&table, &raw, std::min(raw.struct_size, sizeof(T)));
  table.struct_size = sizeof(T);
  return table;
}

Status require(bool present, std::string_view what, std::string_view field) {
  if (present) return Status::Ok();
  return InvalidArgumentError(std::string(what) + " is missing required function '" +
                              std::string(field) + "'");
}

Status check_name(const char* name, std::string_view what) {
  if (name != nullptr && is_valid_name(name)) return Status::Ok();
  return InvalidArgumentError(std::string(what) + " has an invalid name '" +
                              (name == nullptr ? "(null)" : name) +
                              "'; names are 1-63 characters of [a-z0-9_]");
}

}  // namespace

bool is_valid_name(std::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

Status Registry::add_algorithm(std::string_view plugin,
                               const strata_algorithm_t& raw) {
  STRATA_ASSIGN_OR_RETURN(strata_algorithm_t t,
                          normalise(raw, kAlgorithmV1Size, "algorithm"));
  STRATA_RETURN_IF_ERROR(check_name(t.name, "algorithm"));
  if (t.op < 0 || t.op >= STRATA_OP_COUNT) {
    return InvalidArgumentError("algorithm '" + std::string(t.name) +
                                "' has unknown op " + std::to_string(t.op));
  }
  constexpr uint32_t kAllScopes = STRATA_SCOPE_LOCAL | STRATA_SCOPE_CROSS_PROCESS |
                                  STRATA_SCOPE_MULTI_DEVICE_PROCESSES;
  if (t.scope == 0 || (t.scope & ~kAllScopes) != 0) {
    return InvalidArgumentError("algorithm '" + std::string(t.name) +
                                "' has invalid scope bits " + std::to_string(t.scope));
  }
  const std::string what = "algorithm '" + std::string(t.name) + "'";
  STRATA_RETURN_IF_ERROR(require(t.create != nullptr, what, "create"));
  STRATA_RETURN_IF_ERROR(require(t.post != nullptr, what, "post"));
  STRATA_RETURN_IF_ERROR(require(t.test != nullptr, what, "test"));
  STRATA_RETURN_IF_ERROR(require(t.abort != nullptr, what, "abort"));
  STRATA_RETURN_IF_ERROR(require(t.destroy != nullptr, what, "destroy"));

  auto entry = std::make_unique<AlgorithmEntry>();
  entry->plugin = plugin;
  entry->name = t.name;
  entry->op = static_cast<CollectiveKind>(t.op);
  entry->id = entry->plugin + "/" + std::string(collective_name(entry->op)) + "/" +
              entry->name;
  entry->table = t;
  std::unique_lock lock(mu_);
  if (algorithms_.count(entry->id) != 0) {
    return AlreadyExistsError("algorithm id '" + entry->id + "' is already registered");
  }
  algorithms_.emplace(entry->id, std::move(entry));
  return Status::Ok();
}

StatusOr<uint32_t> Registry::add_device_type(std::string_view plugin,
                                             const strata_device_type_t& raw) {
  STRATA_ASSIGN_OR_RETURN(strata_device_type_t t,
                          normalise(raw, kDeviceTypeV1Size, "device type"));
  STRATA_RETURN_IF_ERROR(check_name(t.name, "device type"));
  const std::string what = "device type '" + std::string(t.name) + "'";
  for (auto [fn, field] : {std::pair{t.device_count != nullptr, "device_count"},
                           {t.get_props != nullptr, "get_props"},
                           {t.allocate != nullptr, "allocate"},
                           {t.free != nullptr, "free"},
                           {t.copy_async != nullptr, "copy_async"},
                           {t.reduce_async != nullptr, "reduce_async"},
                           {t.event_create != nullptr, "event_create"},
                           {t.event_record != nullptr, "event_record"},
                           {t.stream_wait_event != nullptr, "stream_wait_event"},
                           {t.event_query != nullptr, "event_query"},
                           {t.event_destroy != nullptr, "event_destroy"},
                           {t.synchronize != nullptr, "synchronize"}}) {
    STRATA_RETURN_IF_ERROR(require(fn, what, field));
  }
  std::unique_lock lock(mu_);
  for (const auto& [id, e] : device_types_) {
    if (e->name == t.name) {
      return AlreadyExistsError(what + " is already registered by plugin '" +
                                e->plugin + "'");
    }
  }
  auto entry = std::make_unique<DeviceTypeEntry>();
  entry->id = next_device_type_id_++;
  entry->name = t.name;
  entry->plugin = plugin;
  entry->table = t;
  const uint32_t id = entry->id;
  device_types_.emplace(id, std::move(entry));
  return id;
}

Status Registry::add_resolver(std::string_view plugin, const strata_resolver_t& raw) {
  STRATA_ASSIGN_OR_RETURN(strata_resolver_t t,
                          normalise(raw, kResolverV1Size, "resolver"));
  STRATA_RETURN_IF_ERROR(check_name(t.name, "resolver"));
  STRATA_RETURN_IF_ERROR(
      require(t.resolve != nullptr, "resolver '" + std::string(t.name) + "'", "resolve"));
  std::unique_lock lock(mu_);
  if (resolvers_.count(std::string_view(t.name)) != 0) {
    return AlreadyExistsError("resolver '" + std::string(t.name) + "' is already registered");
  }
  resolvers_.emplace(t.name, std::make_unique<ResolverEntry>(
                                 ResolverEntry{t.name, std::string(plugin), t}));
  return Status::Ok();
}

Status Registry::add_store_type(std::string_view plugin,
                                const strata_store_type_t& raw) {
  STRATA_ASSIGN_OR_RETURN(strata_store_type_t t,
                          normalise(raw, kStoreTypeV1Size, "store type"));
  STRATA_RETURN_IF_ERROR(check_name(t.name, "store type"));
  const std::string what = "store type '" + std::string(t.name) + "'";
  for (auto [fn, field] : {std::pair{t.open != nullptr, "open"},
                           {t.set != nullptr, "set"},
                           {t.get != nullptr, "get"},
                           {t.add != nullptr, "add"},
                           {t.close != nullptr, "close"}}) {
    STRATA_RETURN_IF_ERROR(require(fn, what, field));
  }
  std::unique_lock lock(mu_);
  if (store_types_.count(std::string_view(t.name)) != 0) {
    return AlreadyExistsError(what + " is already registered");
  }
  store_types_.emplace(t.name, std::make_unique<StoreTypeEntry>(
                                   StoreTypeEntry{t.name, std::string(plugin), t}));
  return Status::Ok();
}

void Registry::remove_plugin(std::string_view plugin) {
  std::unique_lock lock(mu_);
  std::erase_if(algorithms_, [&](const auto& kv) { return kv.second->plugin == plugin; });
  std::erase_if(device_types_, [&](const auto& kv) { return kv.second->plugin == plugin; });
  std::erase_if(resolvers_, [&](const auto& kv) { return kv.second->plugin == plugin; });
  std::erase_if(store_types_, [&](const auto& kv) { return kv.second->plugin == plugin; });
}

const AlgorithmEntry* Registry::find_algorithm(std::string_view id) const {
  std::shared_lock lock(mu_);
  auto it = algorithms_.find(id);
  return it == algorithms_.end() ? nullptr : it->second.get();
}

std::vector<const AlgorithmEntry*> Registry::algorithms() const {
  std::shared_lock lock(mu_);
  std::vector<const AlgorithmEntry*> out;
  for (const auto& [id, e] : algorithms_) out.push_back(e.get());
  return out;
}

std::vector<const AlgorithmEntry*> Registry::algorithms_for(CollectiveKind op) const {
  std::vector<const AlgorithmEntry*> out = algorithms();
  std::erase_if(out, [&](const AlgorithmEntry* e) { return e->op != op; });
  return out;
}

const DeviceTypeEntry* Registry::device_type(uint32_t id) const {
  std::shared_lock lock(mu_);
  auto it = device_types_.find(id);
  return it == device_types_.end() ? nullptr : it->second.get();
}

const DeviceTypeEntry* Registry::find_device_type(std::string_view name) const {
  std::shared_lock lock(mu_);
  for (const auto& [id, e] : device_types_) {
    if (e->name == name) return e.get();
  }
  return nullptr;
}

std::vector<const DeviceTypeEntry*> Registry::device_types() const {
  std::shared_lock lock(mu_);
  std::vector<const DeviceTypeEntry*> out;
  for (const auto& [id, e] : device_types_) out.push_back(e.get());
  return out;
}

const ResolverEntry* Registry::find_resolver(std::string_view name) const {
  std::shared_lock lock(mu_);
  auto it = resolvers_.find(name);
  return it == resolvers_.end() ? nullptr : it->second.get();
}

std::vector<const ResolverEntry*> Registry::resolvers() const {
  std::shared_lock lock(mu_);
  std::vector<const ResolverEntry*> out;
  for (const auto& [name, e] : resolvers_) out.push_back(e.get());
  return out;
}

const StoreTypeEntry* Registry::find_store_type(std::string_view name) const {
  std::shared_lock lock(mu_);
  auto it = store_types_.find(name);
  return it == store_types_.end() ? nullptr : it->second.get();
}

std::vector<const StoreTypeEntry*> Registry::store_types() const {
  std::shared_lock lock(mu_);
  std::vector<const StoreTypeEntry*> out;
  for (const auto& [name, e] : store_types_) out.push_back(e.get());
  return out;
}

std::vector<std::string> Registry::registered_by(std::string_view plugin) const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  for (const auto& [id, e] : algorithms_) if (e->plugin == plugin) out.push_back(id);
  for (const auto& [id, e] : device_types_) if (e->plugin == plugin) out.push_back("device:" + e->name);
  for (const auto& [n, e] : resolvers_) if (e->plugin == plugin) out.push_back("resolver:" + n);
  for (const auto& [n, e] : store_types_) if (e->plugin == plugin) out.push_back("store:" + n);
  return out;
}

}  // namespace strata
