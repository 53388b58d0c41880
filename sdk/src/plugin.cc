// The body behind STRATA_PLUGIN: one plugin per shared object, so the state
// here is per plugin.
#include "strata/sdk/plugin.h"

#include <map>
#include <memory>
#include <mutex>

namespace strata::sdk::detail {
namespace {

strata_plugin_info_t g_info{};
RegisterFn g_register = nullptr;
std::once_flag g_once;
// One Keeper per registration: several Runtimes of one process may hold the
// plugin at once, and each unload releases only its own objects.
std::mutex g_mu;
std::map<const void*, std::unique_ptr<Keeper>> g_keepers;

strata_status_t register_all(const strata_registrar_t* raw, strata_message_t msg) {
  HostScope scope(raw->services);
  Host::set_fallback(raw->services);
  return guard(msg, [&] {
    Keeper* keeper;
    {
      std::lock_guard lock(g_mu);
      auto& slot = g_keepers[raw->ctx];
      slot = std::make_unique<Keeper>();
      keeper = slot.get();
    }
    Registrar registrar(raw, *keeper);
    g_register(registrar);
    return STRATA_OK;
  });
}

void unload(const strata_registrar_t* raw) {
  std::unique_ptr<Keeper> keeper;
  {
    std::lock_guard lock(g_mu);
    auto it = g_keepers.find(raw->ctx);
    if (it == g_keepers.end()) return;
    keeper = std::move(it->second);
    g_keepers.erase(it);
  }
  HostScope scope(raw->services);
  keeper.reset();
}

}  // namespace

const strata_plugin_info_t* plugin_entry(uint32_t host_major, uint32_t,
                                         const char* name, const char* version,
                                         const char* description,
                                         RegisterFn register_fn) noexcept {
  if (host_major != STRATA_ABI_MAJOR) return nullptr;
  std::call_once(g_once, [&] {
    g_register = register_fn;
    g_info.struct_size = sizeof g_info;
    g_info.abi_major = STRATA_ABI_MAJOR;
    g_info.abi_minor = STRATA_ABI_MINOR;
    g_info.name = name;
    g_info.version = version;
    g_info.description = description;
    g_info.register_all = &register_all;
    g_info.unload = &unload;
  });
  return &g_info;
}

}  // namespace strata::sdk::detail
