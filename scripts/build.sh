#!/usr/bin/env bash
# Configures and builds Strata. Usage: scripts/build.sh [build-dir] [cmake args...]
# Environment: STRATA_SANITIZE=address,undefined|thread, BUILD_TYPE (default Release),
# STRATA_UNITY (default ON).
#
# Unity builds compile each target's sources 16 to a translation unit: a
# Release build from scratch on a 2-core machine took 4m46s instead of ~10
# min, and CI builds three trees. Incremental builds recompile the whole
# batch of a changed file, so for day-to-day work STRATA_UNITY=OFF.
# scripts/check-core-alone.sh builds without unity, so a file that only
# compiles thanks to a neighbour's includes is still caught.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
shift || true
jobs=$(nproc)
extra=()
if [ -n "${STRATA_SANITIZE:-}" ]; then
  # What the sanitizers' own docs recommend: -O1 keeps the instrumented tests
  # fast, line tables (-g1) are all a report's stack trace needs, and both
  # compile much faster than -O2 -g on a 2-core CI machine.
  extra+=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
          -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG")
fi
cmake -S "$root" -B "$dir" -G Ninja \
  -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" \
  -DSTRATA_WERROR=ON \
  -DSTRATA_SANITIZE="${STRATA_SANITIZE:-}" \
  -DCMAKE_UNITY_BUILD="${STRATA_UNITY:-ON}" -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
  "${extra[@]}" "$@"
cmake --build "$dir" -j "$jobs"
