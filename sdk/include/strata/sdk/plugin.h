// Everything a plugin's registration file needs. A plugin is one class per
// algorithm plus one file that ends with
//
//   void register_all(strata::sdk::Registrar& r) { r.add<MyAllReduce>(); }
//   STRATA_PLUGIN("my_plugin", "1.0.0", "what it does", register_all)
//
// The macro defines the exported strata_plugin_entry, checks the host's ABI
// major, keeps each registration's objects apart (one library may serve
// several Runtimes of a process) and catches every exception.
#ifndef STRATA_SDK_PLUGIN_H_
#define STRATA_SDK_PLUGIN_H_

#include <cstdint>

#include "strata/abi/plugin.h"
#include "strata/sdk/algorithm.h"
#include "strata/sdk/device_table.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/operations.h"
#include "strata/sdk/registrar.h"
#include "strata/sdk/types.h"

namespace strata::sdk::detail {

using RegisterFn = void (*)(Registrar&);

// Builds (once) and returns the plugin's info, or NULL for a host of another
// ABI major.
const strata_plugin_info_t* plugin_entry(uint32_t host_major,
                                         uint32_t host_minor, const char* name,
                                         const char* version,
                                         const char* description,
                                         RegisterFn register_fn) noexcept;

}  // namespace strata::sdk::detail

#define STRATA_PLUGIN(NAME, VERSION, DESCRIPTION, REGISTER_FN)               \
  extern "C" STRATA_ABI_EXPORT const strata_plugin_info_t*                  \
  strata_plugin_entry(uint32_t host_major, uint32_t host_minor) {           \
    return ::strata::sdk::detail::plugin_entry(host_major, host_minor, NAME, \
                                               VERSION, DESCRIPTION,        \
                                               &(REGISTER_FN));             \
  }

#endif  // STRATA_SDK_PLUGIN_H_
