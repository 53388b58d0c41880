#!/usr/bin/env bash
# The main job, on an existing build: what Strata loaded, how it chooses an
# algorithm, and an all-reduce sweep on 4 virtual CPU devices with every
# algorithm and AUTO, measured against this machine's memory bandwidth.
set -euo pipefail
build=${1:-build}
strata="$build/bin/strata"

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
