#!/usr/bin/env bash
# scripts/bench-shm.sh end to end, briefly: 2 ranks, 8 B to 512 B, one
# round of 5 calls, with PLUGIN=mpi (its algorithms found through `strata
# info`, as the shm plugin's are). Checks what the lead reads: every CSV's
# columns and rows (the null's among them), #wrong 0 everywhere, each
# log's copy bandwidth and three target lines (the 8 B one judged, the
# others n/a at these sizes), verdicts.txt, summary.md (each cell against
# its null) and a PNG per op; then one direct run at 64-128 KiB, where
# the copy ceiling, the CMA rate and every loop's processor time are
# measured, and one of the shm plugin's mapped all-reduce on shm_host
# buffers (--buffers), both sides' answers checked. Speed is not checked.
#
#   bench_shm_smoke.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$1
build_dir=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

RANKS=2 MIN=8B MAX=512B ROUNDS=1 BENCH_ARGS="--iterations 5 --copy-bytes 4MiB" \
  "$source_dir/scripts/bench-shm.sh" "$build_dir" "$out" mpi > "$out/script.log" 2>&1 ||
  { cat "$out/script.log"; echo "FAIL: bench-shm.sh exited non-zero"; exit 1; }

# The copy ceiling starts at 64 KiB: one short run there, with every
# loop's processor time (--cpu), the null's among them.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 STRATA_LOG_LEVEL=warning
timeout 120 mpirun --oversubscribe --bind-to none --mca btl self,vader -np 2 \
  "$build_dir/bin/strata-mpi-bench" -b 64KiB -e 128KiB --rounds 1 --iterations 2 \
  --copy-bytes 4MiB --cpu --with-null --csv "$out/ceiling.csv" > "$out/ceiling.log" 2>&1 ||
  { cat "$out/ceiling.log"; echo "FAIL: strata-mpi-bench at 64-128 KiB exited non-zero"; exit 1; }

# Every buffer on the shm plugin's shm_host device type: the mapped
# all-reduce reads the peer's in place, and MPI_Allreduce runs on them too.
timeout 120 mpirun --oversubscribe --bind-to none --mca btl self,vader -np 2 \
  "$build_dir/bin/strata-mpi-bench" -b 64KiB -e 128KiB --rounds 1 --iterations 2 \
  --copy-bytes 4MiB --algorithm shm/all_reduce/mapped --buffers shm_host \
  --csv "$out/mapped.csv" > "$out/mapped.log" 2>&1 ||
  { cat "$out/mapped.log"; echo "FAIL: strata-mpi-bench --buffers shm_host exited non-zero"; exit 1; }

/usr/bin/python3 - "$out" <<'EOF'
import csv, os, re, sys

out = sys.argv[1]
failures = []
def check(ok, what):
    if not ok:
        failures.append(what)

for op in ("all_reduce", "broadcast", "all_gather"):
    for run in ("in_place", "out_of_place"):
        name = f"{op}_np2_{run}"
        side = "strata"
        with open(os.path.join(out, name + ".csv"), newline="") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            columns = reader.fieldnames or []
        wanted = ["bytes", "iterations", "mpi_us", f"{side}_us", "ratio", "median_ratio", "wrong",
                  "mpi_busbw_gbs", f"{side}_busbw_gbs", "bound_us", "bound_busbw_gbs",
                  "mpi_pct_bound", f"{side}_pct_bound", "copy_gbs", "ceiling_busbw_gbs",
                  "cma_busbw_gbs", "mpi_again_us", "null_median_ratio"]
        missing = [c for c in wanted if c not in columns]
        check(not missing, f"{name}.csv lacks {missing} (has {columns})")
        if missing:
            continue
        sizes = [int(r["bytes"]) for r in rows]
        check(sizes == [8 << k for k in range(7)], f"{name}.csv sizes {sizes}")
        for r in rows:
            check(r["wrong"] == "0", f"{name}.csv: {r['wrong']} wrong at {r['bytes']} B")
            for c in ("mpi_busbw_gbs", f"{side}_busbw_gbs", "bound_busbw_gbs", "copy_gbs",
                      "mpi_again_us", "null_median_ratio"):
                check(float(r[c]) > 0, f"{name}.csv: {c} = {r[c]} at {r['bytes']} B")
            check(float(r["ceiling_busbw_gbs"]) == 0,
                  f"{name}.csv: a ceiling below 64 KiB ({r['ceiling_busbw_gbs']} at {r['bytes']} B)")
        with open(os.path.join(out, name + ".log")) as f:
            log = f.read()
        check(re.search(r"^# copy bandwidth at the start: [0-9.]+ GB/s", log, re.M),
              f"{name}.log: no copy bandwidth line")
        targets = re.findall(r"^# target (.*): (holds|FAILS|n/a) \((.*)\)$", log, re.M)
        check(len(targets) == 3, f"{name}.log: {len(targets)} target lines, not 3:\n{log}")
        if len(targets) == 3:
            check(targets[0][1] == "n/a" and targets[1][1] == "n/a",
                  f"{name}.log: 256 KiB-64 MiB targets judged without those sizes: {targets}")
            check(targets[2][0].endswith("at 8 B") and targets[2][1] != "n/a",
                  f"{name}.log: the 8 B target not judged: {targets[2]}")
    with open(os.path.join(out, op + ".png"), "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", f"{op}.png is not a PNG")

