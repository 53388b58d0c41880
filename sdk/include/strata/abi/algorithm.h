/* Collective algorithms: the table a plugin registers for one way of running
 * one collective, e.g. "grpc_ring/all_reduce/ring".
 *
 * Life cycle, driven by core:
 *   supports() / estimate()      during selection, on every rank alike
 *   team_create()                once per team, before its first call
 *   create() -> post() -> test()* -> destroy()      once per call
 *     (or run() -> [test()* -> destroy()]: the first three in one call)
 *   abort()                      when core's deadline passes, then destroy()
 *   team_destroy()               when the team is released
 *
 * Algorithms are non-blocking: post() starts the work and returns, test()
 * reports progress. Core owns the progress loop and the deadline, so a dead
 * peer ends in TIMED_OUT or PEER_FAILED, never in a hang. Backends that only
 * offer blocking calls use the SDK's BlockingOperation helper.
 *
 * Core guarantees, for every call: when post() runs, every input is ready and
 * no earlier Strata work on the team's devices still uses these buffers; all
 * ranks issue the team's calls in the same order with the same descriptors
 * (core checks this where it can); buffers stay valid until destroy(), or
 * until run() returns OK.
 * An algorithm guarantees: when test() returns OK, every output is written
 * and visible to the host, and none of its work remains queued. */
#ifndef STRATA_ABI_ALGORITHM_H_
#define STRATA_ABI_ALGORITHM_H_

#include <stdint.h>

#include "strata/abi/status.h"
#include "strata/abi/types.h"

/* Where an algorithm can run; a bit mask. */
enum {
  /* Every replica of the team is in this process; one call passes all of
   * them (team->process_count == 1). */
  STRATA_SCOPE_LOCAL = 1u << 0,
  /* Several processes, exactly one replica each (team->local_count == 1). */
  STRATA_SCOPE_CROSS_PROCESS = 1u << 1,
  /* Several processes with several local replicas each. */
  STRATA_SCOPE_MULTI_DEVICE_PROCESSES = 1u << 2
};

typedef struct strata_team_desc {
  size_t struct_size;
  uint64_t team_id;          /* equal on every rank, unique within the job */
  int32_t process_rank;      /* this process in [0, process_count) */
  int32_t process_count;
  uint32_t local_count;      /* replicas this process contributes */
  const strata_device_t* local_devices; /* local_count entries */
  int32_t replica_offset;    /* global rank of local_devices[0] */
  int32_t replica_count;     /* replicas in the whole team */
  /* Team-scoped rendezvous store for exchanging addresses or unique ids
   * through strata_host_services_t.store_set/store_get. NULL when the team
   * has a single process. */
  void* store;
  int64_t deadline_ns;       /* team_create must finish by then (now_ns clock) */
  /* ABI 1.2: how many distinct hosts the team's processes run on, so that
   * supports() can decline a team that spans hosts (a shared-memory transport)
   * or one that does not. Processes share a host when they share boot id,
   * PID and network namespaces, or when STRATA_HOST_ID says so. 0 when the
   * host did not fill it (a 1.1 host): treat as unknown. */
  int32_t host_count;
} strata_team_desc_t;

/* What selection sees of a call: shapes, no pointers.
 * `count` is elements per replica in the smaller side:
 *   all_reduce, broadcast, reduce: input and output hold `count` each;
 *   all_gather: input `count`, output `count * replica_count`;
 *   reduce_scatter: input `count * replica_count`, output `count`;
 *   barrier: 0. */
typedef struct strata_call_desc {
  size_t struct_size;
  strata_op_t op;
  strata_dtype_t dtype;
  strata_redop_t redop;      /* all_reduce, reduce_scatter, reduce */
  uint64_t count;
  int32_t root;              /* global replica rank: broadcast, reduce */
  /* 1 when outputs alias inputs: the same pointer for all_reduce, broadcast
   * and reduce; for all_gather the input is the replica's slot inside its
   * output; for reduce_scatter the output is the replica's slot inside its
   * input (NCCL's convention). */
  uint32_t in_place;
  uint32_t device_type;      /* the type id of every buffer in the call */
  const strata_team_desc_t* team;
} strata_call_desc_t;

typedef struct strata_call {
  size_t struct_size;
  const strata_call_desc_t* desc;
  const strata_buffer_t* inputs;   /* team->local_count entries */
  /* team->local_count entries. For reduce, only the root's output is
   * written; for broadcast, only the root's input is read. */
  const strata_buffer_t* outputs;
  uint64_t sequence;   /* 0, 1, 2... per team; equal on every rank */
  int64_t deadline_ns; /* absolute (now_ns clock); core enforces it too */
} strata_call_t;

