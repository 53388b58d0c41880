/* Device types: how core and algorithms reach a kind of memory and compute.
 *
 * A device type (the built-in "cpu", or "cuda" from the nccl plugin) offers N
 * devices. Each device has one in-order *stream*: work enqueued with the
 * *_async functions runs in the order it was enqueued on that stream,
 * asynchronously to the caller. Events order work between streams, as CUDA
 * events do. Algorithms that only use this table (hierarchical_copy) run on
 * every device type without knowing what it is.
 *
 * Conventions for every function below:
 *  - `user_data` is the table's own field, passed back unchanged.
 *  - `msg` receives a reason when the result is an error (status.h).
 *  - Device indices run from 0 to device_count-1; STRATA_HOST_INDEX (-1) names
 *    host memory where a function says so.
 *  - Nothing may throw; nothing blocks unless the entry says "may block". */
#ifndef STRATA_ABI_DEVICE_H_
#define STRATA_ABI_DEVICE_H_

#include <stdint.h>

#include "strata/abi/status.h"
#include "strata/abi/types.h"

typedef struct strata_device_props {
  size_t struct_size;     /* set by the caller to sizeof(strata_device_props_t) */
  char name[64];          /* human-readable, e.g. "virtual CPU device 3" */
  uint64_t memory_bytes;  /* capacity in bytes; 0 when unknown */
  uint32_t host_accessible; /* 1: host code may read and write this memory */
  /* For cost models (AUTO). How many of this type's streams run at full
   * speed at the same time: 8 GPUs run 8, 8 virtual CPU devices on a 2-core
   * machine run 2. 0 when unknown (treated as "all"). */
  uint32_t parallel_streams;
  /* Seconds from enqueueing work on an idle stream until it starts (a
   * kernel launch, a worker thread waking up). 0 when unknown. */
  double launch_latency;
} strata_device_props_t;

/* An opaque event handle created by event_create and owned by the caller. */
typedef void* strata_event_t;

