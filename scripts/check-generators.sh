#!/usr/bin/env bash
# Configures Strata with every generator CMake offers on Debian 12 that has
# a toolchain here, besides the Ninja that scripts/build.sh uses:
#   - Unix Makefiles (the default: what `cmake -S . -B build` uses) and
#     Ninja Multi-Config, the native generators a first user meets;
#   - the IDE generators, each once, over one of the two native ones
#     (CodeBlocks - Unix Makefiles, CodeLite - Ninja, Eclipse CDT4 - Unix
#     Makefiles, Kate - Ninja, Sublime Text 2 - Ninja); their other halves
#     differ only in the native generator, which the runs above cover.
# Watcom WMake and Green Hills MULTI need their own toolchains, which
# Debian 12 does not have: not checked.
#
#   scripts/check-generators.sh [--build]
#
# Configure-only by default: the seven configures run side by side (each
# spends most of its time in the compiler and nvcc probes it starts; the
# CUDA one alone is about 5 s). Measured 2026-11-27 on the 2-core machine at
# load average 9: 78 s of wall time for 45 s of CPU (one configure alone:
# 17 s, 8 s of CPU; one after the other they would take about 2 minutes).
# --build also builds the two native trees (not the IDE ones) with unity
# batches, each as long as a Release build.
# Checks beyond "it generates": each IDE generator wrote its project file,
# and a multi-config tree puts every configuration's programs and plugins
# where the single-config layout does (bin/, lib/strata/plugins/), where
# tools look for them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=0
[[ "${1:-}" == "--build" ]] && build=1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# name | generator (empty: CMake's default) | the file it must write | built by --build
checks=(
  "default||Makefile|yes"
  "ninja-multi-config|Ninja Multi-Config|build-Release.ninja|yes"
  "codeblocks|CodeBlocks - Unix Makefiles|Strata.cbp|no"
  "codelite|CodeLite - Ninja|Strata.workspace|no"
  "eclipse|Eclipse CDT4 - Unix Makefiles|.cproject|no"
  "kate|Kate - Ninja|.kateproject|no"
  "sublime|Sublime Text 2 - Ninja|Strata.sublime-project|no"
)

# One check; its verdict goes to $scratch/<name>.result, "ok ..." or why not.
check() {
  local name=$1 generator=$2 expect=$3 also_build=$4
  local dir="$scratch/$name" log="$scratch/$name.log" t0 args=()
  t0=$(date +%s)
  [[ -n "$generator" ]] && args=(-G "$generator")
  if ! cmake -S "$root" -B "$dir" "${args[@]}" \
       -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 >"$log" 2>&1; then
    { echo "configuring with ${generator:-the default generator} failed:"
      grep -A6 -i "error" "$log" | head -40 || true; } >"$scratch/$name.result"
    return
  fi
  if [[ ! -e "$dir/$expect" ]]; then
    { echo "${generator:-the default generator} configured but wrote no $expect:"
      ls -a "$dir"; } >"$scratch/$name.result"
    return
  fi
  if ((build)) && [[ "$also_build" == yes ]]; then
    if ! cmake --build "$dir" --config Release -j "$(nproc)" >>"$log" 2>&1; then
      # A compiler killed for memory prints no "error": show the log's end too.
      { echo "building with ${generator:-the default generator} failed:"
        grep -B2 -A10 -E "FAILED|error|Error|Killed" "$log" | head -60 || true; tail -20 "$log"; } \
        >"$scratch/$name.result"
      return
    fi
    echo "ok: $name: configured and built in $(( $(date +%s) - t0 ))s" >"$scratch/$name.result"
    return
  fi
  echo "ok: $name: configured in $(( $(date +%s) - t0 ))s" >"$scratch/$name.result"
}

start=$(date +%s)
# With --build, one tree at a time: a build already uses every core.
for entry in "${checks[@]}"; do
  IFS='|' read -r name generator expect also_build <<<"$entry"
  if ((build)); then
    check "$name" "$generator" "$expect" "$also_build"
  else
    check "$name" "$generator" "$expect" "$also_build" &
  fi
done
wait
failed=0
for entry in "${checks[@]}"; do
  IFS='|' read -r name _ <<<"$entry"
  result=$(cat "$scratch/$name.result" 2>/dev/null || echo "$name: no result")
  if [[ "$result" == ok:* ]]; then
    echo "check-generators: ${result#ok: }"
  else
    echo "check-generators: $result"
    failed=1
  fi
done
((failed)) && exit 1

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
echo "check-generators: all ${#checks[@]} generators checked in $(( $(date +%s) - start ))s"
