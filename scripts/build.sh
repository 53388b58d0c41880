#!/usr/bin/env bash
# Configures and builds Strata. Usage: scripts/build.sh [build-dir] [cmake args...]
# Environment: STRATA_SANITIZE=address,undefined|thread, BUILD_TYPE (default Release).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
shift || true
jobs=$(nproc)
cmake -S "$root" -B "$dir" -G Ninja \
  -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" \
  -DSTRATA_WERROR=ON \
  -DSTRATA_SANITIZE="${STRATA_SANITIZE:-}" "$@"
cmake --build "$dir" -j "$jobs"
