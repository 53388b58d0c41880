/* Status codes returned by every fallible ABI function.
 *
 * OK is zero, IN_PROGRESS is the only positive value, every error is negative.
 * NOT_SUPPORTED is not a failure: it is a plugin politely declining a call it
 * cannot serve well, and the selector moves on to the next candidate.
 * Any value outside this list is treated by the host as INTERNAL and reported
 * as "plugin returned unknown status N". */
#ifndef STRATA_ABI_STATUS_H_
#define STRATA_ABI_STATUS_H_

#include <stddef.h>
#include <stdint.h>

typedef int32_t strata_status_t;

enum {
  STRATA_OK = 0,
  STRATA_IN_PROGRESS = 1,          /* only from test()/wait()/event_query() */
  STRATA_NOT_SUPPORTED = -1,       /* polite decline: try the next candidate */
  STRATA_INVALID_ARGUMENT = -2,    /* the caller passed something malformed */
  STRATA_OUT_OF_MEMORY = -3,
  STRATA_TIMED_OUT = -4,           /* a deadline passed */
  STRATA_PEER_FAILED = -5,         /* a remote rank died or sent garbage */
  STRATA_ABORTED = -6,             /* abort() was called on the operation */
  STRATA_NOT_FOUND = -7,
  STRATA_ALREADY_EXISTS = -8,
  STRATA_INTERNAL = -9,            /* a bug or an unexpected backend error */
  STRATA_UNAVAILABLE = -10,        /* transient: connection refused, retry later */
  STRATA_PERMISSION_DENIED = -11,  /* authentication or authorisation failed */
  STRATA_FAILED_PRECONDITION = -12,/* the object is in the wrong state */
  STRATA_DATA_LOSS = -13           /* corrupted or truncated data */
};

/* Every function that can fail also receives a caller-owned message buffer.
 * The callee writes a NUL-terminated, human-readable reason into it (truncated
 * to `capacity` bytes) and never keeps the pointer. `data` may be NULL when
 * `capacity` is 0; then no message is written. */
typedef struct strata_message {
  char* data;
  size_t capacity;
} strata_message_t;

#endif /* STRATA_ABI_STATUS_H_ */
