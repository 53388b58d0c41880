#!/usr/bin/env python3
"""Reads distribute_digits.py's lines (stdin or files; `strata launch`'s
[worker-N] prefix is fine) and says whether the strategies agree: every
line's final loss and checksum within --tolerance of the first one's.
Prints one line; exit status 1 when they do not agree (or when fewer than
two lines came), naming the line that differs."""

import argparse
import re
import sys

LINE = re.compile(r"(?:^|\] )digits: (?P<who>.+?): steps (?P<steps>\d+) final loss (?P<loss>\S+) "
                  r"checksum (?P<checksum>\S+) accuracy (?P<accuracy>\S+)")


def parse(lines):
    found = []
    for line in lines:
        m = LINE.search(line.strip())
        if m:
            found.append({"who": m["who"], "steps": int(m["steps"]), "loss": float(m["loss"]),
                          "checksum": float(m["checksum"]), "accuracy": float(m["accuracy"])})
    return found


def disagreement(runs, tolerance):
    """None when every run matches the first; else what differs."""
    if len(runs) < 2:
        return f"only {len(runs)} 'digits:' line(s) to compare; need two or more"
    first = runs[0]
    for run in runs[1:]:
        for key in ("steps", "loss", "checksum"):
            if abs(run[key] - first[key]) > tolerance * max(1.0, abs(first[key])):
                return (f"{run['who']} has {key} {run[key]}, but {first['who']} has "
                        f"{first[key]} (tolerance {tolerance:g})")
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="outputs to read (default: stdin)")
    parser.add_argument("--tolerance", type=float, default=1e-5)
    args = parser.parse_args(argv)
    lines = []
    for name in args.files or ["-"]:
        with (sys.stdin if name == "-" else open(name)) as f:
            lines.extend(f.readlines())
    runs = parse(lines)
    problem = disagreement(runs, args.tolerance)
    if problem:
        print(f"strategies DISAGREE: {problem}")
        return 1
    names = sorted({r["who"].split(",")[0] for r in runs})
    print(f"strategies agree: {len(runs)} runs ({'; '.join(names)}) end with final loss "
          f"{runs[0]['loss']:.6f} and checksum {runs[0]['checksum']:.6f} "
          f"(within {args.tolerance:g})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
