#!/usr/bin/env bash
# The main job, on an existing build: train the digits classifier with
# MultiWorkerMirroredStrategy on 2 worker processes x 2 virtual CPU devices
# (strata launch, then mpirun), the same with MirroredStrategy on 4 devices
# in one process for comparison, the same model over gRPC (grpc_ring) and
# with a parameter server (DOWNPOUR), with TPUStrategy on a simulated TPU
# slice (tpu_sim), a small CNN under PyTorch DDP with the "strata" backend
# against gloo (torchrun, strata launch, mpirun), run the seeds' Dense(1) example, then
# show what Strata loaded, how it chooses an algorithm, an all-reduce sweep
# against this machine's memory bandwidth, Strata's cost over raw MPI, and
# grpc_ring against Gloo and Open MPI over TCP.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
strata="$build/bin/strata"

echo "### train_digits: MLP on the UCI digits, MultiWorkerMirrored on 2 workers x 2 devices"
"$strata" launch -n 2 --devices-per-worker 2 -- \
  "$build/bin/train_digits" --config "$root/configs/multi_worker_mirrored_cpu.yaml" --epochs 15
echo
if command -v mpirun > /dev/null; then
  echo "### the same job under mpirun (the mpi plugin's resolver finds the workers)"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun -np 2 --oversubscribe --mca btl self,vader -x STRATA_DEVICES_PER_WORKER=2 \
    "$build/bin/train_digits" --config "$root/configs/multi_worker_mirrored_cpu.yaml" --epochs 15
  echo
fi
if [ -e "$build/lib/strata/plugins/libstrata_grpc_ring.so" ]; then
  echo "### the same model over gRPC: 3 workers meet through TF_CONFIG addresses alone (grpc_ring)"
  "$strata" launch -n 3 -- \
    "$build/bin/train_digits" --config "$root/configs/multi_worker_grpc_ring.yaml" --epochs 15
  echo
fi
echo "### ParameterServer: 2 workers, 1 ps task, DOWNPOUR (ps stops by itself at the end)"
"$strata" launch -n 2 --ps 1 -- \
  "$build/bin/train_digits" --config "$root/configs/parameter_server_downpour.yaml" --epochs 15
echo
echo "### train_digits: Mirrored on 4 virtual CPU devices in one process (same math)"
"$build/bin/train_digits" --config "$root/configs/mirrored_cpu.yaml" --epochs 15
echo
if [ -e "$build/lib/strata/plugins/libstrata_tpu_sim.so" ]; then
  echo "### TPUStrategy on a simulated 2x2 TPU slice (tpu_sim: torus all-reduce; same math as Mirrored 4)"
  "$build/bin/train_digits" --config "$root/configs/tpu_sim.yaml" --epochs 15
  echo
  echo "### strata bench on the tpu cores: measured time next to the torus cost model"
  "$strata" bench --config "$root/configs/tpu_sim.yaml" --device-type tpu --devices 4 \
    --op all_reduce --algorithm all -b 64KiB -e 4MiB -f 4
  echo
fi
# PyTorch: the same digits, a small CNN under DistributedDataParallel with
# torch.distributed's "strata" backend, then the same steps over gloo; each
# run prints "final loss strata=... gloo=... equal(1e-5): yes" (exit 1 if not).
python=${PYTHON3:-/usr/bin/python3}  # Debian's, which has torch
if compgen -G "$build/python/strata/_torch.*.so" > /dev/null; then
  ddp=("$python" "$root/examples/torch/ddp_digits.py" --backend both)
  with_torch=(env "PYTHONPATH=$(cd "$build" && pwd)/python${PYTHONPATH:+:$PYTHONPATH}" OMP_NUM_THREADS=1)
  echo "### ddp_digits (PyTorch DDP, backend \"strata\" vs gloo): 2 processes under torchrun"
  # A free port, not --standalone's fixed 29400: another job on this host
  # (a test suite) may hold that one.
  port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "${with_torch[@]}" "$python" -m torch.distributed.run --redirects 1 --tee 1 --nnodes 1 \
    --rdzv_backend c10d --rdzv_endpoint "127.0.0.1:$port" --nproc_per_node 2 "${ddp[@]:1}"
  echo
  echo "### ddp_digits: the same under strata launch -n 2"
  "${with_torch[@]}" "$strata" launch -n 2 -- "${ddp[@]}"
  echo
  if command -v mpirun > /dev/null; then
    echo "### ddp_digits: the same under mpirun -np 2 (strata.torch sets RANK, MASTER_ADDR... from MPI)"
    "${with_torch[@]}" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      mpirun -np 2 --oversubscribe --mca btl self,vader "${ddp[@]}"
    echo
  fi
else
  echo "### ddp_digits (PyTorch): skipped: the strata.torch module was not built" \
       "(the configure step says why: torch, python3-dev or pybind11 missing)"
  echo
fi
echo "### dense_y_equals_x: the seeds' Dense(1) learning y = x under Mirrored"
"$build/bin/dense_y_equals_x" --devices 4
echo
echo "### strata info"
"$strata" info
echo
echo "### strata explain all_reduce 8B / 64MiB on 4 devices"
"$strata" explain all_reduce 8B --devices 4
"$strata" explain all_reduce 64MiB --devices 4
echo
echo "### strata bench: all_reduce f32, 8 B .. 64 MiB, 4 virtual CPU devices; --tune keeps the medians"
rm -f "$build/tuning.yaml"
"$strata" bench --op all_reduce --algorithm all --devices 4 -b 8B -e 64MiB -f 2 \
  --json "$build/bench_all_reduce.json" --tune "$build/tuning.yaml"
echo
echo "### strata explain with collectives.tuning: AUTO takes the fastest measured algorithm"
printf 'strata: 1\ncollectives:\n  tuning: tuning.yaml\n' > "$build/tuned.yaml"
"$strata" explain all_reduce 256KiB --devices 4 --config "$build/tuned.yaml"
"$strata" explain all_reduce 2MiB --devices 4 --config "$build/tuned.yaml"
echo
if [ -x "$build/bin/strata-mpi-bench" ]; then
  echo "### strata-mpi-bench: CollectiveOps + mpi plugin vs raw MPI_Allreduce, 2 ranks"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun -np 2 --oversubscribe --mca btl self,vader "$build/bin/strata-mpi-bench" \
    -e 4MiB --rounds 7 --csv "$build/bench_mpi_overhead.csv"
  echo
fi
if [ -x "$build/bin/strata-ring-bench" ]; then
  echo "### strata-ring-bench: grpc_ring vs Gloo's ring vs Open MPI, over loopback TCP, 2 ranks"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun -np 2 --oversubscribe --mca btl self,tcp "$build/bin/strata-ring-bench" \
    -b 64KiB -e 16MiB --rounds 3 --csv "$build/bench_ring_tcp.csv"
  echo
fi
echo "results: $build/bench_all_reduce.json, $build/tuning.yaml, $build/bench_mpi_overhead.csv, $build/bench_ring_tcp.csv"
