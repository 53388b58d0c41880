#!/usr/bin/env bash
# Configures Strata with CMake's default generator (Unix Makefiles: what
# `cmake -S . -B build` uses) and with Ninja Multi-Config, the generators a
# first user meets besides the Ninja that scripts/build.sh uses. CMake's
# IDE generators (CodeBlocks, CodeLite, Eclipse CDT4, Kate, Sublime Text 2)
# wrap the same two native generators; Watcom WMake and Green Hills MULTI
# need their own toolchains, which Debian 12 does not have.
#
#   scripts/check-generators.sh [--build]
#
# Configure-only by default (CI: ~10 s a generator); --build also builds
# each tree with unity batches, which takes as long as a Release build each.
# Checks beyond "it generates": a multi-config tree puts every
# configuration's programs and plugins where the single-config layout does
# (bin/, lib/strata/plugins/), where tools look for them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=0
[[ "${1:-}" == "--build" ]] && build=1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

check() {
  local name=$1; shift
  local dir="$scratch/$name" t0
  t0=$(date +%s)
  if ! cmake -S "$root" -B "$dir" "$@" >"$dir.log" 2>&1; then
    echo "check-generators: configuring with $name failed:"; grep -A6 -i "error" "$dir.log" | head -40
    return 1
  fi
  if ((build)); then
    if ! cmake --build "$dir" --config Release -j "$(nproc)" >>"$dir.log" 2>&1; then
      # A compiler killed for memory prints no "error": show the log's end too.
      echo "check-generators: building with $name failed:"
      grep -B2 -A10 -E "FAILED|error|Error|Killed" "$dir.log" | head -60; tail -20 "$dir.log"
      return 1
    fi
  fi
  echo "check-generators: $name: $( ((build)) && echo "configured and built" || echo configured) in $(( $(date +%s) - t0 ))s"
}

check default -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16
check ninja-multi-config -G "Ninja Multi-Config" -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16

# The multi-config layout: no per-configuration directory under bin/ or the
# plugin directory, in every configuration's build file.
for config in Debug Release RelWithDebInfo; do
  ninja_file="$scratch/ninja-multi-config/build-$config.ninja"
  for output in "bin/strata" "lib/strata/plugins/libstrata_hierarchical_copy.so"; do
    if ! grep -q "phony $output\$" "$ninja_file"; then
      echo "check-generators: Ninja Multi-Config ($config) does not build $output:"
      grep -E "^build (strata_cli|strata_plugin_hierarchical_copy):" "$ninja_file" || true
      exit 1
    fi
  done
done
echo "check-generators: every generator checked"
