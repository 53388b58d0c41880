#!/usr/bin/env bash
# Shows that core needs no plugin but hierarchical_copy (the in-process CPU
# algorithms its own tests drive), and no Python: copies the tracked tree,
# deletes every other plugin directory and the Python package (python/),
# checks that no code in core/ names a deleted plugin, Python, pybind11 or
# torch, then builds (warnings as errors) and runs every test that is left.
#
# Usage: scripts/check-core-alone.sh [work-dir]   (default: a fresh temp dir)
# Exit status: 0 when all of it holds; the failing step's status otherwise.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/strata-core-alone.XXXXXX)}
jobs=$(nproc)

echo "=== copying the tracked tree to $work/src ==="
mkdir -p "$work/src"
git -C "$root" ls-files -z | (cd "$root" && xargs -0 cp --parents -t "$work/src")
# Files not committed yet (a developer's working tree) count too.
git -C "$root" ls-files -z --others --exclude-standard |
  (cd "$root" && xargs -0 -r cp --parents -t "$work/src")

removed=()
for dir in "$work/src"/plugins/*/; do
  name=$(basename "$dir")
  [ "$name" = hierarchical_copy ] && continue
  removed+=("$name")
  rm -rf "$dir"
done
echo "=== removed plugins: ${removed[*]} ==="
rm -rf "$work/src/python"
echo "=== removed the Python package (python/) ==="

# Code (comments stripped) in core/ must not name a removed plugin. "mpi" is
# left out of this check on purpose: the auto resolver order (tf_config,
# slurm, mpi, …) names the mpi *resolver*, as TF's does, and simply skips it
# when no plugin registered one.
named=0
for name in "${removed[@]}" pybind11 Python.h Python3 torch c10d; do
  [ "$name" = mpi ] && continue
  if hits=$({ find "$work/src/core" -type f \( -name '*.cc' -o -name '*.h' \) -exec sed -e 's://.*$::' {} +
               find "$work/src/core" -type f -name CMakeLists.txt -exec sed -e 's:#.*$::' {} +
             } | grep -w -- "$name"); then
    echo "core names the removed plugin '$name':"; echo "$hits"; named=1
  fi
done
[ "$named" = 0 ] || { echo "FAILED: core depends on a plugin by name"; exit 1; }
echo "=== core names none of them ==="

cmake -S "$work/src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_WERROR=ON
cmake --build "$work/build" -j "$jobs"
ls "$work/build/lib/strata/plugins"
ctest --test-dir "$work/build" --output-on-failure -j "$jobs" --timeout 600
echo "=== core alone: built and passed its tests without: ${removed[*]} ==="
