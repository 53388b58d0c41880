"""Issue 27's targets over a whole scripts/bench-shm.sh run, each cell read
against the run's null comparison (the reference timed against itself):
a target short only by what the reference's own noise in the same run can
explain is "inside noise" rather than failed. Debian's /usr/bin/python3;
runs from the source tree as a script or as strata._noise_verdicts.

    /usr/bin/python3 python/strata/_noise_verdicts.py OUT [--markdown FILE]

OUT holds strata-mpi-bench CSVs named `<op>_np<n>_<placement>.csv` with
placement in_place or out_of_place. Their null is the `null_median_ratio`
column (--with-null: the reference timed again in the same rounds);
without it, a separate run's `<op>_np<n>_null.csv` (--null, in place:
older runs) stands for both placements.

The rule, per op, rank count and placement:
- busbw, 256 KiB to 64 MiB: the cell's ratio r is the reference's time
  over the side's (median of rounds: busbw over the reference's). The
  null's spread d is the largest of q and 1/q over its own median ratios q
  at those sizes. r >= 2 holds; r * d >= 2 is inside noise (the reference
  read d apart from itself in this run, more than the cell misses by);
  else it fails.
- 8 B: the side's time over the reference's, t; the null's spread over
  8 B to 4 KiB (vader's eager sizes, the same regime). t <= 2 holds,
  t / d <= 2 inside noise, else fails.
- 64 MiB: the side's best round as a percentage of the memory bound
  (`<side>_pct_bound`), >= 40 holds. The bound has no null: no allowance.

It prints a Markdown table of busbw ratios (cells short of 2x marked) and
one line per target; --markdown writes the same text to FILE atomically.
The exit status is 0 whether or not the targets hold: 2 for unreadable
input, with the file and what is wrong."""

import argparse
import csv
import math
import os
import re
import sys
import tempfile

KIB, MIB = 1 << 10, 1 << 20
SPEEDUP, SPEEDUP_FROM, SPEEDUP_TO = 2.0, 256 * KIB, 64 * MIB
LATENCY_BYTES, LATENCY_NULL_TO, LATENCY_LIMIT = 8, 4 * KIB, 2.0
BOUND_BYTES, BOUND_PCT = 64 * MIB, 40.0
PLACEMENTS = ("in_place", "out_of_place")
CELL_NAME = re.compile(r"^(?P<op>[a-z_]+?)_np(?P<n>\d+)_(?P<place>in_place|out_of_place)\.csv$")


class InputError(Exception):
    pass


def size_label(b):
    return f"{b // MIB}M" if b >= MIB else f"{b // KIB}K" if b >= KIB else f"{b} B"


def read_csv(path):
    """{bytes: row} of one strata-mpi-bench CSV, with the side's column
    prefix (strata, or mpi_again in a null run)."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            columns = reader.fieldnames or []
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from e
    except (csv.Error, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not a readable CSV ({e})") from e
    # bytes, iterations, <reference>_us, <side>_us, ...
    if columns[:2] != ["bytes", "iterations"] or len(columns) < 7 or \
            not columns[3].endswith("_us") or "median_ratio" not in columns:
        raise InputError(f"{path}: not a strata-mpi-bench CSV (columns: {', '.join(columns)})")
    if not rows:
        raise InputError(f"{path}: no rows (did the run stop before its first size?)")
    try:
        return columns[3][:-3], {int(r["bytes"]): r for r in rows}
    except (TypeError, ValueError) as e:
        raise InputError(f"{path}: a bytes value that is not a number ({e})") from e


def ratio(row, path, column="median_ratio", zero_ok=False):
    """A positive finite number from `column` (or 0, if zero_ok), else an
    InputError naming the file, the column and the size."""
    try:
        q = float(row[column])
    except (TypeError, ValueError):
        q = -1.0
    if not (q > 0 or (zero_ok and q == 0)) or math.isinf(q):
        raise InputError(f"{path}: {column} {row[column]!r} at {row['bytes']} B")
    return q


def spread(null_ratios, low, high):
    """How far the null's median ratios stray from 1 over [low, high]:
    max(q, 1/q); None when the null measured no size there."""
    qs = [q for b, q in null_ratios.items() if low <= b <= high]
    return max(max(q, 1 / q) for q in qs) if qs else None


def null_ratios(out, op, n, rows, path):
    """{bytes: null median ratio} and where it came from: the run's own
    null column, else the op's separate --null run, else nothing."""
    if all("null_median_ratio" in r for r in rows.values()):  # read_csv refuses no rows
        return {b: ratio(r, path, "null_median_ratio") for b, r in rows.items()}, "same run"
    null_path = os.path.join(out, f"{op}_np{n}_null.csv")
    if not os.path.exists(null_path):
        return {}, None
    return {b: ratio(r, null_path) for b, r in read_csv(null_path)[1].items()}, \
        os.path.basename(null_path)


def verdict(meets, meets_with_noise):
    return "holds" if meets else "inside noise" if meets_with_noise else "FAILS"


