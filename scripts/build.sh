#!/usr/bin/env bash
# Configures and builds Strata. Usage: scripts/build.sh [build-dir] [cmake args...]
# Environment: STRATA_SANITIZE=address,undefined|thread, BUILD_TYPE (default Release).
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
  -DSTRATA_SANITIZE="${STRATA_SANITIZE:-}" "${extra[@]}" "$@"
cmake --build "$dir" -j "$jobs"
