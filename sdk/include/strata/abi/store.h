/* Rendezvous stores: small key/value services used to build teams (memory,
 * file, TCP in core; others from plugins). Keys are NUL-terminated strings,
 * values are byte strings. Every blocking call takes an absolute deadline on
 * the host's now_ns clock and returns TIMED_OUT when it passes. */
#ifndef STRATA_ABI_STORE_H_
#define STRATA_ABI_STORE_H_

#include <stdint.h>

#include "strata/abi/status.h"

typedef struct strata_store_type {
  size_t struct_size;
  const char* name;        /* [a-z0-9_]+, e.g. "file" */
  const char* description; /* may be NULL */
  void* user_data;

  /* Connect to (or host) the store at `address` (meaning is the type's: a
   * directory, "host:port"). `rank`/`world` say who is connecting. May block
   * until `deadline_ns`. Out: *store, closed with close(). Required. */
  strata_status_t (*open)(void* user_data, const char* address, int32_t rank,
                          int32_t world, int64_t deadline_ns, void** store,
                          strata_message_t msg);

  /* Set key to value, replacing any old value. May block briefly. Required. */
  strata_status_t (*set)(void* store, const char* key, const void* value,
                         uint64_t length, strata_message_t msg);

  /* Wait until `key` exists, then copy its value into buf. *length receives
   * the value's size; when it exceeds `capacity` nothing is copied and the
   * status is INVALID_ARGUMENT, so the caller can retry with a larger buffer.
   * May block until deadline_ns (TIMED_OUT). Required. */
  strata_status_t (*get)(void* store, const char* key, void* buf,
                         uint64_t capacity, uint64_t* length,
                         int64_t deadline_ns, strata_message_t msg);

  /* Atomically add `delta` to the integer stored at key (missing = 0) and
   * return the new value in *value. Used for barriers. Required. */
  strata_status_t (*add)(void* store, const char* key, int64_t delta,
                         int64_t* value, strata_message_t msg);

  /* Disconnect; the handle is invalid afterwards. Required. */
  void (*close)(void* store);
} strata_store_type_t;

#endif /* STRATA_ABI_STORE_H_ */