typedef struct strata_device_type {
  size_t struct_size; /* sizeof(strata_device_type_t) at the plugin's build */
  const char* name;   /* [a-z0-9_]+, e.g. "cpu"; unique in the process */
  const char* description; /* one line for `strata info`; may be NULL */
  void* user_data;

  /* Number of devices present. 0 is valid (a machine without the hardware).
   * Out: *count. Statuses: OK, INTERNAL. Never blocks. Required. */
  strata_status_t (*device_count)(void* user_data, int32_t* count,
                                  strata_message_t msg);

  /* Describe one device. `props->struct_size` is set by the caller; fill only
   * fields that fit. Statuses: OK, INVALID_ARGUMENT (bad index). Required. */
  strata_status_t (*get_props)(void* user_data, int32_t device,
                               strata_device_props_t* props,
                               strata_message_t msg);

  /* Whether work on `device`'s stream may read and write memory allocated on
   * `peer` directly, i.e. whether reduce_async on `device` may take `peer`
   * sources and destinations.
   * Out: *can_access 0 or 1. NULL: no device can access a peer. */
  strata_status_t (*can_access_peer)(void* user_data, int32_t device,
                                     int32_t peer, int32_t* can_access);

  /* Sustained bandwidth of a copy from device a to device b in bytes per
   * second (a == b: on-device copy; either may be STRATA_HOST_INDEX). Used by
   * cost models, so an estimate is fine. NULL: the host assumes 10 GB/s. */
  strata_status_t (*link_bandwidth)(void* user_data, int32_t a, int32_t b,
                                    double* bytes_per_second);

  /* Allocate `bytes` on `device`; *ptr receives memory aligned to 64 bytes,
   * owned by the caller until free(). bytes == 0 returns a NULL pointer and
   * OK. Statuses: OK, OUT_OF_MEMORY, INVALID_ARGUMENT. May block. Required. */
  strata_status_t (*allocate)(void* user_data, int32_t device, uint64_t bytes,
                              void** ptr, strata_message_t msg);

  /* Free memory from allocate(). NULL ptr is a no-op. The caller guarantees
   * no queued work still uses it. May block. Required. */
  void (*free)(void* user_data, int32_t device, void* ptr);

  /* Enqueue a copy of `bytes` bytes from src (on src_device) to dst (on
   * dst_device) on the stream of `stream_device`. Either side may be
   * STRATA_HOST_INDEX. Copies between any two devices of the type must work,
   * staged through the host if the hardware cannot do better (as
   * cudaMemcpyPeerAsync does). Regions must not overlap. Returns once
   * enqueued. Required. */
  strata_status_t (*copy_async)(void* user_data, int32_t stream_device,
                                void* dst, int32_t dst_device, const void* src,
                                int32_t src_device, uint64_t bytes,
                                strata_message_t msg);

  /* Enqueue on `device`'s stream: for i < count,
   *   r = op(srcs[0][i], ..., srcs[num_srcs-1][i])   (combined in source order)
   *   dsts[0][i] = ... = dsts[num_dsts-1][i] = r.
   * For STRATA_MEAN, r is the sum divided by `divisor` (integers truncate
   * toward zero); for other operators `divisor` is ignored. Writing one result
   * to several destinations in the same pass is what lets an all-reduce move
   * each byte the minimum number of times. A destination may be exactly a
   * source (in place) — every element is read from all sources before it is
   * written — but must not partly overlap any buffer. Buffers on other devices
   * must be peer-accessible. num_srcs >= 1, num_dsts >= 1. Statuses: OK,
   * INVALID_ARGUMENT, NOT_SUPPORTED (a dtype/op this type cannot reduce).
   * Required. */
  strata_status_t (*reduce_async)(void* user_data, int32_t device,
                                  strata_dtype_t dtype, strata_redop_t op,
                                  void* const* dsts, uint32_t num_dsts,
                                  const void* const* srcs, uint32_t num_srcs,
                                  uint64_t count, uint32_t divisor,
                                  strata_message_t msg);

  /* Create an event bound to `device`. A new event counts as already reached.
   * Out: *event, owned by the caller until event_destroy. Required. */
  strata_status_t (*event_create)(void* user_data, int32_t device,
                                  strata_event_t* event, strata_message_t msg);

  /* Enqueue the event on its device's stream: it is reached once all work
   * enqueued before it has finished. Re-recording replaces the previous
   * record. Required. */
  strata_status_t (*event_record)(void* user_data, strata_event_t event,
                                  strata_message_t msg);

  /* Make all work enqueued on `device`'s stream after this call wait until
   * `event` (recorded on any device of this type) is reached. Does not block
   * the caller. Required. */
  strata_status_t (*stream_wait_event)(void* user_data, int32_t device,
                                       strata_event_t event,
                                       strata_message_t msg);

  /* OK when the event was reached, IN_PROGRESS when not yet, an error when
   * work before it failed. Never blocks. Required. */
  strata_status_t (*event_query)(void* user_data, strata_event_t event,
                                 strata_message_t msg);

  /* Block until the event is reached or `timeout_ns` passes (IN_PROGRESS).
   * Lets the host sleep instead of polling. NULL: the host polls
   * event_query with back-off. */
  strata_status_t (*event_wait)(void* user_data, strata_event_t event,
                                int64_t timeout_ns, strata_message_t msg);

  /* Destroy an event. The caller guarantees that its latest record was
   * reached (or it was never recorded) and that no stream still waits on it. */
  void (*event_destroy)(void* user_data, strata_event_t event);

  /* Block until everything enqueued on `device` has run, or `timeout_ns`
   * passes (TIMED_OUT). Reports the first asynchronous error. May block.
   * Required. */
  strata_status_t (*synchronize)(void* user_data, int32_t device,
                                 int64_t timeout_ns, strata_message_t msg);
} strata_device_type_t;

#endif /* STRATA_ABI_DEVICE_H_ */
