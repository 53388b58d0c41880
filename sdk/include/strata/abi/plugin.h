/* The one symbol a Strata plugin exports, and what it returns.
 *
 *   const strata_plugin_info_t* strata_plugin_entry(uint32_t host_major,
 *                                                   uint32_t host_minor);
 *
 * Core calls it right after loading the library. The plugin returns its
 * description, or NULL when it cannot serve a host of that ABI version (core
 * logs "declined host ABI x.y"). Core refuses a plugin whose abi_major differs
 * from its own. Everything else in the library stays hidden
 * (-fvisibility=hidden); strata_add_plugin() in the SDK sets that up. */
#ifndef STRATA_ABI_PLUGIN_H_
#define STRATA_ABI_PLUGIN_H_

#include <stdint.h>

#include "strata/abi/algorithm.h"
#include "strata/abi/cluster.h"
#include "strata/abi/device.h"
#include "strata/abi/registrar.h"
#include "strata/abi/status.h"
#include "strata/abi/store.h"
#include "strata/abi/types.h"
#include "strata/abi/version.h"

typedef struct strata_plugin_info {
  size_t struct_size;   /* sizeof(strata_plugin_info_t) at the plugin's build */
  uint32_t abi_major;   /* the ABI this plugin speaks: STRATA_ABI_MAJOR */
  uint32_t abi_minor;   /* STRATA_ABI_MINOR at the plugin's build */
  const char* name;     /* [a-z0-9_]+, unique among loaded plugins */
  const char* version;  /* the plugin's own version, e.g. "1.4.2" */
  const char* description; /* one line; may be NULL */

  /* Add every table through `registrar`. Called on the loading thread, once
   * per host that loads the plugin: two Runtimes in one process share the
   * library (dlopen returns the same instance), so keep per-registration
   * state keyed by registrar->ctx rather than in globals. Return OK, or an
   * error with a reason in msg; on error core removes everything registered
   * through this registrar. Must not throw. Required. */
  strata_status_t (*register_all)(const strata_registrar_t* registrar,
                                  strata_message_t msg);

  /* Called once for every register_all (successful or not), with the same
   * registrar, when that host lets go of the plugin: release what that
   * registration created. Must not throw. NULL allowed. */
  void (*unload)(const strata_registrar_t* registrar);
} strata_plugin_info_t;

typedef const strata_plugin_info_t* (*strata_plugin_entry_fn)(
    uint32_t host_abi_major, uint32_t host_abi_minor);

#define STRATA_PLUGIN_ENTRY_SYMBOL "strata_plugin_entry"

#endif /* STRATA_ABI_PLUGIN_H_ */
