#!/usr/bin/env bash
# run_if_gpus.sh PROBE N COMMAND...: runs COMMAND when PROBE (nccl_gpu_probe)
# finds at least N GPUs; otherwise exits 77 (skipped) with its reason.
set -u
probe=$1
needed=$2
shift 2
"$probe" "$needed" || exit $?
exec "$@"