with open(os.path.join(out, "ceiling.csv"), newline="") as f:
    rows = list(csv.DictReader(f))
check([int(r["bytes"]) for r in rows] == [64 << 10, 128 << 10], f"ceiling.csv sizes {rows}")
with open(os.path.join(out, "ceiling.log")) as f:
    ceiling_log = f.read()
check("# ceiling: busbw when every rank copies" in ceiling_log, "ceiling.log: no ceiling line")
cma_refused = "# cma: refused (" in ceiling_log
for r in rows:
    check(float(r["ceiling_busbw_gbs"]) > 0, f"ceiling.csv: no ceiling at {r['bytes']} B")
    # A container's seccomp may forbid process_vm_readv: then the log says so.
    check(float(r["cma_busbw_gbs"]) > 0 or cma_refused,
          f"ceiling.csv: no CMA rate at {r['bytes']} B and no '# cma: refused' line")
    cpu = [f"{loop}_{kind}_us" for loop in ("mpi", "strata", "mpi_again")
           for kind in ("user", "system")]
    check(all(c in r for c in cpu) and
          all(float(r[f"{loop}_user_us"]) + float(r[f"{loop}_system_us"]) > 0
              for loop in ("mpi", "strata", "mpi_again")),
          f"ceiling.csv: not every loop's processor time at {r['bytes']} B: {r}")
check(re.search(r"^ +size .* null again_usr again_sys$", ceiling_log, re.M),
      f"ceiling.log: no processor-time columns for the null loop:\n{ceiling_log}")

with open(os.path.join(out, "mapped.csv"), newline="") as f:
    rows = list(csv.DictReader(f))
check([int(r["bytes"]) for r in rows] == [64 << 10, 128 << 10], f"mapped.csv sizes {rows}")
for r in rows:
    check(r["wrong"] == "0", f"mapped.csv: {r['wrong']} wrong at {r['bytes']} B")
with open(os.path.join(out, "mapped.log")) as f:
    mapped_log = f.read()
check("buffers shm_host" in mapped_log and "(shm/all_reduce/mapped)" in mapped_log,
      f"mapped.log: the header does not name the buffers and the algorithm:\n{mapped_log}")
check("single-copy bound: 2p S" in mapped_log, "mapped.log: no single-copy bound")

with open(os.path.join(out, "verdicts.txt")) as f:
    verdicts = f.read()
check(verdicts.count("# target ") == 18, f"verdicts.txt: {verdicts.count('# target ')} targets")
with open(os.path.join(out, "summary.md")) as f:
    summary = f.read()
# Six cells, their 8 B times judged against the same run's null; the
# busbw and bound targets have no size here.
check(summary.count("| all_reduce 2,") == 2 and "Null from: same run." in summary,
      f"summary.md: not the six cells with their own nulls:\n{summary}")
lines = re.findall(r"^- target (.*): (holds|holds inside noise|FAILS|n/a) \((\d+) hold, (\d+) "
                   r"inside noise, (\d+) fail", summary, re.M)
check([l[1] for l in lines][0::2] == ["n/a", "n/a"] and len(lines) == 3 and
      lines[1][1] != "n/a" and sum(map(int, lines[1][2:])) == 6,
      f"summary.md: target lines {lines}")
for line in failures:
    print("FAIL:", line)
sys.exit(1 if failures else 0)
EOF
echo "bench-shm.sh smoke: CSVs, targets and plots as expected"
