#!/usr/bin/env bash
# The ring benchmarks still run and still write what scripts/bench-ring.sh
# and docs/performance/grpc_ring.md read: strata-gloo-anchor (--null, --pin)
# and strata-ring-bench under mpirun -np 2, each a tiny sweep, their CSVs
# (columns, one row per size, busbw > 0), the plotter's PNG and its error
# for a missing column, the bench's release of mpirun's binding, and no
# store folder left behind. Times nothing: speed is never asserted.
#
#   ring_bench_smoke.sh BIN_DIR SOURCE_DIR [MPIEXEC]
set -euo pipefail
bin=$1 src=$2 mpiexec=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# check_csv FILE ROWS COLUMN...: header holds each COLUMN, ROWS data rows,
# every *_busbw_gbs value positive.
check_csv() {
  local file=$1 rows=$2; shift 2
  [ -s "$file" ] || fail "$file was not written"
  local header; header=$(head -1 "$file")
  for column in "$@"; do
    [[ ",$header," == *",$column,"* ]] || fail "$file: no column $column in: $header"
  done
  local got; got=$(($(wc -l < "$file") - 1))
  [ "$got" -eq "$rows" ] || fail "$file: $got rows, expected $rows"
  /usr/bin/python3 - "$file" <<'PY' || fail "$file: a busbw is not positive"
import csv, sys
for rec in csv.DictReader(open(sys.argv[1])):
    for key, value in rec.items():
        if key.endswith("_busbw_gbs") and not float(value) > 0:
            sys.exit(1)
PY
}

before=$(find /tmp -maxdepth 1 -name "strata-gloo-anchor-*" | wc -l)
timeout 60 "$bin/strata-gloo-anchor" -np 2 -b 1KiB -e 4KiB --rounds 1 --null --pin \
  --csv "$work/anchor.csv" --timeout 50 > "$work/anchor.log"
check_csv "$work/anchor.csv" 3 bytes world iterations gloo_us gloo_busbw_gbs gloo2_busbw_gbs \
  gloo2_over_gloo
after=$(find /tmp -maxdepth 1 -name "strata-gloo-anchor-*" | wc -l)
[ "$after" -le "$before" ] || fail "strata-gloo-anchor left its store folder in /tmp"

# The plotter both ways: the sweep's sides and ratios, then its columns
# one by one in a panel of their own; a column it lacks is an error that
# names it.
plotter=("/usr/bin/python3" "$src/python/strata/_busbw_plot.py")
"${plotter[@]}" --png "$work/a.png" "$work/anchor.csv" --panel "gloo alone" \
  --series "$work/anchor.csv" gloo_busbw_gbs gloo --bound "$work/anchor.csv" gloo2_busbw_gbs \
  "gloo again" > /dev/null
[ "$(head -c 8 "$work/a.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] ||
  fail "the plotter wrote no PNG"
if "${plotter[@]}" --png "$work/b.png" --series "$work/anchor.csv" no_such_gbs x \
     2> "$work/b.err"; then
  fail "the plotter drew a column the CSV does not have"
fi
grep -q "no column 'no_such_gbs'" "$work/b.err" || fail "plotter error: $(cat "$work/b.err")"
[ ! -e "$work/b.png" ] || fail "the plotter wrote a PNG after failing"

if [ -z "$mpiexec" ] || [ ! -x "$bin/strata-ring-bench" ]; then
  echo "SKIP strata-ring-bench: no mpiexec given"
  exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 STRATA_LOG_LEVEL=warning
timeout 90 "$mpiexec" -np 2 --oversubscribe --mca btl self,tcp "$bin/strata-ring-bench" \
  --sides mpi,gloo,grpc_ring,gloo -b 1KiB -e 2KiB --rounds 1 --csv "$work/ring.csv" \
  > "$work/ring.log"
check_csv "$work/ring.csv" 2 bytes mpi_busbw_gbs gloo_busbw_gbs grpc_ring_busbw_gbs \
  gloo2_busbw_gbs gloo2_over_gloo grpc_ring_over_mpi grpc_ring_over_gloo
grep -q "^# mpirun's binding released" "$work/ring.log" ||
  fail "strata-ring-bench did not release mpirun's binding: $(head -3 "$work/ring.log")"
echo "ok"
