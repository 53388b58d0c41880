#!/usr/bin/env bash
# The measurements of docs/performance/shm.md (issue 27), on an existing
# build: strata-mpi-bench for all_reduce, broadcast and all_gather, 2 and 4
# ranks, in place and out of place, raw MPI over Open MPI's shared memory
# (--mca btl self,vader) against a Strata algorithm in the same job, each
# round also timing MPI against itself (--with-null: the noise the
# verdicts are read against, same launch, same size). CSVs, logs and
# verdicts.txt (each run's own target lines) go to OUT, then one PNG per
# op: busbw against size for vader, the algorithm, the copy ceiling and
# the memory bound, a panel per rank count and placement
# (python/strata/_busbw_plot.py), and summary.md: every cell judged
# against its run's null (python/strata/_noise_verdicts.py).
#
#   scripts/bench-shm.sh [BUILD] [OUT] [PLUGIN]     (defaults: build, bench-shm-out, shm)
#
# The algorithms are PLUGIN's, the first of each op that `strata info`
# lists, unless named: ALL_REDUCE=shm/all_reduce/x BROADCAST=... ALL_GATHER=...
# Without PLUGIN's library in BUILD it says so and benches mpi/<op>/native
# instead (the harness against itself, not a measurement of shm).
# Environment: RANKS ("2 4"), ROUNDS (6: the loops' six orders once each), MIN (8B), MAX (64MiB),
# BIND (none: mpirun --bind-to), BENCH_ARGS (more strata-mpi-bench options).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-build}" && pwd)
out=$(mkdir -p "${2:-bench-shm-out}" && cd "${2:-bench-shm-out}" && pwd)
plugin=${3:-shm}
py=/usr/bin/python3  # Debian's, with matplotlib
bench="$build/bin/strata-mpi-bench"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 STRATA_LOG_LEVEL=warning
read -r -a extra <<< "${BENCH_ARGS:-}"
read -r -a ranks <<< "${RANKS:-2 4}"
ops=(all_reduce broadcast all_gather)
[ -x "$bench" ] || { echo "bench-shm.sh: no $bench (build it: ninja -C $build strata-mpi-bench)" >&2; exit 1; }

# The algorithm of each op: named, else the plugin's first, else mpi's.
declare -A algorithm=([all_reduce]="${ALL_REDUCE:-}" [broadcast]="${BROADCAST:-}"
                      [all_gather]="${ALL_GATHER:-}")
library="$build/lib/strata/plugins/libstrata_$plugin.so"
if [ ! -f "$library" ]; then
  echo "### bench-shm.sh: plugin '$plugin' is not built in $build (no $library):" \
       "benching mpi/<op>/native instead; this checks the harness, it measures no shm plugin" |
    tee "$out/FALLBACK.txt"
  for op in "${ops[@]}"; do algorithm[$op]=${algorithm[$op]:-mpi/$op/native}; done
else
  rm -f "$out/FALLBACK.txt"
  listed=$("$build/bin/strata" info --json | "$py" -c '
import json, sys
for a in json.load(sys.stdin)["algorithms"]:
    print(a["id"])')
  for op in "${ops[@]}"; do
    [ -n "${algorithm[$op]}" ] && continue
    algorithm[$op]=$(grep -m1 "^$plugin/$op/" <<< "$listed" || true)
    if [ -z "${algorithm[$op]}" ]; then
      echo "bench-shm.sh: plugin '$plugin' has no $op algorithm in 'strata info'; name one" \
           "(e.g. ${op^^}=$plugin/$op/NAME)" >&2
      exit 1
    fi
    others=$(grep "^$plugin/$op/" <<< "$listed" | tail -n +2 | tr '\n' ' ')
    [ -z "$others" ] || echo "### $op: benching ${algorithm[$op]}; also there: $others"
  done
fi

note() { echo "### $* (load: $(cut -d' ' -f1-3 /proc/loadavg))"; }
run_bench() {  # ranks csv-name log-name args...
  local n=$1 name=$2; shift 2
  mpirun -np "$n" --oversubscribe --mca btl self,vader --bind-to "${BIND:-none}" \
    "$bench" -b "${MIN:-8B}" -e "${MAX:-64MiB}" --rounds "${ROUNDS:-6}" --csv "$out/$name.csv" \
    "$@" "${extra[@]}" 2>&1 | tee "$out/$name.log"
}

cd "$out"
: > verdicts.txt
for op in "${ops[@]}"; do
  algo=${algorithm[$op]}
  for n in "${ranks[@]}"; do
    for place in in_place out_of_place; do
      flag=(); [ "$place" = out_of_place ] && flag=(--out-of-place)
      note "$op, $n ranks, ${place//_/ }: vader vs $algo, and vader again"
      run_bench "$n" "${op}_np${n}_$place" --op "$op" --algorithm "$algo" --with-null "${flag[@]}"
    done
    for name in "${op}_np${n}_in_place" "${op}_np${n}_out_of_place"; do
      { echo "## $name"; grep -E '^# (target|copy bandwidth|ceiling:|cma:)' "$name.log"; } >> verdicts.txt
    done
  done
  panels=()
  for n in "${ranks[@]}"; do
    for place in in_place out_of_place; do
      csv="${op}_np${n}_$place.csv"
      panels+=(--panel "$n ranks, ${place//_/ }"
               --series "$csv" mpi_busbw_gbs "Open MPI vader (raw MPI)"
               --series "$csv" strata_busbw_gbs "$algo"
               --series "$csv" ceiling_busbw_gbs "copy ceiling (peer copy of the run)"
               --series "$csv" cma_busbw_gbs "CMA copy of the run (vader's large-message path)"
               --bound "$csv" bound_busbw_gbs "memory bound (copy bw of the run)")
    done
  done
  "$py" "$root/python/strata/_busbw_plot.py" --png "$op.png" \
    --title "$op: busbw, vader vs $algo" "${panels[@]}"
done
# Every cell against its run's null; the table and the three target lines.
"$py" "$root/python/strata/_noise_verdicts.py" "$out" --markdown summary.md
note "done: $out (summary.md: every cell against its null; verdicts.txt: each run's targets)"