typedef struct strata_algorithm {
  size_t struct_size;      /* sizeof(strata_algorithm_t) at the plugin's build */
  const char* name;        /* [a-z0-9_]+; the id is "<plugin>/<op>/<name>" */
  strata_op_t op;
  uint32_t scope;          /* STRATA_SCOPE_* bits */
  const char* description; /* one line for `strata info`; may be NULL */
  void* user_data;         /* passed back to supports/estimate/team_* /create */

  /* Can this algorithm run `call`? OK, or NOT_SUPPORTED with the reason in
   * msg (e.g. "dtype bf16 not offered by MPI"). Must be deterministic and
   * identical on every rank: selection depends on it. Never blocks.
   * NULL: every call within `scope` is supported. */
  strata_status_t (*supports)(void* user_data, const strata_call_desc_t* call,
                              strata_message_t msg);

  /* Predicted wall time of `call` in seconds, for AUTO. Must be
   * deterministic. Never blocks. NULL: ranked after every algorithm with an
   * estimate. Statuses: OK, NOT_SUPPORTED. */
  strata_status_t (*estimate)(void* user_data, const strata_call_desc_t* call,
                              double* seconds);

  /* Build per-team state (communicators, scratch buffers, connections).
   * May block until team->deadline_ns, e.g. for a rendezvous through the
   * team store. Out: *team_state, passed to create() and team_destroy().
   * NULL: the algorithm keeps no team state (*team_state is NULL). */
  strata_status_t (*team_create)(void* user_data,
                                 const strata_team_desc_t* team,
                                 void** team_state, strata_message_t msg);

  /* Release team state. Called once per successful team_create, after every
   * operation on the team was destroyed. May block briefly. NULL allowed. */
  void (*team_destroy)(void* user_data, void* team_state);

  /* Prepare one call. Must not start communication. Out: *op, an opaque
   * handle owned by core until destroy(). Statuses: OK, NOT_SUPPORTED,
   * INVALID_ARGUMENT, OUT_OF_MEMORY. Required. */
  strata_status_t (*create)(void* user_data, void* team_state,
                            const strata_call_t* call, void** op,
                            strata_message_t msg);

  /* Start the call. Never blocks for peers. Statuses: OK (started, or
   * already finished), an error. Required. */
  strata_status_t (*post)(void* op, strata_message_t msg);

  /* Advance and report: OK when finished, IN_PROGRESS otherwise, an error
   * (PEER_FAILED, DATA_LOSS, ...) when it failed. Called repeatedly from one
   * thread at a time. Never blocks for long. Required. */
  strata_status_t (*test)(void* op, strata_message_t msg);

  /* Block until finished or `timeout_ns` passes; same statuses as test().
   * Lets core sleep rather than poll. NULL: core polls test() with back-off. */
  strata_status_t (*wait)(void* op, int64_t timeout_ns, strata_message_t msg);

  /* Stop the call early (deadline passed, another rank failed). After abort
   * core calls destroy() and the team is considered broken. Must not block
   * for peers. May also come for an operation that was never posted or has
   * finished (after a run() that threw): it must then do nothing harmful.
   * Required. */
  void (*abort)(void* op);

  /* Release the operation. Called exactly once per successful create(),
   * and once per run() that handed back an operation. Required. */
  void (*destroy)(void* op);

  /* ---- ABI 1.1 ---- */

  /* create(), post() and wait(first_slice_ns) in one call: a small
   * collective's fast path, one crossing of the C boundary instead of four
   * (create, post, wait, destroy). Core passes a short first slice (at most
   * 1 ms, 0 allowed: post and test once) and, once run() answers, drives the
   * rest exactly as for an operation from create():
   *   OK           finished; *op is NULL, nothing to destroy;
   *   IN_PROGRESS  posted and still running; *op is the operation, which
   *                core advances with wait()/test(), may abort(), and
   *                releases with destroy();
   *   an error     from create(): *op is NULL, nothing was started, and the
   *                team stays usable, as after a failed create();
   *                from post() or wait(): *op is the operation, which core
   *                destroys, and the team is broken, as after those fail.
   * An error's message starts with the step that failed ("post: ..."):
   * core sees only the one call. Write *op only to hand the operation
   * over: should run() throw anyway (a rule-2 violation), core treats a
   * non-NULL *op as handed back, and aborts and destroys it. The statuses
   * and guarantees of create(), post() and wait() hold for their parts of
   * run().
   * NULL (and every 1.0 table): core makes the three calls itself. */
  strata_status_t (*run)(void* user_data, void* team_state, const strata_call_t* call,
                         int64_t first_slice_ns, void** op, strata_message_t msg);
} strata_algorithm_t;

#endif /* STRATA_ABI_ALGORITHM_H_ */
