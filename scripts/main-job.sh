#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds Strata, and runs the main job:
# the most complete end-to-end demo on this machine alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/bootstrap.sh
scripts/build.sh build
exec scripts/demo.sh build
