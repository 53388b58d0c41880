#!/usr/bin/env bash
# The measurements of docs/performance/grpc_ring.md, on an existing build:
# Gloo alone (strata-gloo-anchor) against itself, which is the noise; the
# same Gloo pinned one core per rank as mpirun binds 2 ranks, which is what
# slowed Gloo in strata-ring-bench before it released the binding, and the
# bench itself with the binding kept (--keep-binding); then strata-ring-bench
# (raw MPI_Allreduce over tcp, Gloo, grpc_ring and Gloo again as the in-run
# null) with 2 and 4 ranks. CSVs, PNGs and logs go to OUT
# (default bench-ring-out/).
#
#   scripts/bench-ring.sh [build] [out]    (BENCH_ARGS adds options to every sweep,
#                                           e.g. BENCH_ARGS="-b 64KiB -e 4MiB --rounds 3")
#
# The machine is shared: the script runs in a session of its own whose
# autogroup it raises to nice -20 where it may (root), so other sessions'
# builds take less of the CPUs while it measures; BENCH_NO_PRIORITY=1 leaves
# it at 0. Each step's log starts with the load average.
set -euo pipefail
if [ -z "${BENCH_RING_SESSION:-}" ]; then
  export BENCH_RING_SESSION=1
  exec setsid -w "$0" "$@"
fi
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-build}" && pwd)
out=$(mkdir -p "${2:-bench-ring-out}" && cd "${2:-bench-ring-out}" && pwd)
py=/usr/bin/python3  # Debian's, with matplotlib
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 STRATA_LOG_LEVEL=warning
read -r -a extra <<< "${BENCH_ARGS:-}"
sweep=(-b 1KiB -e 64MiB --rounds 5 "${extra[@]}")
if [ -z "${BENCH_NO_PRIORITY:-}" ] && echo -20 2>/dev/null > /proc/self/autogroup; then
  priority="autogroup nice -20"
else
  priority="autogroup nice $(awk '{print $NF}' /proc/self/autogroup 2>/dev/null || echo '?')"
fi
cd "$out"

note() { echo "### $* (load: $(cut -d' ' -f1-3 /proc/loadavg); $priority; $(date -u +%FT%TZ))"; }
plot() {  # plot PNG TITLE CSV...
  local png=$1 title=$2; shift 2
  "$py" "$root/python/strata/_busbw_plot.py" --png "$png" --title "$title" "$@"
}

note "strata-gloo-anchor, 2 ranks: Gloo alone, against itself (the noise)"
"$build/bin/strata-gloo-anchor" -np 2 --null "${sweep[@]}" --csv gloo_anchor_np2.csv |
  tee gloo_anchor_np2.log
note "strata-gloo-anchor --pin, 2 ranks: Gloo alone, each rank bound to one core"
"$build/bin/strata-gloo-anchor" -np 2 --pin "${sweep[@]}" --csv gloo_anchor_pinned_np2.csv |
  tee gloo_anchor_pinned_np2.log
note "strata-ring-bench --keep-binding --sides gloo, 2 ranks: Gloo as the harness ran it before"
mpirun -np 2 --oversubscribe --mca btl self,tcp "$build/bin/strata-ring-bench" --keep-binding \
  --sides gloo "${sweep[@]}" --csv ring_gloo_bound_np2.csv | tee ring_gloo_bound_np2.log
for n in 2 4; do
  note "strata-ring-bench, $n ranks: MPI tcp, Gloo, grpc_ring, Gloo again (the in-run null)"
  mpirun -np "$n" --oversubscribe --mca btl self,tcp "$build/bin/strata-ring-bench" \
    --sides mpi,gloo,grpc_ring,gloo "${sweep[@]}" --csv "ring_np$n.csv" | tee "ring_np$n.log"
done
plot ring_np2.png "all-reduce f32 sum, 2 ranks over loopback TCP" \
  ring_np2.csv gloo_anchor_np2.csv gloo_anchor_pinned_np2.csv ring_gloo_bound_np2.csv
plot ring_np4.png "all-reduce f32 sum, 4 ranks over loopback TCP (2 cores)" ring_np4.csv
note "done"
