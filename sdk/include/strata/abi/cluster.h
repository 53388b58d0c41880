/* Cluster resolvers: turn an environment (TF_CONFIG, Slurm variables, an MPI
 * launch) into a description of the job. Core ships several; a plugin may add
 * its own (a scheduler's, a TPU pod's). */
#ifndef STRATA_ABI_CLUSTER_H_
#define STRATA_ABI_CLUSTER_H_

#include <stdint.h>

#include "strata/abi/status.h"

/* Where a resolver writes what it found. Owned by core; valid only during
 * resolve(). Every function returns OK or INVALID_ARGUMENT with a reason. */
typedef struct strata_cluster_sink {
  size_t struct_size;
  void* ctx;
  /* One task of a job: job "worker", index 3, address "host:port" (may be
   * empty when not known yet). */
  strata_status_t (*add_task)(void* ctx, const char* job, int32_t index,
                              const char* address);
  /* Which task this process is. */
  strata_status_t (*set_self)(void* ctx, const char* job, int32_t index);
  /* e.g. "grpc"; optional. */
  strata_status_t (*set_rpc_layer)(void* ctx, const char* rpc_layer);
  /* Devices each task drives, e.g. ("cpu", 2); optional. */
  strata_status_t (*set_devices_per_task)(void* ctx, const char* device_type,
                                          int32_t count);
} strata_cluster_sink_t;

typedef struct strata_resolver {
  size_t struct_size;
  const char* name;        /* [a-z0-9_]+, e.g. "slurm" */
  const char* description; /* may be NULL */
  void* user_data;
  /* Describe the cluster through `sink`. NOT_SUPPORTED when this resolver's
   * environment is absent (resolver "auto" then tries the next); any other
   * error names the variable and the problem. May block briefly. Required. */
  strata_status_t (*resolve)(void* user_data, const strata_cluster_sink_t* sink,
                             strata_message_t msg);
} strata_resolver_t;

#endif /* STRATA_ABI_CLUSTER_H_ */
