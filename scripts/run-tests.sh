#!/usr/bin/env bash
# Runs a build tree's CTest suite with output a person (or a CI log with a
# size limit) can read: one progress line per 50 tests instead of two lines
# per test, the full log kept in <build-dir>/ctest-full.log, and every failed
# test's own output at the end.
#
# A failed test is run once more, alone, to tell a broken test from a flaky
# one. A test that fails again fails the run. One that passes the second time
# is reported as FLAKY (its first output is printed) and does not fail the
# run: a timing-sensitive test on a loaded 2-core machine is a bug to fix,
# but not a reason to throw away the rest of the run.
#
# Usage: scripts/run-tests.sh <build-dir> [ctest args...]
set -uo pipefail
dir=$1; shift
log="$dir/ctest-full.log"
jobs=$(nproc)

start=$(date +%s)
ctest --test-dir "$dir" --output-on-failure -j "$jobs" "$@" 2>&1 | tee "$log" |
  awk '/^ *[0-9]+\/[0-9]+ Test +#/ {
         split($1, n, "/"); done = n[1] + 0; total = n[2]
         # ctest marks failures ***Failed, ***Timeout, ***Exception…, and
         # skips ***Skipped: only the first kind is a failure.
         if (($0 ~ /\*\*\*/ && $0 !~ /\*\*\*Skipped/) || $0 ~ / Not Run/) {
           failed++; print "  FAILED: " $0 }
         if (done % 50 == 0 || done == total)
           printf "  %d/%d tests done, %d failed, %ds\n", done, total, failed, systime() - t0
         fflush() }
       BEGIN { t0 = systime() }'
status=${PIPESTATUS[0]}
# The summary ctest prints (percentages, label times, the failed list),
# with the list of skipped tests cut to its first lines: each test printed
# its skip reason in the full log.
sed -n '/tests passed, /,$p' "$log" |
  awk '/\(Skipped\)/ { if (++skipped <= 5) print; next }
       { print }
       END { if (skipped > 5) printf "\t... %d skipped in all; reasons in %s\n", skipped, where }' \
      where="$log"
[ "$status" = 0 ] && exit 0

echo
echo "=== the first run failed (ctest status $status); each failed test once more, alone ==="
if ctest --test-dir "$dir" --rerun-failed --output-on-failure -j 1 "$@" > "$dir/ctest-rerun.log" 2>&1; then
  echo "FLAKY: these failed once and passed when run again. Their first output:"
  sed -n '/The following tests FAILED:/,$p' "$log"
  # A failed test's output runs from its result line to the next Start or result line.
  awk '/^ *[0-9]+\/[0-9]+ Test +#/ { p = ($0 ~ /\*\*\*/ && $0 !~ /\*\*\*Skipped/) }
       /^ +Start +[0-9]+:/ { p = 0 }
       p' "$log" | head -400
  echo "=== passed on rerun; fix the flaky tests above ($(( $(date +%s) - start ))s) ==="
  exit 0
fi
echo "FAILED again when run alone:"
cat "$dir/ctest-rerun.log" | tail -400
exit "$status"
