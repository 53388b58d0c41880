#!/bin/sh
# Runs "$@" with `--store grpc:<host:port>`, the address of worker 0 in this
# process's TF_CONFIG (as `strata launch` writes it): the job forms through
# the grpc_ring plugin's store, hosted by rank 0, and nothing else.
address=$(printf '%s' "$TF_CONFIG" | sed -n 's/.*"worker":\["\([^"]*\)".*/\1/p')
if [ -z "$address" ]; then
  echo "with_grpc_store.sh: no worker address in TF_CONFIG='$TF_CONFIG'" >&2
  exit 2
fi
exec "$@" --store "grpc:$address"
