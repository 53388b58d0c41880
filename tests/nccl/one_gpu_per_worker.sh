#!/usr/bin/env bash
# one_gpu_per_worker.sh COMMAND...: gives a worker of `strata launch` the GPU
# of its task index (CUDA_VISIBLE_DEVICES=<index>), so each process's cuda:0
# is a different GPU: NCCL needs one GPU per rank, and core hands every
# process its cuda:0. mpirun users do the same with OMPI_COMM_WORLD_LOCAL_RANK.
set -eu
index=$(printf '%s' "${TF_CONFIG:-}" | sed -n 's/.*"task"[^}]*"index"[[:space:]]*:[[:space:]]*\([0-9][0-9]*\).*/\1/p')
if [ -z "$index" ]; then
  echo "one_gpu_per_worker.sh: no task index in TF_CONFIG (run it under strata launch)" >&2
  exit 2
fi
export CUDA_VISIBLE_DEVICES=$index
exec "$@"
