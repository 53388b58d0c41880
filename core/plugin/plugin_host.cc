#include "core/plugin/plugin_host.h"

#include "core/cluster/store.h"
#include "core/common/clock.h"
#include "core/common/logging.h"
#include "core/plugin/abi_status.h"
#include "core/plugin/registry.h"
#include "strata/sdk/error.h"

namespace strata {
namespace {

PluginHost& host_of(void* p) { return *static_cast<PluginHost*>(p); }

strata_status_t report(const Status& s, strata_message_t msg) {
  if (!s.ok()) sdk::write_message(msg, s.message());
  return to_abi(s);
}

void abi_log(void* host, strata_log_level_t level, const char* message) {
  const std::string& name = host_of(host).plugin_name();
  const char* text = message == nullptr ? "" : message;
  switch (level) {
    case STRATA_LOG_DEBUG: STRATA_LOG_DEBUG("{}: {}", name, text); break;
    case STRATA_LOG_INFO: STRATA_LOG_INFO("{}: {}", name, text); break;
    case STRATA_LOG_WARNING: STRATA_LOG_WARN("{}: {}", name, text); break;
    default: STRATA_LOG_ERROR("{}: {}", name, text); break;
  }
}

int64_t abi_host_now_ns(void*) { return now_ns(); }

const strata_device_type_t* abi_device_type(void* host, uint32_t id) {
  const DeviceTypeEntry* e = host_of(host).registry().device_type(id);
  return e == nullptr ? nullptr : &e->table;
}

strata_status_t abi_find_device_type(void* host, const char* name, uint32_t* id) {
  const DeviceTypeEntry* e =
      host_of(host).registry().find_device_type(name == nullptr ? "" : name);
  if (e == nullptr) return STRATA_NOT_FOUND;
  *id = e->id;
  return STRATA_OK;
}

const char* abi_option(void* host, const char* key) {
  return key == nullptr ? nullptr : host_of(host).option(key);
}

strata_status_t abi_store_set(void* store, const char* key, const void* value,
                          uint64_t length, strata_message_t msg) {
  if (store == nullptr || key == nullptr) {
    sdk::write_message(msg, "this team has no store (single process)");
    return STRATA_FAILED_PRECONDITION;
  }
  return report(static_cast<Store*>(store)->set(
                    key, {static_cast<const char*>(value), length}),
                msg);
}

strata_status_t abi_store_get(void* store, const char* key, void* buf, uint64_t capacity,
                          uint64_t* length, int64_t deadline_ns, strata_message_t msg) {
  if (store == nullptr || key == nullptr) {
    sdk::write_message(msg, "this team has no store (single process)");
    return STRATA_FAILED_PRECONDITION;
  }
  auto value = static_cast<Store*>(store)->get(key, from_ns(deadline_ns));
  if (!value.ok()) return report(value.status(), msg);
  *length = value->size();
  if (value->size() > capacity) {
    sdk::write_message(msg, "value does not fit the buffer");
    return STRATA_INVALID_ARGUMENT;
  }
  std::copy(value->begin(), value->end(), static_cast<char*>(buf));
  return STRATA_OK;
}

strata_status_t abi_add_algorithm(void* host, const strata_algorithm_t* t,
                              strata_message_t msg) {
  if (t == nullptr) return report(InvalidArgumentError("NULL algorithm table"), msg);
  auto& h = host_of(host);
  return report(h.registry().add_algorithm(h.plugin_name(), *t), msg);
}

strata_status_t abi_add_device_type(void* host, const strata_device_type_t* t,
                                uint32_t* id, strata_message_t msg) {
  if (t == nullptr) return report(InvalidArgumentError("NULL device type table"), msg);
  auto& h = host_of(host);
  auto result = h.registry().add_device_type(h.plugin_name(), *t);
  if (!result.ok()) return report(result.status(), msg);
  if (id != nullptr) *id = *result;
  return STRATA_OK;
}

strata_status_t abi_add_resolver(void* host, const strata_resolver_t* t,
                             strata_message_t msg) {
  if (t == nullptr) return report(InvalidArgumentError("NULL resolver table"), msg);
  auto& h = host_of(host);
  return report(h.registry().add_resolver(h.plugin_name(), *t), msg);
}

strata_status_t abi_add_store_type(void* host, const strata_store_type_t* t,
                               strata_message_t msg) {
  if (t == nullptr) return report(InvalidArgumentError("NULL store type table"), msg);
  auto& h = host_of(host);
  return report(h.registry().add_store_type(h.plugin_name(), *t), msg);
}

}  // namespace

PluginHost::PluginHost(std::string plugin_name, Registry& registry,
                       std::map<std::string, std::string> options)
    : plugin_name_(std::move(plugin_name)),
      registry_(registry),
      options_(std::move(options)) {
  services_.struct_size = sizeof services_;
  services_.host = this;
  services_.log = &abi_log;
  services_.now_ns = &abi_host_now_ns;
  services_.device_type = &abi_device_type;
  services_.find_device_type = &abi_find_device_type;
  services_.option = &abi_option;
  services_.store_set = &abi_store_set;
  services_.store_get = &abi_store_get;

  registrar_.struct_size = sizeof registrar_;
  registrar_.ctx = this;
  registrar_.services = &services_;
  registrar_.add_algorithm = &abi_add_algorithm;
  registrar_.add_device_type = &abi_add_device_type;
  registrar_.add_resolver = &abi_add_resolver;
  registrar_.add_store_type = &abi_add_store_type;
}

const char* PluginHost::option(const std::string& key) const {
  auto it = options_.find(key);
  return it == options_.end() ? nullptr : it->second.c_str();
}

}  // namespace strata
