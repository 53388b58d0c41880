#!/usr/bin/env bash
# The main job, on an existing build: train the digits classifier with
# MirroredStrategy on 4 virtual CPU devices, run the seeds' Dense(1)
# example, then show what Strata loaded, how it chooses an algorithm, and an
# all-reduce sweep measured against this machine's memory bandwidth.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
strata="$build/bin/strata"

echo "### train_digits: MLP on the UCI digits, Mirrored on 4 virtual CPU devices"
"$build/bin/train_digits" --config "$root/configs/mirrored_cpu.yaml" --epochs 15
echo
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
echo "### strata bench: all_reduce f32, 8 B .. 64 MiB, 4 virtual CPU devices"
"$strata" bench --op all_reduce --algorithm all --devices 4 -b 8B -e 64MiB -f 2 \
  --json "$build/bench_all_reduce.json"
echo
echo "results: $build/bench_all_reduce.json"
