/* What core hands a plugin: a registrar to add tables through, and host
 * services (logging, clock, device types, options, the team store). */
#ifndef STRATA_ABI_REGISTRAR_H_
#define STRATA_ABI_REGISTRAR_H_

#include <stdint.h>

#include "strata/abi/algorithm.h"
#include "strata/abi/cluster.h"
#include "strata/abi/device.h"
#include "strata/abi/status.h"
#include "strata/abi/store.h"

typedef int32_t strata_log_level_t;
enum {
  STRATA_LOG_DEBUG = 0,
  STRATA_LOG_INFO = 1,
  STRATA_LOG_WARNING = 2,
  STRATA_LOG_ERROR = 3
};

/* Valid from register_all until the plugin is unloaded; thread-safe. */
typedef struct strata_host_services {
  size_t struct_size;
  void* host; /* pass as the first argument of every function below */

  /* Write one log line, prefixed by core with the plugin's name. */
  void (*log)(void* host, strata_log_level_t level, const char* message);

  /* Monotonic clock in nanoseconds; all deadlines in the ABI use it. */
  int64_t (*now_ns)(void* host);

  /* The table of a registered device type, or NULL for an unknown id. The
   * pointer stays valid while the host runs. */
  const strata_device_type_t* (*device_type)(void* host, uint32_t type_id);

  /* Look a device type up by name. NOT_FOUND when nobody registered it. */
  strata_status_t (*find_device_type)(void* host, const char* name,
                                      uint32_t* type_id);

  /* This plugin's option `key` from the config
   * (`plugins: {options: {<plugin>: {key: value}}}`), as a string, or NULL
   * when unset. The string lives until the plugin is unloaded. It also
   * answers the job settings a plugin must honour, under their config
   * names: "cluster.store_max_bytes", "cluster.store_max_keys" and
   * "cluster.store_max_value" (whole numbers, decimal), the limits on what
   * a store type's server may be made to hold (docs/CONFIG.md); a host
   * older than these gives NULL, so keep the documented defaults then. */
  const char* (*option)(void* host, const char* key);

  /* The team-scoped store (strata_team_desc_t.store): keys are private to
   * the team. Same contracts as strata_store_type_t.set / get. */
  strata_status_t (*store_set)(void* store, const char* key, const void* value,
                               uint64_t length, strata_message_t msg);
  strata_status_t (*store_get)(void* store, const char* key, void* buf,
                               uint64_t capacity, uint64_t* length,
                               int64_t deadline_ns, strata_message_t msg);
} strata_host_services_t;

/* Passed to register_all. Core copies every table it is given (up to the
 * smaller of the two struct sizes); strings and user_data inside a table
 * must stay valid until the plugin is unloaded. If register_all returns an
 * error, everything this plugin registered is removed again. */
typedef struct strata_registrar {
  size_t struct_size;
  void* ctx; /* pass as the first argument of every add_* below */
  const strata_host_services_t* services;

  /* Statuses: OK, ALREADY_EXISTS (id taken), INVALID_ARGUMENT (bad name,
   * missing required function). */
  strata_status_t (*add_algorithm)(void* ctx, const strata_algorithm_t* algo,
                                   strata_message_t msg);
  /* Out: *type_id, the id core assigned (used in strata_device_t.type). */
  strata_status_t (*add_device_type)(void* ctx,
                                     const strata_device_type_t* type,
                                     uint32_t* type_id, strata_message_t msg);
  strata_status_t (*add_resolver)(void* ctx, const strata_resolver_t* resolver,
                                  strata_message_t msg);
  strata_status_t (*add_store_type)(void* ctx,
                                    const strata_store_type_t* store_type,
                                    strata_message_t msg);
} strata_registrar_t;

#endif /* STRATA_ABI_REGISTRAR_H_ */
