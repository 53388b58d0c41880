#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds Strata, and runs the main job:
# the most complete end-to-end demo on this machine alone, then
# strata.distribute's Python examples, ending with whether the strategies agree.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/bootstrap.sh
scripts/build.sh build
scripts/demo.sh build
echo
exec scripts/distribute-examples.sh build
