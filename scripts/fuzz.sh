#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan + UBSan) in their
# own tree and runs each one. docs/TESTING.md ("Fuzzing") explains.
#
#   scripts/fuzz.sh [--seconds N] [--jobs N] [--merge] [--build-dir DIR] [TARGET...]
#
# Each target first runs over its committed corpus (tests/fuzz/corpus/<t>:
# seeds and every input a fuzzer crashed on), then fuzzes for N seconds
# (default 20, what CI runs) starting from it. New inputs go to a scratch
# corpus under the build tree, never into the source tree; --merge folds
# the ones that add coverage into tests/fuzz/corpus/<t> afterwards (small
# files only; review before committing). A crash leaves its input as
# <build-dir>/artifacts/<target>/crash-* and fails the script.
#
# For hours:  scripts/fuzz.sh --seconds 14400 --jobs 2
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

seconds=20
jobs=1
merge=0
build="$root/build-fuzz"
targets=()
while (($#)); do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --merge) merge=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
all=(config tf_config tcp_store_wire ps_wire checkpoint)
((${#targets[@]})) || targets=("${all[@]}")

start=$(date +%s)
mkdir -p "$build"
cmake -S "$root" -B "$build" -G Ninja -DSTRATA_FUZZ=ON \
  -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
  ${CMAKE_CXX_COMPILER_LAUNCHER:+-DCMAKE_CXX_COMPILER_LAUNCHER=$CMAKE_CXX_COMPILER_LAUNCHER} \
  >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" --target strata_fuzzers -j "$(nproc)"
echo "fuzz: built in $(( $(date +%s) - start ))s"

# halt_on_error: the first report is the finding; detect_leaks: a parser
# that leaks per input would exhaust a long run.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export STRATA_LOG_LEVEL=off
# One target: its corpus, then fuzzing. Prints one summary line (or the
# report) into $build/fuzz-<target>.summary; fails on a finding.
fuzz_one() {
  local t=$1
  local bin="$build/bin/strata_fuzz_$t" seeds="$root/tests/fuzz/corpus/$t"
  local scratch="$build/corpus/$t" artifacts="$build/artifacts/$t"
  local log="$build/fuzz-$t.log" summary="$build/fuzz-$t.summary" t0 stats execs
  mkdir -p "$scratch" "$artifacts"
  rm -f "$build/fuzz-$t.failed"
  t0=$(date +%s)
  # -timeout: one input past 10 s is a hang; -rss_limit_mb: a parser that
  # allocates what a length field claims is a finding, not a slow run.
  local common=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024
                -artifact_prefix="$artifacts/" -print_final_stats=1)
  if ! "$bin" "${common[@]}" -runs=0 "$seeds" >"$log" 2>&1; then
    { echo "fuzz: $t crashed on its committed corpus:"; tail -40 "$log"; } >"$summary"
    touch "$build/fuzz-$t.failed"
    return 1
  fi
  local fork=()
  ((jobs > 1)) && fork=(-fork="$jobs" -ignore_crashes=0)
  local rc=0
  "$bin" "${common[@]}" "${fork[@]}" -max_total_time="$seconds" "$scratch" "$seeds" \
    >>"$log" 2>&1 || rc=1
  stats=$(grep -aE '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -1 || true)
  execs=$(grep -aE 'stat::number_of_executed_units' "$log" | tail -1 | awk '{print $2}' || true)
  if ((rc)); then
    { echo "fuzz: $t found a crash (input in $artifacts):"; tail -40 "$log"; } >"$summary"
    touch "$build/fuzz-$t.failed"
    return 1
  fi
  echo "fuzz: $t: $(( $(date +%s) - t0 ))s, ${execs:-?} execs; last status: ${stats:-none}" \
    >"$summary"
  if ((merge)); then
    "$bin" -merge=1 -max_len=4096 "$seeds" "$scratch" >>"$log" 2>&1
  fi
}

# The targets run side by side, one per core (each fuzzer is one process,
# or --jobs with fork mode): on CI's 2 cores the stage takes about half as
# long as one after the other.
parallel=$(nproc)
((jobs > 1)) && parallel=1
for t in "${targets[@]}"; do
  while (( $(jobs -rp | wc -l) >= parallel )); do wait -n || true; done
  fuzz_one "$t" &
done
wait || true
failed=()
for t in "${targets[@]}"; do
  cat "$build/fuzz-$t.summary"
  [[ -e "$build/fuzz-$t.failed" ]] && failed+=("$t")
done
echo "fuzz: done in $(( $(date +%s) - start ))s"
if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]} (logs: $build/fuzz-<target>.log)"
  exit 1
fi
