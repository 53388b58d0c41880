#!/usr/bin/env bash
# The measurements of docs/performance/torch.md, on an existing build:
# python3 -m strata.torch.bench ("strata" against a "gloo" group in the
# same processes) under mpirun (beside strata-mpi-bench, the mpi plugin
# alone) and under torchrun, 2 and 4 ranks; Gloo alone and Gloo against
# Gloo (the benchmark's noise); the digits DDP step; torchrun with the mpi
# plugin through an ompi-server (STRATA_TORCH_OMPI_SERVER=1). CSVs, PNGs and logs go
# to OUT (default bench-torch-out/).
#
#   scripts/bench-torch.sh [build] [out]      (BENCH_ARGS adds bench options)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-build}" && pwd)
out=$(mkdir -p "${2:-bench-torch-out}" && cd "${2:-bench-torch-out}" && pwd)
py=/usr/bin/python3  # Debian's, with torch: the first python3 on PATH may lack it
export PYTHONPATH="$build/python" OMP_NUM_THREADS=1 STRATA_LOG_LEVEL=warning
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
read -r -a extra <<< "${BENCH_ARGS:-}"
bench=(-m strata.torch.bench --sizes 8B:64MiB --factor 2 --rounds 5 --min-time 0.1 "${extra[@]}")
cd "$out"

note() { echo "### $* (load: $(cut -d' ' -f1-3 /proc/loadavg))"; }
torchrun() {  # Debian's torchrun dies at start without --redirects/--tee
  local n=$1; shift
  "$py" -m torch.distributed.run --redirects 1 --tee 1 --nproc_per_node "$n" "$@" 2>&1 |
    grep -E '^\[default0\]:' | sed 's/^\[default0\]://'
}

for n in 2 4; do
  note "mpirun, $n ranks: strata-mpi-bench (the mpi plugin alone)"
  mpirun -np "$n" --oversubscribe "$build/bin/strata-mpi-bench" -b 8B -e 64MiB \
    --csv "mpi_bench_np$n.csv" | tee "mpi_bench_np$n.log"
  note "mpirun, $n ranks: strata vs gloo, digits DDP step"
  mpirun -np "$n" --oversubscribe -x PYTHONPATH -x OMP_NUM_THREADS -x STRATA_LOG_LEVEL \
    "$py" "${bench[@]}" --mpi-bench "mpi_bench_np$n.csv" --ddp-step 50 \
    --csv "torch_mpirun_np$n.csv" --plot "torch_mpirun_np$n.png" | tee "torch_mpirun_np$n.log"
  note "torchrun, $n ranks: strata (no MPI world: AUTO picks shm on one host) vs gloo, DDP step"
  torchrun "$n" "${bench[@]}" --ddp-step 50 --csv "torch_torchrun_np$n.csv" \
    --plot "torch_torchrun_np$n.png" | tee "torch_torchrun_np$n.log"
done
note "torchrun, 2 ranks, STRATA_TORCH_OMPI_SERVER=1: strata (mpi singletons) vs gloo"
STRATA_TORCH_OMPI_SERVER=1 torchrun 2 "${bench[@]}" --csv torch_torchrun_ompi_np2.csv |
  tee torch_torchrun_ompi_np2.log
note "torchrun, 2 ranks: gloo alone (no strata group in the processes)"
torchrun 2 "${bench[@]}" --sides gloo --csv torch_gloo_alone_np2.csv | tee torch_gloo_alone_np2.log
note "torchrun, 2 ranks: gloo vs gloo (what the ratios read when nothing differs)"
torchrun 2 "${bench[@]}" --sides gloo,gloo2 --csv torch_gloo_null_np2.csv |
  tee torch_gloo_null_np2.log
note "done"
