// The body behind STRATA_PLUGIN: one plugin per shared object, so the state
// here is per plugin.
#include "strata/sdk/plugin.h"

#include <mutex>

namespace strata::sdk::detail {
namespace {

strata_plugin_info_t g_info{};
RegisterFn g_register = nullptr;
Keeper g_keeper;
std::once_flag g_once;

strata_status_t register_all(const strata_registrar_t* raw,
                             strata_message_t msg) {
  return guard(msg, [&] {
    Host::attach(raw->services);
    Registrar registrar(raw, g_keeper);
    g_register(registrar);
    return STRATA_OK;
  });
}

void unload() {
  g_keeper.clear();
  Host::detach();
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