def judge_cell(out, op, n, place):
    """Every verdict of one bench CSV and its null, as a dict."""
    path = os.path.join(out, f"{op}_np{n}_{place}.csv")
    side, rows = read_csv(path)
    nulls, null_source = null_ratios(out, op, n, rows, path)
    d_busbw = spread(nulls, SPEEDUP_FROM, SPEEDUP_TO)
    d_latency = spread(nulls, LATENCY_BYTES, LATENCY_NULL_TO)
    cell = {"op": op, "n": n, "place": place, "null": null_source, "d_busbw": d_busbw,
            "d_latency": d_latency, "busbw": {}}
    for b, row in sorted(rows.items()):
        if SPEEDUP_FROM <= b <= SPEEDUP_TO:
            r = 1 / ratio(row, path)
            cell["busbw"][b] = (r, verdict(r >= SPEEDUP, d_busbw is not None and
                                           r * d_busbw >= SPEEDUP))
    if LATENCY_BYTES in rows:
        t = ratio(rows[LATENCY_BYTES], path)
        cell["latency"] = (t, verdict(t <= LATENCY_LIMIT, d_latency is not None and
                                      t / d_latency <= LATENCY_LIMIT))
    if BOUND_BYTES in rows and f"{side}_pct_bound" in rows[BOUND_BYTES]:
        pct = ratio(rows[BOUND_BYTES], path, f"{side}_pct_bound", zero_ok=True)
        cell["bound"] = (pct, verdict(pct >= BOUND_PCT, False))
    return cell


def find_cells(out):
    found = sorted({(m["op"], int(m["n"]), m["place"])
                    for m in map(CELL_NAME.match, os.listdir(out)) if m},
                   key=lambda c: (c[0], c[1], PLACEMENTS.index(c[2])))
    if not found:
        raise InputError(f"{out}: no <op>_np<n>_<in_place|out_of_place>.csv from scripts/bench-shm.sh")
    return [judge_cell(out, *c) for c in found]


def table(cells):
    sizes = sorted({b for c in cells for b in c["busbw"]})
    head = ["cell"] + [size_label(b) for b in sizes] + ["8 B time", "null spread", "8 B null"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    marks = {"holds": "{:.2f}", "inside noise": "_{:.2f}_", "FAILS": "**{:.2f}**"}
    for c in cells:
        row = [f"{c['op']} {c['n']}, {c['place'].replace('_', ' ')}"]
        for b in sizes:
            r, v = c["busbw"].get(b, (None, None))
            row.append(marks[v].format(r) if r is not None else "–")
        t, v = c.get("latency", (None, None))
        row.append((marks[v] + "×").format(t) if t is not None else "–")
        for d in (c["d_busbw"], c["d_latency"]):
            row.append(f"{d:.2f}" if d is not None else "no null")
        lines.append("| " + " | ".join(row) + " |")
    return lines


def summary_line(what, judged):
    """One target over every cell: `holds`, `holds inside noise` or `FAILS`,
    with the count of each kind and the cells that were not plain holds."""
    counts = {k: sum(1 for _, v in judged if v == k) for k in ("holds", "inside noise", "FAILS")}
    worst = "FAILS" if counts["FAILS"] else "holds inside noise" if counts["inside noise"] else \
        "holds" if judged else "n/a"
    named = {k: ", ".join(w for w, v in judged if v == k) for k in ("inside noise", "FAILS")}
    detail = f"{counts['holds']} hold, {counts['inside noise']} inside noise, {counts['FAILS']} fail"
    for k in ("inside noise", "FAILS"):
        if named[k]:
            detail += f"; {k.lower()}: {named[k]}"
    return f"- target {what}: {worst} ({detail})"


def report(cells):
    name = lambda c: f"{c['op']} {c['n']} {c['place'].replace('_', ' ')}"
    speedup = [(f"{name(c)} {size_label(b)} {r:.2f}", v)
               for c in cells for b, (r, v) in sorted(c["busbw"].items())]
    latency = [(f"{name(c)} {c['latency'][0]:.2f}x", c["latency"][1])
               for c in cells if "latency" in c]
    bound = [(f"{name(c)} {c['bound'][0]:.1f}%", c["bound"][1]) for c in cells if "bound" in c]
    sources = sorted({c["null"] or "none" for c in cells})
    lines = ["busbw over the reference's (median of rounds); _italic_: short of 2x but "
             "inside the null's spread, **bold**: short beyond it. The null spread is the "
             "largest max(q, 1/q) of the reference timed against itself (q, median of "
             "rounds), 256 KiB-64 MiB; the 8 B null's over 8 B-4 KiB. Null from: "
             f"{', '.join(sources)}.", ""]
    lines += table(cells) + [""]
    lines.append(summary_line("busbw >= 2x the reference's from 256 KiB to 64 MiB", speedup))
    lines.append(summary_line("time <= 2x the reference's at 8 B", latency))
    lines.append(summary_line(">= 40% of the memory bound at 64 MiB", bound))
    return "\n".join(lines) + "\n"


def write_atomically(path, text):
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".summary-")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would keep a report from its readers
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="a scripts/bench-shm.sh output folder")
    parser.add_argument("--markdown", help="also write the report here (atomically)")
    args = parser.parse_args(argv)
    try:
        text = report(find_cells(args.out))
    except (InputError, OSError) as e:
        print(f"_noise_verdicts.py: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    if args.markdown:
        write_atomically(args.markdown, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
