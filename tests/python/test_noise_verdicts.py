"""python/strata/_noise_verdicts.py: issue 27's targets read against the
null comparison, on CSVs written here in strata-mpi-bench's shape."""

import csv
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "python", "strata", "_noise_verdicts.py")
KIB, MIB = 1 << 10, 1 << 20
COLUMNS = ["bytes", "iterations", "mpi_us", "strata_us", "extra_us", "ratio", "median_ratio",
           "wrong", "strata_pct_bound"]


def write_cell(folder, name, rows, side="strata", null=True):
    """rows: {bytes: (median time ratio side/reference, null ratio, % of bound)}."""
    columns = [c.replace("strata", side) for c in COLUMNS] + (["null_median_ratio"] if null else [])
    with open(os.path.join(folder, name), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for b, (q, n, pct) in sorted(rows.items()):
            w.writerow([b, 10, 1.0, q, q - 1, q, q, 0, pct] + ([n] if null else []))


def judge(folder, *extra):
    done = subprocess.run([sys.executable, TOOL, str(folder), *extra], capture_output=True,
                          text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


def target_line(text, what):
    return next(l for l in text.splitlines() if l.startswith(f"- target {what}"))


def test_short_cells_are_inside_noise_only_within_the_null_spread(tmp_path):
    # Busbw ratios 2.5 (holds), 1.8 and 1.6; the null strays 1.15 at most.
    write_cell(tmp_path, "all_reduce_np2_in_place.csv",
               {8: (1.2, 1.0, 0), 256 * KIB: (1 / 2.5, 1.15, 0), MIB: (1 / 1.8, 1 / 1.05, 0),
                64 * MIB: (1 / 1.6, 1.0, 55.0)})
    rc, out, err = judge(tmp_path)
    assert rc == 0, err
    row = next(l for l in out.splitlines() if l.startswith("| all_reduce 2, in place"))
    assert "| 2.50 | _1.80_ | **1.60** |" in row, row
    line = target_line(out, "busbw")
    assert ": FAILS (1 hold, 1 inside noise, 1 fail;" in line, line
    assert "inside noise: all_reduce 2 in place 1M 1.80" in line, line
    assert "fails: all_reduce 2 in place 64M 1.60" in line, line
    assert ": holds (1 hold" in target_line(out, "time <= 2x"), out
    assert ": holds (1 hold" in target_line(out, ">= 40%"), out


def test_every_cell_holding_or_inside_noise_reads_holds_inside_noise(tmp_path):
    write_cell(tmp_path, "broadcast_np4_out_of_place.csv",
               {8: (2.2, 1.12, 0), 4 * KIB: (1.0, 0.95, 0), 256 * KIB: (1 / 1.9, 1.1, 0)})
    rc, out, err = judge(tmp_path)
    assert rc == 0, err
    assert ": holds inside noise (0 hold, 1 inside noise, 0 fail;" in target_line(out, "busbw")
    # 2.2x at 8 B against an 8 B-4 KiB null of 1.12: 2.2 / 1.12 < 2.
    assert ": holds inside noise" in target_line(out, "time <= 2x"), out


def test_a_slow_small_call_beyond_the_null_fails(tmp_path):
    write_cell(tmp_path, "broadcast_np2_in_place.csv", {8: (2.5, 1.1, 0)})
    rc, out, _ = judge(tmp_path)
    assert rc == 0
    assert ": FAILS (0 hold, 0 inside noise, 1 fail; fails: broadcast 2 in place 2.50x)" in \
        target_line(out, "time <= 2x"), out
    assert ": n/a" in target_line(out, "busbw"), out


def test_an_older_run_takes_its_separate_null_run_and_none_is_strict(tmp_path):
    write_cell(tmp_path, "all_gather_np2_out_of_place.csv", {MIB: (1 / 1.9, 0, 0)}, null=False)
    rc, out, _ = judge(tmp_path)
    assert rc == 0 and "Null from: none." in out and "**1.90**" in out, out
    write_cell(tmp_path, "all_gather_np2_null.csv", {MIB: (1.2, 0, 0)}, side="mpi_again",
               null=False)
    rc, out, _ = judge(tmp_path)
    assert rc == 0 and "Null from: all_gather_np2_null.csv." in out and "_1.90_" in out, out


def test_below_forty_percent_of_the_bound_fails_with_no_allowance(tmp_path):
    write_cell(tmp_path, "all_gather_np4_in_place.csv", {64 * MIB: (0.4, 1.5, 39.5)})
    _, out, _ = judge(tmp_path)
    assert ": FAILS (0 hold, 0 inside noise, 1 fail; fails: all_gather 4 in place 39.5%)" in \
        target_line(out, ">= 40%"), out


def test_the_markdown_file_is_the_report_and_no_temporary_is_left(tmp_path):
    write_cell(tmp_path, "all_reduce_np2_in_place.csv", {8: (1.0, 1.0, 0)})
    summary = tmp_path / "summary.md"
    rc, out, _ = judge(tmp_path, "--markdown", str(summary))
    assert rc == 0 and summary.read_text() == out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all_reduce_np2_in_place.csv",
                                                          "summary.md"]


@pytest.mark.parametrize("bad, says", [
    ("nan", "median_ratio 'nan' at 8 B"),
    ("0", "median_ratio '0' at 8 B"),
    ("", "median_ratio '' at 8 B"),
])
def test_a_ratio_that_is_not_a_time_ratio_is_a_clear_error(tmp_path, bad, says):
    path = tmp_path / "all_reduce_np2_in_place.csv"
    write_cell(tmp_path, path.name, {8: (1.0, 1.0, 0)})
    path.write_text(path.read_text().replace(",1.0,1.0,0,0,1.0", f",1.0,{bad},0,0,1.0"))
    rc, out, err = judge(tmp_path)
    assert rc == 2 and out == "", out
    assert str(path) in err and says in err, err


def test_a_bound_that_is_not_a_number_and_a_csv_without_rows_are_clear_errors(tmp_path):
    path = tmp_path / "all_gather_np2_in_place.csv"
    write_cell(tmp_path, path.name, {64 * MIB: (0.4, 1.0, 55.0)})
    path.write_text(path.read_text().replace(",55.0,", ",nan,"))
    rc, _, err = judge(tmp_path)
    assert rc == 2 and "strata_pct_bound 'nan' at 67108864 B" in err, err
    write_cell(tmp_path, path.name, {})
    rc, _, err = judge(tmp_path)
    assert rc == 2 and str(path) in err and "no rows" in err, err


def test_the_report_is_readable_by_others(tmp_path):
    write_cell(tmp_path, "all_reduce_np2_in_place.csv", {8: (1.0, 1.0, 0)})
    summary = tmp_path / "summary.md"
    assert judge(tmp_path, "--markdown", str(summary))[0] == 0
    assert summary.stat().st_mode & 0o777 == 0o644


def test_a_folder_without_bench_csvs_or_with_a_foreign_csv_is_a_clear_error(tmp_path):
    rc, _, err = judge(tmp_path)
    assert rc == 2 and "no <op>_np<n>_<in_place|out_of_place>.csv" in err, err
    (tmp_path / "all_reduce_np2_in_place.csv").write_text("size,time\n8,1\n")
    rc, _, err = judge(tmp_path)
    assert rc == 2 and "not a strata-mpi-bench CSV (columns: size, time)" in err, err
