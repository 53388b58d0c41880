#!/bin/bash
# Runs strata-conformance as the two processes of one job, without mpirun:
# the simple resolver's variables give each its rank and a file store joins
# them. Prints rank 0's output, then each status; exits with rank 0's.
#   run_two_processes.sh CONFORMANCE [ARGS...]
set -u
program=$1
shift
dir=$(mktemp -d /tmp/strata_conformance_pair.XXXXXX)
trap 'rm -rf "$dir"' EXIT
workers=127.0.0.1:1,127.0.0.1:2  # the file store needs no port; the resolver wants one
# Where the store is, for the faulty plugin's loses_store, which breaks it.
export STRATA_PAIR_STORE="$dir/store"
pids=()
for i in 0 1; do
  STRATA_WORKERS=$workers STRATA_TASK_INDEX=$i timeout 120 "$program" "$@" --processes \
      --resolver simple --store "file:$STRATA_PAIR_STORE" >"$dir/out$i" 2>&1 &
  pids+=($!)
done
statuses=()
for pid in "${pids[@]}"; do
  wait "$pid"
  statuses+=($?)
done
cat "$dir/out0"
echo "rank 1 said:"
cat "$dir/out1"
echo "exit statuses: ${statuses[*]}"
[ "${statuses[0]}" = "${statuses[1]}" ] || { echo "the ranks disagree on the exit status"; exit 99; }
exit "${statuses[0]}"
