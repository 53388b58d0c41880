#!/usr/bin/env bash
# strata.distribute's examples (examples/torch/) on an existing build: the
# seeds' Dense(1) y = x, the RFC's custom loop, then the digits CNN under
# OneDevice, Mirrored on 4 cpu devices, CentralStorage on 3 and
# MultiWorkerMirrored on 2 workers x 2 devices (strata launch), each printing
# its final reduced loss and parameter checksum; ends with one line saying
# that the strategies agree (exit status 1, and why, if they do not).
# Usage: scripts/distribute-examples.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
python=${PYTHON3:-/usr/bin/python3}  # Debian's, which has torch
if ! compgen -G "$build/python/strata/_core.*.so" > /dev/null; then
  echo "### strata.distribute examples: skipped: the strata Python package was not built"
  exit 0
fi
export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" OMP_NUM_THREADS=1
examples="$root/examples/torch"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "### strata.distribute: the seeds' Dense(1) learning y = x, MirroredStrategy on 4 cpu devices"
"$python" "$examples/dense_y_equals_x.py" --devices 4
echo
echo "### strata.distribute: the RFC's custom training loop (MirroredStrategy on 3 cpu devices)"
"$python" "$examples/custom_training_loop.py"
echo
echo "### strata.distribute: the digits CNN under each strategy (same loop, same data)"
"$python" "$examples/distribute_digits.py" --strategy one_device | tee "$out/one_device"
"$python" "$examples/distribute_digits.py" --strategy mirrored --devices 4 | tee "$out/mirrored"
"$python" "$examples/distribute_digits.py" --strategy central_storage --devices 3 \
  | tee "$out/central_storage"
"$build/bin/strata" launch -n 2 --timeout 120s -- \
  "$python" "$examples/distribute_digits.py" --strategy multi_worker --devices 2 \
  | tee "$out/multi_worker"
"$python" "$examples/strategies_agree.py" "$out"/*
