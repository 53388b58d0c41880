#!/bin/bash
# Runs N copies of a program as MPI singletons, the way `strata launch`
# starts workers (no mpirun): the "simple" resolver's variables give each
# its rank, an ompi-server lets the mpi plugin join them with
# MPI_Comm_connect/accept, and "{store}" in the arguments becomes a file
# store shared by all. Exits with the first non-zero status.
#   run_singletons.sh N PROGRAM [ARGS...]
set -u
n=$1 program=$2
shift 2
dir=$(mktemp -d /tmp/strata_mpi_singletons.XXXXXX)
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
args=()
for a in "$@"; do args+=("${a//\{store\}/file:$dir/store}"); done
# Loopback only: nothing here should touch another interface.
export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset OMPI_COMM_WORLD_SIZE PMIX_RANK PMI_SIZE
ompi-server --no-daemonize --report-uri "$dir/uri" &
server=$!
for _ in $(seq 100); do [ -s "$dir/uri" ] && break; sleep 0.1; done
if [ ! -s "$dir/uri" ]; then echo "ompi-server did not report its URI" >&2; exit 1; fi
export OMPI_MCA_pmix_server_uri="file:$dir/uri"
workers=""
for i in $(seq 0 $((n - 1))); do workers="$workers${workers:+,}127.0.0.1:$((41000 + i))"; done
pids=()
for i in $(seq 0 $((n - 1))); do
  STRATA_WORKERS=$workers STRATA_TASK_INDEX=$i "$program" "${args[@]}" &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
  wait "$pid"
  rc=$?
  [ $status -eq 0 ] && status=$rc
done
exit $status
